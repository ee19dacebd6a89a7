import type { FilePart, Message } from '../transcript/transcript.js';

/** Largest share of the state's bound that the list of folded files may take. */
export const FILES_SHARE_OF_STATE = 0.1;
/** Characters of a file's name an entry shows. */
const NAME_CHARS = 80;

/**
 * The entries of the files and images in folded messages, one per file: `#<message> <role>: <media type> "<name>",
 * about <n> tokens` (`tool <name>` for the files of a tool result), so a file that left the prompt is still known to have been there (the model does not invent
 * what it showed, and can ask for it). `from`: where the span starts in the history.
 */
export function foldedFileEntries(span: readonly Message[], from: number): string[] {
  const entries: string[] = [];
  span.forEach((message, index) => {
    for (const part of message.parts) {
      if (part.type === 'file') entries.push(fileEntry(`#${from + index + 1} ${message.role}`, part));
      // a result's files, unless the engine had already replaced the result (they left the prompt with it)
      else if (part.type === 'tool-result' && !part.edited)
        for (const file of part.files ?? []) entries.push(fileEntry(`#${from + index + 1} tool ${part.name}`, file));
    }
  });
  return entries;
}

function fileEntry(where: string, file: FilePart): string {
  const name = file.name ? ` "${file.name.replace(/\s+/g, ' ').slice(0, NAME_CHARS)}"` : '';
  const size = file.tokens > 0 ? `, about ${file.tokens.toLocaleString('en-US')} tokens` : '';
  return `${where}: ${file.mediaType}${name}${size}`;
}

/** The folded-file list after `span` (from `from` in the history) leaves the prompt. Undefined when empty. */
export function nextFiles(previous: readonly string[] | undefined, span: readonly Message[], from: number) {
  const list = [...(previous ?? []), ...foldedFileEntries(span, from)];
  return list.length > 0 ? list : undefined;
}
