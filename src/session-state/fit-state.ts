import type { MessageMeter } from '../counting/message-meter.js';
import { keepMostImportant } from './entry-priority.js';
import { renderSessionState } from './render-session-state.js';
import type { SessionState } from './session-state.js';

/**
 * Bounds a state to about `maxTokens`: the summary is cut to a quarter of the bound first, then logos entries are
 * dropped, least important first (see `entryPriority`), and pathos and abstract only once logos is empty, until the
 * rendered state fits, measured again after each batch. An oversized state must not push the prompt over the limit.
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
    const entries = [...fitted.logos, ...fitted.pathos, ...fitted.abstract];
    if (entries.length === 0) break;
    // drop a share of entries proportional to the excess (at least one), the least important first
    const count = Math.max(1, Math.ceil((entries.length * (tokens - maxTokens)) / tokens));
    for (const field of ['logos', 'pathos', 'abstract'] as const) {
      const share = field === 'logos' ? count : Math.ceil((count * fitted[field].length) / entries.length);
      fitted[field] = keepMostImportant(fitted[field], Math.max(0, fitted[field].length - share));
      if (field === 'logos' && fitted.logos.length > 0) break;
    }
    tokens = measure(fitted);
  }
  return fitted;
}
