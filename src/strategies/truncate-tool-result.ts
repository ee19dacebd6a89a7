import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { shortenedResultNote } from '../options/prompts.js';
import { type Message, messageText } from '../transcript/transcript.js';
import { shortenByRelevance } from './shorten-by-relevance.js';

/** Messages with oversized tool results shortened, their token counts, and which calls were shortened. */
export interface TruncatedMessages {
  readonly messages: readonly Message[];
  readonly tokens: readonly number[];
  readonly truncated: number;
  readonly truncatedIds: readonly string[];
}

/** Shortened messages by the message they were cut from, with the limit they were cut to; kept by the engine. */
export type TruncationMemo = WeakMap<
  Message,
  { readonly maxTokens: number; readonly retrievalToolName: string | undefined; readonly message: Message }
>;

/** Characters of the user's latest message taken as context for shortening a result. */
const MAX_REQUEST_CHARS = 2_000;

/**
 * What a tool result was asked for: the latest user message before it and the call that produced it (name and
 * arguments). Read only from messages before the result, which never change, so its cut is the same on every call.
 */
function requestOf(messages: readonly Message[], index: number, callId: string): string {
  let call = '';
  for (let at = index - 1; at >= 0; at--) {
    const message = messages[at] as Message;
    if (message.role === 'assistant' && call === '') {
      for (const part of message.parts) {
        if (part.type === 'tool-call' && part.id === callId) call = `${part.name} ${JSON.stringify(part.args) ?? ''}`;
      }
    }
    if (message.role === 'user' && !message.synthetic)
      return `${messageText(message).slice(0, MAX_REQUEST_CHARS)}\n${call}`;
  }
  return call;
}

/**
 * Shortens every tool result above `maxTokens` by relevance to what it was asked for (`shortenByRelevance`: every
 * block present, the relevant ones verbatim), keeping its call, id and pairing. Messages without such a result
 * are returned as the same objects, so adapters hand them back untouched. With a memo, a message is cut once and
 * its cut reused as long as the same message object comes back. With the retrieval tool (`retrievalToolName`), a cut
 * result ends with a line naming it and the call id, and the retrieval tool's own answers (bounded by its pages) are
 * never cut: the model asked for them whole.
 */
export function truncateOversizedResults(
  messages: readonly Message[],
  measures: readonly MessageMeasure[],
  maxTokens: number,
  meter: MessageMeter,
  memo?: TruncationMemo,
  retrievalToolName?: string,
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
    if (remembered && remembered.maxTokens === maxTokens && remembered.retrievalToolName === retrievalToolName) {
      out.push(remembered.message);
      tokens.push(meter.measure(remembered.message).tokens);
      for (const part of remembered.message.parts) {
        if (part.type === 'tool-result' && part.edit === 'truncated') truncatedIds.push(part.callId);
      }
      return;
    }
    let changed = false;
    const parts = message.parts.map((part) => {
      if (part.type !== 'tool-result' || part.name === retrievalToolName) return part;
      const outputTokens = meter.countText(part.output);
      if (outputTokens <= maxTokens) return part;
      changed = true;
      truncatedIds.push(part.callId);
      const note =
        retrievalToolName === undefined
          ? ''
          : shortenedResultNote({ toolName: retrievalToolName, callId: part.callId });
      return {
        ...part,
        output:
          shortenByRelevance(part.output, Math.max(1, maxTokens - meter.countText(note)), meter.counter, {
            context: requestOf(messages, index, part.callId),
            knownTokens: outputTokens,
          }) + note,
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
    memo?.set(message, { maxTokens, retrievalToolName, message: edited });
    out.push(edited);
    tokens.push(meter.measure(edited).tokens);
  });
  return { messages: out, tokens, truncated: truncatedIds.length, truncatedIds };
}
