/** Style signals of the offline summarizer: tone (pathos) and terms the user defines (abstract). */
import { sentences } from './fact-signals.js';

const PATHOS_RULES: readonly (readonly [string, (texts: readonly string[]) => boolean])[] = [
  [
    'User asks for brief, concise answers.',
    anyMatch(/\b(?:be (?:brief|concise)|keep it short|short answers?|tl;?dr|too long|less verbose|just the code)\b/i),
  ],
  [
    'User is frustrated that things do not work; be direct.',
    anyMatch(
      /\b(?:still (?:not|doesn['’]?t|isn['’]?t|broken|failing)|wtf|ugh|annoying|frustrat\w*|not working|doesn['’]?t work)\b|[!?]{3,}/i,
    ),
  ],
  [
    'User is under time pressure.',
    anyMatch(/\b(?:urgent(?:ly)?|asap|right now|immediately|hurry|deadline|as soon as possible)\b/i),
  ],
  ['User is polite and appreciative.', (texts) => share(texts, /\b(?:please|thanks|thank you|appreciate)\b/i) >= 0.3],
  ['User asks many questions.', (texts) => texts.length >= 3 && share(texts, /\?/) >= 0.5],
  ['User writes with enthusiasm (many exclamations).', (texts) => texts.length >= 3 && share(texts, /!/) >= 0.5],
  ['User writes short messages.', (texts) => texts.length >= 3 && texts.join('').length / texts.length < 80],
];

function anyMatch(pattern: RegExp) {
  return (texts: readonly string[]) => texts.some((text) => pattern.test(text));
}

function share(texts: readonly string[], pattern: RegExp): number {
  return texts.length === 0 ? 0 : texts.filter((text) => pattern.test(text)).length / texts.length;
}

export function pathosOf(userTexts: readonly string[]): string[] {
  return PATHOS_RULES.filter(([, applies]) => applies(userTexts))
    .slice(0, 3)
    .map(([entry]) => entry);
}

const DEFINITIONS = [
  /\bby ["“`]?([^"”`,.;:]{2,40}?)["”`]?,? I mean\b/i,
  /["“`]([^"”`\n]{2,40})["”`],? (?:means|stands for|is short for|refers to|is what I call)\b/i,
  /\b([A-Z][A-Z0-9]{1,7}) (?:means|stands for|is short for)\b/,
  /\b(?:I|we) call (?:it|this|that|them) ["“`]?([^"”`,.;:!?\n]{2,40})/i,
];

export function definedTerms(userTexts: readonly string[], cut: (text: string) => string): string[] {
  const terms: string[] = [];
  for (const text of userTexts) {
    for (const [sentence] of sentences(text)) {
      const term = DEFINITIONS.map((pattern) => pattern.exec(sentence)?.[1]).find(Boolean);
      if (term) terms.push(`User's term "${term.trim()}": ${cut(sentence)}`);
      if (terms.length === 5) return terms;
    }
  }
  return terms;
}
