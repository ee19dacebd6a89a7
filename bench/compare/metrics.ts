/**
 * What is measured of every prompt, the same way for every system: tokens (tiktoken o200k_base, per message as the
 * engine counts them), the prefix shared with the previous prompt, validity, and evidence retention.
 */
import { type MessageMeasure, MessageMeter } from '../../src/counting/message-meter.js';
import { commonPrefixTokens } from '../../src/counting/prefix-tracker.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import { messageText, type Transcript } from '../../src/transcript/transcript.js';

export const meter = new MessageMeter(tiktokenCounter());

/** Measures of a prompt's messages, system messages first. */
export function measure(transcript: Transcript): MessageMeasure[] {
  return [...transcript.system, ...transcript.messages].map((message) => meter.measure(message));
}

export const sumTokens = (measures: readonly MessageMeasure[]) => measures.reduce((sum, item) => sum + item.tokens, 0);
export { commonPrefixTokens };

/** Why a prompt is invalid: orphan tool calls or results, empty messages, a changed system prompt. */
export function invalidReasons(transcript: Transcript, expectedSystem: string | undefined): string[] {
  const reasons: string[] = [];
  if (findPairingProblems(transcript.messages).length > 0) reasons.push('orphan tool call or result');
  // a tool result may be empty (a command that printed nothing); a message with nothing in it may not
  const empty = transcript.messages.some((message) =>
    message.role === 'tool'
      ? !message.parts.some((part) => part.type === 'tool-result')
      : messageText(message).trim() === '' && !message.parts.some((part) => part.type === 'tool-call'),
  );
  if (empty) reasons.push('empty message');
  const system = transcript.system.map(messageText).join('\n\n');
  if (expectedSystem !== undefined && system !== expectedSystem) reasons.push('system prompt changed');
  return reasons;
}

const STOPWORDS = new Set(
  'the and for you are was were that this with have has had not but they them their what when where which who will would could should there here then than just like also about from into your our its his her she him been being did does doing can all any some out get got very really much more most yeah yes too'.split(
    ' ',
  ),
);

/** Content words of a text: lowercase words of three or more letters or digits, stopwords left out. */
export function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) if (!STOPWORDS.has(word)) words.add(word);
  return words;
}

/**
 * Texts a piece of evidence can survive in: every message, except this project's `<session_state>` and
 * `<recalled_messages>` blocks, whose every entry is a unit of its own (never the block pooled into one text). A
 * peer's summary message is one unit, as it comes.
 */
export function evidenceUnits(transcript: Transcript): { text: string; words: Set<string> }[] {
  const units: { text: string; words: Set<string> }[] = [];
  for (const message of [...transcript.system, ...transcript.messages]) {
    const text = messageText(message);
    for (const entry of blockEntries(text)?.entries ?? [text]) units.push({ text: entry, words: contentWords(entry) });
  }
  return units;
}

/** The entries of this project's `<session_state>` or `<recalled_messages>` block; undefined for any other text. */
export function blockEntries(text: string): { kind: 'state' | 'recall'; entries: string[] } | undefined {
  const state = /^<session_state>\n([\s\S]*)\n<\/session_state>$/.exec(text);
  if (state) {
    const fields = Object.values(JSON.parse(state[1] as string) as Record<string, string[] | string>);
    return { kind: 'state', entries: fields.flatMap((value) => (Array.isArray(value) ? value : [value])) };
  }
  const recall = /^<recalled_messages>\n([\s\S]*)\n<\/recalled_messages>$/.exec(text);
  if (recall) {
    return { kind: 'recall', entries: (JSON.parse(recall[1] as string) as { text: string }[]).map((e) => e.text) };
  }
  return undefined;
}

/** True when the evidence is in the prompt verbatim, or with >= 80% of its content words in one message or entry. */
export function retained(evidence: string, units: readonly { text: string; words: Set<string> }[]): boolean {
  const words = contentWords(evidence);
  return units.some((unit) => {
    if (unit.text.includes(evidence)) return true;
    if (words.size === 0) return false;
    let found = 0;
    for (const word of words) if (unit.words.has(word)) found++;
    return found / words.size >= 0.8;
  });
}
