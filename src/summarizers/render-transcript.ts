import { renderSessionState } from '../session-state/render-session-state.js';
import type { SessionState } from '../session-state/session-state.js';
import { type Message, stableStringify } from '../transcript/transcript.js';

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

/** Tags a summarizer prompt is built with, besides those of its template: the previous state's. */
const STATE_TAGS = ['session_state'];

/** Names of the tags a template opens or closes, e.g. `messages_to_fold` for `<messages_to_fold>`. */
function tagNames(template: string): string[] {
  const names = new Set(STATE_TAGS);
  for (const match of template.matchAll(/<\/?\s*([A-Za-z_][\w.:-]*)\s*>/g))
    names.add((match[1] as string).toLowerCase());
  return [...names];
}

/**
 * A text that can neither open nor close one of the tags `names`: the `<` of `<name` and `</name` (any case, spaces
 * allowed) is written `&lt;`. Only those tags: every other `<` (code, HTML, comparisons) stays as it was, so quotes
 * copied from the text are still found verbatim.
 */
export function escapeTags(text: string, names: readonly string[]): string {
  if (names.length === 0) return text;
  const alternatives = names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return text.replace(new RegExp(`<(?=\\s*/?\\s*(?:${alternatives})(?![\\w.:-]))`, 'gi'), '&lt;');
}

/** What every call of a model summarizer sends besides the messages and the previous state: its instructions and template. */
export function fixedSummarizerPrompt(instructions: string, template: string): string {
  return `${instructions}\n${template.replace(/\{(previous|messages)\}/g, '')}`;
}

/**
 * A model summarizer's prompt: `template` with `{previous}` and `{messages}` filled in, in one pass (a placeholder
 * written inside a message stays text). The folded messages and the previous state are escaped (see `escapeTags`)
 * against every tag of the template, so a message that contains `</messages_to_fold>` cannot end its block early and
 * pass what follows as instructions.
 */
export function renderSummarizerPrompt(
  template: string,
  { messages, previous }: { messages: readonly Message[]; previous: SessionState | undefined },
): string {
  const names = tagNames(template);
  const previousText = escapeTags(
    renderPreviousState(previous),
    names.filter((name) => !STATE_TAGS.includes(name)),
  );
  const messagesText = escapeTags(renderTranscript(messages), names);
  return template.replace(/\{(previous|messages)\}/g, (_, name) => (name === 'previous' ? previousText : messagesText));
}
