import { DEFAULT_STATE_ACKNOWLEDGEMENT } from '../options/prompts.js';
import type { Message } from '../transcript/transcript.js';
import type { SessionState } from './session-state.js';

/**
 * JSON made safe to place between tags: `<`, `>` and `&` (and the line separators U+2028 and U+2029) are written as
 * unicode escapes, so no text from the conversation can close the tag or open a forged one, while a model still reads
 * the escaped characters as what they are. Escaping can triple a text's tokens: measure what this returns.
 */
export function escapeJsonForTag(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Renders a state as the text of the synthetic user message: escaped JSON (see `escapeJsonForTag`) in a tag. */
export function renderSessionState(state: SessionState): string {
  const json = JSON.stringify(
    {
      logos: state.logos,
      // only when there are quotes, so a state without them renders as it always did
      ...(state.salience && state.salience.length > 0 ? { salience: state.salience } : {}),
      ...(state.timeline && state.timeline.length > 0 ? { timeline: state.timeline } : {}),
      ...(state.toolCalls && state.toolCalls.length > 0 ? { toolCalls: state.toolCalls } : {}),
      pathos: state.pathos,
      abstract: state.abstract,
      conversationSummary: state.conversationSummary,
    },
    null,
    1,
  );
  return `<session_state>\n${escapeJsonForTag(json)}\n</session_state>`;
}

/** The synthetic pair placed right after the system prompt: the state as a user message and a short reply. */
export function sessionStateMessages(state: SessionState, acknowledgement = DEFAULT_STATE_ACKNOWLEDGEMENT): Message[] {
  return [
    { role: 'user', parts: [{ type: 'text', text: renderSessionState(state) }], synthetic: 'session-state' },
    { role: 'assistant', parts: [{ type: 'text', text: acknowledgement }], synthetic: 'acknowledgement' },
  ];
}
