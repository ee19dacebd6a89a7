import type { Message } from '../transcript/transcript.js';
import { messageText } from '../transcript/transcript.js';
import type { SessionState } from './session-state.js';

/** Whitespace collapsed, so a quote that differs from its source only in line breaks or spacing still matches. */
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Keeps the quotes of a new state that are verbatim in the folded messages (whitespace aside) or were already in the
 * previous state; the others are dropped and counted. A summarizer that paraphrases or invents a quote cannot
 * put it in the state as one.
 */
export function verifySalience(
  state: SessionState,
  previous: SessionState | undefined,
  folded: readonly Message[],
): { state: SessionState; rejected: number } {
  if (!state.salience || state.salience.length === 0) return { state, rejected: 0 };
  const source = flat(folded.map(messageText).join('\n'));
  const before = new Set((previous?.salience ?? []).map(flat));
  const kept = state.salience.filter((quote) => {
    const text = flat(quote);
    return text !== '' && (before.has(text) || source.includes(text));
  });
  const rejected = state.salience.length - kept.length;
  return rejected === 0 ? { state, rejected } : { state: { ...state, salience: kept }, rejected };
}
