import type { FilePart, Message } from '../transcript/transcript.js';
import type { RecallChunk } from './recall-chunks.js';

/** Opening tag of the block of recalled messages. */
export const RECALL_TAG = 'recalled_messages';

/** The assistant's reply after the block of recalled messages, keeping roles alternating. */
export const DEFAULT_RECALL_ACKNOWLEDGEMENT = 'Noted.';

/** One entry of the block as it is rendered, for pricing it before the block is made. */
export function renderRecallEntry(chunk: RecallChunk): string {
  return escapeMarkup(JSON.stringify(entryOf(chunk)));
}

const entryOf = (chunk: RecallChunk) => ({
  from: chunk.from,
  ...(chunk.part ? { part: chunk.part } : {}),
  text: chunk.text,
});

const escapeMarkup = (json: string) =>
  json
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * Renders recalled chunks, in conversation order, as the text of a synthetic user message: a JSON list between tags,
 * with `<`, `>` and `&` written as unicode escapes, so a quoted message can neither close the block nor open a forged
 * one.
 */
export function renderRecall(chunks: readonly RecallChunk[]): string {
  const json = escapeMarkup(JSON.stringify(chunks.map(entryOf), null, 1));
  return `<${RECALL_TAG}>\n${json}\n</${RECALL_TAG}>`;
}

/**
 * The synthetic pair placed just before the user message it was recalled for; `files` (see `recalledFiles`) follow
 * the quoted text in the user message, as the caller sent them.
 */
export function recallMessages(
  chunks: readonly RecallChunk[],
  acknowledgement: string,
  files: readonly FilePart[] = [],
): Message[] {
  return [
    { role: 'user', parts: [{ type: 'text', text: renderRecall(chunks) }, ...files], synthetic: 'recall' },
    { role: 'assistant', parts: [{ type: 'text', text: acknowledgement }], synthetic: 'acknowledgement' },
  ];
}
