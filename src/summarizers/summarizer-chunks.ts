import type { MessageMeter } from '../counting/message-meter.js';
import type { SessionState } from '../session-state/session-state.js';
import type { Message, Part } from '../transcript/transcript.js';
import { renderPreviousState, renderTranscript } from './render-transcript.js';
import type { Summarizer } from './summarizer.js';

/** Tokens a summarizer's answer is given within its window: 4096, at most a quarter of the window. */
export const SUMMARIZER_OUTPUT_RESERVE_TOKENS = 4_096;
/** Share of a summarizer's window left free for a tokenizer that counts more than ours, and the prompt's framing. */
export const SUMMARIZER_WINDOW_MARGIN = 0.1;
/** A chunk may take at least this share of the window, however large the running state has grown. */
const MIN_CHUNK_SHARE = 0.125;
/** A text is never clipped below this many characters. */
const MIN_CLIPPED_CHARS = 200;
/** Rounds of clipping an oversized message group goes through before it is sent as it is. */
const MAX_CLIP_ROUNDS = 12;

/** A summarizer's limit: its window and what every call sends besides messages and state. */
export interface SummarizerWindow {
  /** In the provider's tokens. */
  readonly contextWindow: number;
  readonly fixedPrompt: string;
  /** Provider tokens per token of ours, as a rejection of the summarizer's showed (see `SummarizerLimits`). @default 1 */
  readonly ratio?: number;
  /** The most tokens of ours one call may send, set by a rejection that explained nothing. */
  readonly bound?: number;
}

/** The window folds are cut by: `contextWindow` when given, else the summarizer's own; undefined for no limit. */
export function summarizerWindow(
  summarizer: Summarizer,
  contextWindow: number | undefined,
): SummarizerWindow | undefined {
  const own = summarizer.contextWindow;
  const tokens = contextWindow ?? (typeof own === 'number' && Number.isInteger(own) && own > 0 ? own : undefined);
  return tokens === undefined ? undefined : { contextWindow: tokens, fixedPrompt: summarizer.fixedPrompt ?? '' };
}

/** Tokens of one message as a model summarizer reads it (`renderTranscript`: long outputs already clipped). */
export function renderedTokens(message: Message, meter: MessageMeter): number {
  return meter.countText(renderTranscript([message]));
}

/** Our tokens of what every call sends besides its messages: the fixed prompt and `previous` as rendered. */
export function callOverhead(window: SummarizerWindow, previous: SessionState | undefined, meter: MessageMeter) {
  const fixedTokens = window.fixedPrompt === '' ? 0 : meter.countText(window.fixedPrompt);
  return fixedTokens + meter.countText(renderPreviousState(previous));
}

/**
 * Tokens of messages one summarizer call may take next to `previous`, in our count: the window (divided by the ratio
 * a rejection showed, capped by its bound) minus the fixed prompt, the previous state as rendered, the answer's
 * reserve and the margin; at least an eighth of the window.
 */
export function chunkBudget(window: SummarizerWindow, previous: SessionState | undefined, meter: MessageMeter): number {
  const { contextWindow, ratio = 1, bound = Number.POSITIVE_INFINITY } = window;
  const reserve = Math.min(SUMMARIZER_OUTPUT_RESERVE_TOKENS, Math.floor(contextWindow / 4));
  const margin = Math.ceil(contextWindow * SUMMARIZER_WINDOW_MARGIN);
  const room = Math.min((contextWindow - reserve - margin) / ratio, bound);
  const left = Math.floor(room - callOverhead(window, previous, meter));
  return Math.max(left, Math.floor(Math.min(contextWindow / ratio, bound) * MIN_CHUNK_SHARE));
}

/** The end of the group starting at `from`: a message with the tool messages after it (calls with their results). */
function groupEnd(messages: readonly Message[], from: number): number {
  let end = from + 1;
  while (end < messages.length && messages[end]?.role === 'tool') end++;
  return end;
}

/**
 * The next chunk of `messages` from `from` within `budget` tokens, cut between message groups (a tool call is never
 * sent without its result): as many whole groups as fit, or, when the first group alone is larger, that group with
 * its longest texts cut to their head and tail (see `clipGroup`). `next` is where the following chunk starts.
 */
export function nextChunk(
  messages: readonly Message[],
  from: number,
  budget: number,
  meter: MessageMeter,
): { readonly messages: readonly Message[]; readonly next: number } {
  let end = from;
  let tokens = 0;
  while (end < messages.length) {
    const groupTo = groupEnd(messages, end);
    const group = messages.slice(end, groupTo);
    const groupTokens = group.reduce((sum, message) => sum + renderedTokens(message, meter), 0);
    if (end === from && groupTokens > budget) return { messages: clipGroup(group, budget, meter), next: groupTo };
    if (tokens + groupTokens > budget) break;
    tokens += groupTokens;
    end = groupTo;
  }
  return { messages: messages.slice(from, end), next: end };
}

/** `text` cut to `maxChars`, keeping its head and tail, with the number of characters left out in between. */
export function clipHeadAndTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n[... ${text.length - maxChars} characters omitted ...]\n${text.slice(-tail)}`;
}

/** The text of a part that clipping may shorten, or undefined for a call, a file. */
function clippable(part: Part): string | undefined {
  if (part.type === 'text' || part.type === 'reasoning' || part.type === 'other') return part.text;
  return part.type === 'tool-result' ? part.output : undefined;
}

function withText(part: Part, text: string): Part {
  if (part.type === 'tool-result') return { ...part, output: text };
  return part.type === 'text' || part.type === 'reasoning' || part.type === 'other' ? { ...part, text } : part;
}

/**
 * A group of messages larger than `budget`, as new messages whose longest texts are cut to their head and tail
 * (the longest first, in rounds, until the group fits); a group that cannot be cut enough (long tool arguments) is
 * returned as far as it was cut. The messages given are not changed.
 */
export function clipGroup(group: readonly Message[], budget: number, meter: MessageMeter): readonly Message[] {
  let current = group;
  for (let round = 0; round < MAX_CLIP_ROUNDS; round++) {
    const tokens = current.reduce((sum, message) => sum + renderedTokens(message, meter), 0);
    if (tokens <= budget) break;
    let longest: { message: number; part: number; length: number } | undefined;
    current.forEach((message, messageIndex) => {
      message.parts.forEach((part, partIndex) => {
        const length = clippable(part)?.length ?? 0;
        if (length > (longest?.length ?? MIN_CLIPPED_CHARS))
          longest = { message: messageIndex, part: partIndex, length };
      });
    });
    if (!longest) break;
    const target = longest;
    // shortened in proportion to the excess, a little more, so that a round or two suffice
    const keep = Math.max(MIN_CLIPPED_CHARS, Math.floor(target.length * (budget / tokens) * 0.9));
    current = current.map((message, messageIndex) =>
      messageIndex !== target.message
        ? message
        : {
            ...message,
            parts: message.parts.map((part, partIndex) =>
              partIndex === target.part ? withText(part, clipHeadAndTail(clippable(part) ?? '', keep)) : part,
            ),
          },
    );
  }
  return current;
}
