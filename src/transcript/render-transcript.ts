import { renderSessionState } from '../session-state/render-session-state.js';
import type { SessionState } from '../session-state/session-state.js';
import { type Message, stableStringify } from './transcript.js';

/** Characters of one tool output given to a model summarizer; longer outputs keep their head and tail. */
export const DEFAULT_SUMMARY_OUTPUT_CHARS = 12_000;

function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n[... ${text.length - maxChars} characters omitted ...]\n${text.slice(-tail)}`;
}

/**
 * Renders messages as plain text for a model summarizer: one block per message with its role, tool calls with
 * their arguments, and tool results. Every message reaches the summarizer; only single outputs over
 * `maxOutputChars` are clipped in the middle.
 */
export function renderTranscript(messages: readonly Message[], maxOutputChars = DEFAULT_SUMMARY_OUTPUT_CHARS): string {
  const blocks: string[] = [];
  for (const message of messages) {
    const lines: string[] = [];
    for (const part of message.parts) {
      if (part.type === 'text') lines.push(part.text);
      else if (part.type === 'reasoning') lines.push(`(reasoning) ${clip(part.text, maxOutputChars)}`);
      else if (part.type === 'tool-call')
        lines.push(`(calls tool ${part.name} [${part.id}]) ${stableStringify(part.args)}`);
      else if (part.type === 'tool-result') {
        lines.push(
          `(result of ${part.name} [${part.callId}]${part.isError ? ', error' : ''})\n${clip(part.output, maxOutputChars)}`,
        );
      } else if (part.type === 'file') lines.push(`(file ${part.mediaType})`);
      else lines.push(clip(part.text, maxOutputChars));
    }
    blocks.push(`### ${message.role}\n${lines.join('\n')}`);
  }
  return blocks.join('\n\n');
}

/** Renders a previous state for a summarizer prompt, or a note that there is none. */
export function renderPreviousState(state: SessionState | undefined): string {
  return state ? renderSessionState(state) : '(none yet)';
}
