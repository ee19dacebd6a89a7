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

/**
 * Renders a state as the text of the synthetic user message: escaped JSON (see `escapeJsonForTag`) in a tag. Empty
 * sections are left out: an empty list tells the model nothing and costs tokens in every prompt.
 */
export function renderSessionState(state: SessionState): string {
  const section = <T>(key: string, value: readonly T[] | undefined) =>
    value && value.length > 0 ? { [key]: value } : {};
  const json = JSON.stringify(
    {
      ...section('logos', state.logos),
      ...section('salience', state.salience),
      ...section('timeline', state.timeline),
      ...section('toolCalls', state.toolCalls),
      ...section('files', state.files),
      ...section('pathos', state.pathos),
      ...section('abstract', state.abstract),
      ...(state.conversationSummary.trim() !== '' ? { conversationSummary: state.conversationSummary } : {}),
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
