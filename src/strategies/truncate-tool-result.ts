import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import type { TokenCounter } from '../counting/token-counter.js';
import type { Message } from '../transcript/transcript.js';

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

/** Messages with oversized tool results shortened, their token counts, and which calls were shortened. */
export interface TruncatedMessages {
  readonly messages: readonly Message[];
  readonly tokens: readonly number[];
  readonly truncated: number;
  readonly truncatedIds: readonly string[];
}

/** Shortened messages by the message they were cut from, with the limit they were cut to; kept by the engine. */
export type TruncationMemo = WeakMap<Message, { readonly maxTokens: number; readonly message: Message }>;

/**
 * Shortens every tool result above `maxTokens`, keeping its call, id and pairing. Messages without such a result
 * are returned as the same objects, so adapters hand them back untouched. With a memo, a message is cut once and
 * its cut reused as long as the same message object comes back.
 */
export function truncateOversizedResults(
  messages: readonly Message[],
  measures: readonly MessageMeasure[],
  maxTokens: number,
  meter: MessageMeter,
  memo?: TruncationMemo,
): TruncatedMessages {
  const out: Message[] = [];
  const tokens: number[] = [];
  const truncatedIds: string[] = [];
  messages.forEach((message, index) => {
    const measure = measures[index] as MessageMeasure;
    if (measure.tokens <= maxTokens || !message.parts.some((part) => part.type === 'tool-result')) {
      out.push(message);
      tokens.push(measure.tokens);
      return;
    }
    const remembered = memo?.get(message);
    if (remembered && remembered.maxTokens === maxTokens) {
      out.push(remembered.message);
      tokens.push(meter.measure(remembered.message).tokens);
      for (const part of remembered.message.parts) {
        if (part.type === 'tool-result' && part.edit === 'truncated') truncatedIds.push(part.callId);
      }
      return;
    }
    let changed = false;
    const parts = message.parts.map((part) => {
      const outputTokens = part.type === 'tool-result' ? meter.countText(part.output) : 0;
      if (part.type !== 'tool-result' || outputTokens <= maxTokens) return part;
      changed = true;
      truncatedIds.push(part.callId);
      return {
        ...part,
        output: truncateHeadAndTail(part.output, maxTokens, meter.counter, outputTokens),
        edited: true,
        edit: 'truncated',
      } as const;
    });
    if (!changed) {
      out.push(message);
      tokens.push(measure.tokens);
      return;
    }
    const edited: Message = { ...message, parts, edited: true };
    memo?.set(message, { maxTokens, message: edited });
    out.push(edited);
    tokens.push(meter.measure(edited).tokens);
  });
  return { messages: out, tokens, truncated: truncatedIds.length, truncatedIds };
}
