import type { MessageMeter } from './message-meter.js';
import { renderSessionState } from './render-session-state.js';
import type { SessionState } from './session-state.js';

/**
 * Bounds a state to about `maxTokens` by dropping the oldest entries of its longest lists first. A summarizer
 * that returns an oversized state must not push the prompt over the hard limit.
 */
export function fitState(state: SessionState, maxTokens: number, meter: MessageMeter): SessionState {
  let tokens = meter.countText(renderSessionState(state));
  if (tokens <= maxTokens) return state;
  const lists = { logos: [...state.logos], pathos: [...state.pathos], abstract: [...state.abstract] };
  const entryTokens = (entry: string) => meter.counter.count(entry) + 3;
  while (tokens > maxTokens) {
    const longest = (Object.keys(lists) as Array<keyof typeof lists>).sort(
      (a, b) => lists[b].length - lists[a].length,
    )[0] as keyof typeof lists;
    const removed = lists[longest].shift();
    if (removed === undefined) break;
    tokens -= entryTokens(removed);
  }
  const summary = state.conversationSummary.slice(0, Math.max(0, maxTokens * 2));
  return { ...lists, conversationSummary: summary };
}
