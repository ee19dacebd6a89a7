/** Long texts are counted in chunks: BPE time grows with the square of a run without spaces (minified code, base64). */
export const CHUNK_CHARS = 4_096;

/**
 * Tokens of a text counted chunk by chunk, each chunk at most `CHUNK_CHARS` characters and cut at a space or newline
 * when one is in its second half. Every counter uses the same cuts, so counters over the same ranks agree exactly.
 */
export function countInChunks(text: string, countChunk: (chunk: string) => number): number {
  if (text.length <= CHUNK_CHARS) return text.length === 0 ? 0 : countChunk(text);
  let tokens = 0;
  for (const chunk of chunks(text)) tokens += countChunk(chunk);
  return tokens;
}

function* chunks(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + CHUNK_CHARS, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      const newline = text.lastIndexOf('\n', end);
      const boundary = Math.max(space, newline);
      if (boundary > start + CHUNK_CHARS / 2) end = boundary;
    }
    yield text.slice(start, end);
    start = end;
  }
}
