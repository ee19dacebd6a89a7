import type { MessageMeter } from '../counting/message-meter.js';
import { DEFAULT_STATE_ACKNOWLEDGEMENT } from '../options/prompts.js';
import { keepMostImportant } from './entry-priority.js';
import { fitNewest, TOOL_CALLS_SHARE_OF_STATE } from './folded-calls.js';
import { FILES_SHARE_OF_STATE } from './folded-files.js';
import { escapeJsonForTag, sessionStateMessages } from './render-session-state.js';
import type { SessionState } from './session-state.js';
import { fitTimeline, TIMELINE_SHARE_OF_STATE } from './timeline.js';

/** Largest share of the state's bound that salience quotes may take. */
export const SALIENCE_SHARE_OF_STATE = 0.4;
/** Share of the state's bound the conversation summary is first cut to. */
export const SUMMARY_SHARE_OF_STATE = 0.25;

/**
 * Bounds a state to `maxTokens`, measured as it is sent: the state pair of `sessionStateMessages`, escaped, with the
 * message overheads and the acknowledgement. Salience quotes are held to `SALIENCE_SHARE_OF_STATE` of the bound (the
 * least specific dropped first), the timeline to `TIMELINE_SHARE_OF_STATE` (shortened and merged, never dropped), the
 * summary is cut to `SUMMARY_SHARE_OF_STATE`, then logos entries are dropped, least important first (see
 * `entryPriority`), pathos and abstract only once logos is empty, and salience last, measured again after each
 * batch; if the state is still over, the summary is cut further. Escaping can triple the tokens of a text full of
 * `<`, `>` or `&`, so every share is measured escaped. An oversized state must not push the prompt over the limit.
 */
export function fitState(
  state: SessionState,
  maxTokens: number,
  meter: MessageMeter,
  /** The acknowledgement the state pair is sent with. */
  acknowledgement = DEFAULT_STATE_ACKNOWLEDGEMENT,
): SessionState {
  const measure = (candidate: SessionState) =>
    sessionStateMessages(candidate, acknowledgement).reduce((sum, message) => sum + meter.measure(message).tokens, 0);
  if (measure(state) <= maxTokens) return state;
  const escapedTokens = (value: unknown) => meter.countText(escapeJsonForTag(JSON.stringify(value)));
  // the timeline is shortened and merged within its share, never dropped: every folded span stays named
  let timeline = state.timeline && fitTimeline(state.timeline, TIMELINE_SHARE_OF_STATE * maxTokens, meter);
  // the folded calls keep the newest within their share: an older one is still found by a query of the retrieval tool
  let toolCalls = state.toolCalls && fitNewest(state.toolCalls, TOOL_CALLS_SHARE_OF_STATE * maxTokens, meter);
  // the folded files keep the newest within their share
  let files = state.files && fitNewest(state.files, FILES_SHARE_OF_STATE * maxTokens, meter);
  let salience = [...(state.salience ?? [])];
  while (salience.length > 0 && escapedTokens(salience) > SALIENCE_SHARE_OF_STATE * maxTokens) {
    salience = keepMostImportant(salience, salience.length - 1);
  }
  const fitted = {
    logos: [...state.logos],
    pathos: [...state.pathos],
    abstract: [...state.abstract],
    salience,
    conversationSummary: cutToTokens(state.conversationSummary, SUMMARY_SHARE_OF_STATE * maxTokens, escapedTokens),
  };
  const current = (): SessionState => {
    const { salience: quotes, ...rest } = fitted;
    return {
      ...rest,
      ...(quotes.length > 0 ? { salience: quotes } : {}),
      ...(timeline && timeline.length > 0 ? { timeline } : {}),
      ...(toolCalls && toolCalls.length > 0 ? { toolCalls } : {}),
      ...(files && files.length > 0 ? { files } : {}),
    };
  };
  let tokens = measure(current());
  while (tokens > maxTokens) {
    const entries = [...fitted.logos, ...fitted.pathos, ...fitted.abstract, ...fitted.salience];
    if (entries.length === 0) break;
    // drop a share of entries proportional to the excess (at least one), the least important first
    const count = Math.max(1, Math.ceil((entries.length * (tokens - maxTokens)) / tokens));
    if (fitted.logos.length > 0) {
      fitted.logos = keepMostImportant(fitted.logos, Math.max(0, fitted.logos.length - count));
    } else if (fitted.pathos.length + fitted.abstract.length > 0) {
      for (const field of ['pathos', 'abstract'] as const) {
        const share = Math.ceil((count * fitted[field].length) / (fitted.pathos.length + fitted.abstract.length || 1));
        fitted[field] = keepMostImportant(fitted[field], Math.max(0, fitted[field].length - share));
      }
    } else {
      fitted.salience = keepMostImportant(fitted.salience, Math.max(0, fitted.salience.length - count));
    }
    tokens = measure(current());
  }
  if (tokens > maxTokens) {
    // nothing left to drop: the summary gives way, measured in the whole pair, then the timeline merges further
    const rest = measure({ ...current(), conversationSummary: '' });
    fitted.conversationSummary = cutToTokens(
      fitted.conversationSummary,
      maxTokens - rest,
      (summary) => measure({ ...current(), conversationSummary: summary }) - rest,
    );
    tokens = measure(current());
    if (tokens > maxTokens && toolCalls && toolCalls.length > 0) {
      toolCalls = fitNewest(toolCalls, Math.max(0, escapedTokens(toolCalls) - (tokens - maxTokens)), meter);
      tokens = measure(current());
    }
    if (tokens > maxTokens && files && files.length > 0) {
      files = fitNewest(files, Math.max(0, escapedTokens(files) - (tokens - maxTokens)), meter);
      tokens = measure(current());
    }
    if (tokens > maxTokens && timeline && timeline.length > 1) {
      timeline = fitTimeline(timeline, Math.max(0, escapedTokens(timeline) - (tokens - maxTokens)), meter);
    }
  }
  return current();
}

/** Marks a summary that was cut. */
const CUT_MARK = '...';
/** More characters than any ordinary token holds: a longer text is cut to this many per token before it is counted. */
const MAX_CHARS_PER_TOKEN = 16;

/**
 * The longest start of `text` (with `...` when cut) whose `tokensOf` is at most `maxTokens`: estimated from the
 * ratio of tokens to characters and measured again, so a long text is counted a few times, not once per character,
 * and never more than `MAX_CHARS_PER_TOKEN` characters a token of it.
 */
function cutToTokens(text: string, maxTokens: number, tokensOf: (text: string) => number): string {
  const cut = (length: number) => {
    const code = text.charCodeAt(length - 1);
    // never end between the two halves of a surrogate pair
    const end = code >= 0xd800 && code <= 0xdbff ? length - 1 : length;
    return end <= 0 ? '' : `${text.slice(0, end)}${CUT_MARK}`;
  };
  let length = Math.min(text.length, Math.max(0, Math.ceil(maxTokens * MAX_CHARS_PER_TOKEN)));
  let candidate = length === text.length ? text : cut(length);
  for (let attempt = 0; attempt < 8 && candidate !== ''; attempt++) {
    const tokens = tokensOf(candidate);
    if (tokens <= maxTokens) return candidate;
    // aim a little under: the ratio of a start can differ from the whole's
    length = Math.min(length - 1, Math.floor((length * maxTokens * 0.95) / tokens));
    candidate = cut(length);
  }
  return tokensOf(candidate) <= maxTokens ? candidate : '';
}
