import type { MessageMeter } from './message-meter.js';
import { renderSessionState } from './render-session-state.js';
import type { SessionState } from './session-state.js';

/**
 * Bounds a state to about `maxTokens`: the summary is cut to a quarter of the bound first, then the oldest entries of
 * the longest lists are dropped until the rendered state fits, measured again after each batch. A summarizer that
 * returns an oversized state must not push the prompt over the hard limit.
 */
export function fitState(state: SessionState, maxTokens: number, meter: MessageMeter): SessionState {
  const measure = (candidate: SessionState) => meter.countText(renderSessionState(candidate));
  if (measure(state) <= maxTokens) return state;
  const summaryChars = Math.max(0, maxTokens); // about a quarter of the bound at four characters a token
  const fitted = {
    logos: [...state.logos],
    pathos: [...state.pathos],
    abstract: [...state.abstract],
    conversationSummary:
      state.conversationSummary.length > summaryChars
        ? `${state.conversationSummary.slice(0, summaryChars)}...`
        : state.conversationSummary,
  };
  let tokens = measure(fitted);
  while (tokens > maxTokens) {
    const lists = [fitted.logos, fitted.pathos, fitted.abstract];
    const entries = lists.reduce((sum, list) => sum + list.length, 0);
    if (entries === 0) break;
    // drop a share of entries proportional to the excess, at least one, from the longest list first
    let toDrop = Math.max(1, Math.ceil((entries * (tokens - maxTokens)) / tokens));
    while (toDrop > 0) {
      const longest = lists.reduce((a, b) => (b.length > a.length ? b : a));
      if (longest.length === 0) break;
      longest.shift();
      toDrop--;
    }
    tokens = measure(fitted);
  }
  return fitted;
}
