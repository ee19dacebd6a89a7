import type { TokenCounter } from '../counting/token-counter.js';

/** Share of the kept tokens taken from the start of an output; the rest comes from its end. */
export const DEFAULT_HEAD_SHARE = 0.6;

/**
 * Shortens a text to about `maxTokens` by keeping its head and its tail and putting a marker in the middle that
 * says how much was cut. Cuts at line breaks when there are lines, so log and file excerpts stay readable.
 * Deterministic: the same text and limit always give the same result, so the prompt prefix stays cache-stable.
 */
export function truncateHeadAndTail(
  text: string,
  maxTokens: number,
  counter: TokenCounter,
  /** The text's tokens when the caller counted them already. */
  knownTokens?: number,
): string {
  const tokens = knownTokens ?? counter.count(text);
  if (tokens <= maxTokens) return text;
  const charsPerToken = text.length / Math.max(tokens, 1);
  const budgetChars = Math.max(0, Math.floor(maxTokens * charsPerToken) - 120);
  let headEnd = Math.floor(budgetChars * DEFAULT_HEAD_SHARE);
  let tailStart = text.length - (budgetChars - headEnd);
  const headBreak = text.lastIndexOf('\n', headEnd);
  if (headBreak > headEnd * 0.5) headEnd = headBreak + 1;
  const tailBreak = text.indexOf('\n', tailStart);
  if (tailBreak !== -1 && tailBreak - tailStart < (text.length - tailStart) * 0.5) tailStart = tailBreak + 1;
  if (tailStart < headEnd) tailStart = headEnd;
  const cut = text.slice(headEnd, tailStart);
  const cutLines = cut.split('\n').length - 1;
  const cutTokens = Math.max(0, tokens - counter.count(text.slice(0, headEnd)) - counter.count(text.slice(tailStart)));
  const marker = `\n[... ${cutLines > 0 ? `${cutLines} lines, ` : ''}about ${cutTokens} tokens (${cut.length} characters) cut from the middle of this output ...]\n`;
  return text.slice(0, headEnd) + marker + text.slice(tailStart);
}
