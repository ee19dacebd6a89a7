import type { MessageMeter } from '../counting/message-meter.js';
import { keepMostImportant } from './entry-priority.js';
import { renderSessionState } from './render-session-state.js';
import type { SessionState } from './session-state.js';
import { fitTimeline, TIMELINE_SHARE_OF_STATE } from './timeline.js';

/** Largest share of the state's bound that salience quotes may take. */
export const SALIENCE_SHARE_OF_STATE = 0.4;

/**
 * Bounds a state to about `maxTokens`: salience quotes are held to `SALIENCE_SHARE_OF_STATE` of the bound (the least
 * specific dropped first), the timeline to `TIMELINE_SHARE_OF_STATE` (shortened and merged, never dropped), the
 * summary is cut to a quarter of the bound, then logos entries are dropped, least
 * important first (see `entryPriority`), pathos and abstract only once logos is empty, and salience last, until the
 * rendered state fits, measured again after each batch. An oversized state must not push the prompt over the limit.
 */
export function fitState(state: SessionState, maxTokens: number, meter: MessageMeter): SessionState {
  const measure = (candidate: SessionState) => meter.countText(renderSessionState(candidate));
  if (measure(state) <= maxTokens) return state;
  // the timeline is shortened and merged within its share, never dropped: every folded span stays named
  const timeline = state.timeline && fitTimeline(state.timeline, TIMELINE_SHARE_OF_STATE * maxTokens, meter);
  const summaryChars = Math.max(0, maxTokens); // about a quarter of the bound at four characters a token
  let salience = [...(state.salience ?? [])];
  const quoteTokens = () => meter.countText(JSON.stringify(salience));
  while (salience.length > 0 && quoteTokens() > SALIENCE_SHARE_OF_STATE * maxTokens) {
    salience = keepMostImportant(salience, salience.length - 1);
  }
  const fitted = {
    logos: [...state.logos],
    pathos: [...state.pathos],
    abstract: [...state.abstract],
    salience,
    conversationSummary:
      state.conversationSummary.length > summaryChars
        ? `${state.conversationSummary.slice(0, summaryChars)}...`
        : state.conversationSummary,
  };
  const current = (): SessionState => {
    const { salience: quotes, ...rest } = fitted;
    return {
      ...rest,
      ...(quotes.length > 0 ? { salience: quotes } : {}),
      ...(timeline && timeline.length > 0 ? { timeline } : {}),
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
  return current();
}
