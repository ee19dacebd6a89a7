/** Fact signals: what makes a sentence worth keeping verbatim in the offline summary, and how it scores. */
export const MONTH =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
/** A rule or a limit: must, never, always, do not, required, at most... */
export const CONSTRAINT_SIGNAL =
  /\b(?:must(?:n['’]t)?(?!['’]ve| have been| be (?:so|really|awesome|great|nice|hard|tough|fun|amazing|cool))|never|always|don['’]?t|do not|required?|requires|requirement|constraints?|mandatory|should(?:n['’]t| not)|make sure|ensure|avoid|forbidden|not allowed|at (?:least|most)|no more than)\b/i;
/** A decision: decided, we will use, let's go with, agreed, switched to... */
export const DECISION_SIGNAL =
  /\b(?:decided|decide to|decision|we(?:['’]ll| will| are going to) (?:use|go with|switch|build|add|move|implement|ship|deploy|keep)|let['’]?s (?:use|go with|switch|call|name|stick with)|agreed|agree to|chose|chosen|going with|settled on|opted|switch(?:ed)? to|plan is|will use)\b/i;
/** Fact signals and their weights; a sentence scores the sum of the signals it carries, each counted once. */
export const SIGNALS: readonly (readonly [number, RegExp])[] = [
  [1, /\d/],
  [
    2,
    new RegExp(
      `\\b(?:\\d{4}-\\d{2}-\\d{2}|\\d{1,2}/\\d{1,2}/\\d{2,4}|(?:${MONTH})\\.? \\d{1,2}|\\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:${MONTH})|` +
        '(?:january|february|april|june|july|august|september|october|november|december)|(?:mon|tues|wednes|thurs|fri|satur|sun)day|' +
        'yesterday|tomorrow|tonight|(?:last|next|this) (?:week|weekend|month|year|summer|winter|spring|fall)|\\d+ (?:days?|weeks?|months?|years?) ago|(?:19|20)\\d{2})\\b',
      'i',
    ),
  ],
  [1, /\b\d{1,2}:\d{2}\b|\b\d{1,2} ?(?:am|pm)\b/i],
  [2, /[$€£¥] ?\d|\b\d+(?:[.,]\d+)? ?(?:usd|eur|gbp|dollars?|euros?|bucks|k)\b/i],
  [
    2,
    /\b[A-Za-z][A-Za-z0-9]*_\w+|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z0-9]+[A-Z]\w*|\b[A-Z]{2,}-?\d+\b|\b(?=\w{4})[A-Za-z]+\d+\w*|[0-9a-f]{8}-[0-9a-f]{4}-|`[^`\n]{1,80}`/,
  ],
  [
    2,
    /(?:^|[\s(`'"=:])(?:\.{1,2}|~)?\/[\w.-]+|\b[\w.-]+(?:\/[\w.-]+){2,}|\b[\w-]+(?:\/[\w.-]+)*\.(?:py|ts|tsx|js|jsx|mjs|cjs|json|md|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|ya?ml|toml|txt|sh|sql|css|scss|html|lock|cfg|ini|env|csv|ipynb|xml|proto|vue)\b/,
  ],
  [2, /\b(?:https?|ftp):\/\/[^\s<>"']+|\bwww\.[\w-]+\.\w/i],
  [2, /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+/],
  [2, CONSTRAINT_SIGNAL],
  [2, DECISION_SIGNAL],
  [
    2,
    /\w*(?:Error|Exception)\b|\b(?:errors?|failed|failing|failure|fails|traceback|fatal|panic|segmentation fault|exit (?:code|status) [1-9]\d*|ENOENT|EACCES|not found|permission denied|refused|timed out)\b/i,
  ],
  // What a speaker says about their own life, work or plans ("I'm starting a dance studio"): a weak signal alone.
  [
    1,
    /\b(?:I|I['’]m|I['’]ve|we|we['’]re|my|our)\b[^.?!]{0,40}?\b(?:started|starting|going to|gonna|planning|plan to|working (?:on|at|as)|work (?:on|at|as)|bought|joined|moved|lost|finished|building|researching|signed up|adopted|live in|studying|launched|opened|graduated)\b/i,
  ],
];
export const TEST_SUMMARY =
  /\b\d+ (?:passed|failed|errors?|skipped|tests?|failures?|xfailed|xpassed|warnings?)\b|^(?:OK|FAILED|PASSED|FAIL|PASS)\b|\bTests?: +\d/;
export const HASH = /\b[0-9a-f]{7,64}\b/gi;
export const NOT_NAMES = new Set(['I', "I'm", "I've", "I'll", "I'd", 'I’m', 'I’ve', 'I’ll', 'I’d', 'OK', 'Ok']);
export const SPEAKER_LABEL = /^([A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?):\s+/;
export const SENTENCE_BREAK = /(?<=[.!?…]["'”’)\]]?)\s+(?=["'“([]?[A-Z0-9])/;

export function* sentences(text: string): Generator<[string, boolean]> {
  let inCode = false;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line.startsWith('```')) inCode = !inCode;
    else if (line !== '' && inCode) yield [line, true];
    else if (line !== '') for (const sentence of line.split(SENTENCE_BREAK)) yield [sentence, false];
  }
}

export function signalScore(text: string, ignoredNames: ReadonlySet<string> = NOT_NAMES): number {
  let score = 0;
  for (const [weight, pattern] of SIGNALS) if (pattern.test(text)) score += weight;
  const words = text.split(/\s+/);
  for (let index = 1; index < words.length; index++) {
    const word = (words[index] as string).replace(/^["'“(]+/, '');
    const bare = word.replace(/[^\w'’]+$/, '').replace(/['’]s$/, '');
    const isName = /^(?:[A-Z][a-z'’]+|[A-Z]{2,})\b/.test(word) && !NOT_NAMES.has(bare) && !ignoredNames.has(bare);
    if (isName && !/[.!?:]$/.test(words[index - 1] as string)) {
      score += 1;
      break;
    }
  }
  for (const match of text.matchAll(HASH)) {
    if (/\d/.test(match[0]) && /[a-f]/i.test(match[0])) return score + 2;
  }
  return score;
}

/** Score of a sentence, or 0 for chit-chat: no signal, or a lone weak one in a sentence of three words or fewer. */
export function worthKeeping(sentence: string, speakerNames: ReadonlySet<string>): number {
  const score = signalScore(sentence, speakerNames);
  return score >= 2 || (score === 1 && sentence.split(/\s+/).length > 3) ? score : 0;
}
