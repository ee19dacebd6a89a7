import type { Message } from '../transcript/transcript.js';

/** Largest share of the state's bound that the list of folded files may take. */
export const FILES_SHARE_OF_STATE = 0.1;
/** Characters of a file's name an entry shows. */
const NAME_CHARS = 80;

/**
 * The entries of the files and images in folded messages, one per file: `#<message> <role>: <media type> "<name>",
 * about <n> tokens`, so a file that left the prompt is still known to have been there (the model does not invent
 * what it showed, and can ask for it). `from`: where the span starts in the history.
 */
export function foldedFileEntries(span: readonly Message[], from: number): string[] {
  const entries: string[] = [];
  span.forEach((message, index) => {
    for (const part of message.parts) {
      if (part.type !== 'file') continue;
      const name = part.name ? ` "${part.name.replace(/\s+/g, ' ').slice(0, NAME_CHARS)}"` : '';
      const size = part.tokens > 0 ? `, about ${part.tokens.toLocaleString('en-US')} tokens` : '';
      entries.push(`#${from + index + 1} ${message.role}: ${part.mediaType}${name}${size}`);
    }
  });
  return entries;
}

/** The folded-file list after `span` (from `from` in the history) leaves the prompt. Undefined when empty. */
export function nextFiles(previous: readonly string[] | undefined, span: readonly Message[], from: number) {
  const list = [...(previous ?? []), ...foldedFileEntries(span, from)];
  return list.length > 0 ? list : undefined;
}
