/** Long texts are counted in chunks of at most this many characters, cut at a space or newline when one is near. */
export const CHUNK_CHARS = 4_096;

/**
 * Longest run without whitespace counted as one piece. The o200k_base pre-tokenizer keeps such a run whole (CJK
 * prose, base64, one character repeated) and BPE time grows with the square of a pre-token's length, so a longer run
 * is cut: counting time stays linear in the text's length, at a cost of at most about one token per cut (0.1-0.4% on
 * base64 and hex, nothing measurable on CJK). Ordinary prose and code have no such runs and count exactly as whole.
 */
export const MAX_RUN_CHARS = 256;

/** Letters, numbers and marks: the characters a pre-token of letters or digits continues with. */
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/uy;

/**
 * Tokens of a text counted piece by piece: chunks of at most `CHUNK_CHARS` characters, cut at a space or newline
 * when one is in their second half, and within them runs without whitespace cut every `MAX_RUN_CHARS` characters at
 * most. Every counter uses the same cuts, so counters over the same ranks agree exactly.
 */
export function countInChunks(text: string, countPiece: (piece: string) => number): number {
  if (text.length === 0) return 0;
  let tokens = 0;
  for (const piece of pieces(text)) tokens += countPiece(piece);
  return tokens;
}

/** The pieces `countInChunks` counts, in order; joined they give the text back. */
export function* pieces(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + CHUNK_CHARS, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      const newline = text.lastIndexOf('\n', end);
      const boundary = Math.max(space, newline);
      if (boundary > start + CHUNK_CHARS / 2) end = boundary;
      else end = safeCut(text, end);
    }
    yield* withShortRuns(text.slice(start, end));
    start = end;
  }
}

/**
 * A chunk cut inside every run longer than `MAX_RUN_CHARS`, preferably where a punctuation character starts. One
 * pass over character codes: a regular expression for long runs backtracks over every word of the text.
 */
function* withShortRuns(chunk: string): Generator<string> {
  if (chunk.length <= MAX_RUN_CHARS) {
    yield chunk;
    return;
  }
  let from = 0;
  let runStart = 0;
  for (let index = 0; index < chunk.length; index++) {
    if (isWhitespace(chunk.charCodeAt(index))) runStart = index + 1;
    else if (index - runStart >= MAX_RUN_CHARS) {
      const cut = cutInRun(chunk, runStart, runStart + MAX_RUN_CHARS);
      yield chunk.slice(from, cut);
      from = cut;
      runStart = cut;
    }
  }
  yield chunk.slice(from);
}

/** What `\s` matches: ASCII whitespace and the Unicode spaces. */
function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Where to cut a run at or before `limit`: just before a punctuation character that follows a letter or digit
 * (`abc` `/def`, `東京` `。大阪`: where the pre-tokenizer splits anyway) in the second half of the stretch, else at
 * `limit`, never between the two halves of a surrogate pair.
 */
function cutInRun(text: string, runStart: number, limit: number): number {
  for (let index = limit; index > runStart + MAX_RUN_CHARS / 2; index--) {
    if (!isWordCharacter(text, index) && isWordCharacter(text, index - 1) && !isLowSurrogate(text, index)) return index;
  }
  return safeCut(text, limit);
}

function isWordCharacter(text: string, index: number): boolean {
  if (isLowSurrogate(text, index)) return isWordCharacter(text, index - 1);
  WORD_CHARACTER.lastIndex = index;
  return WORD_CHARACTER.test(text);
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `index`, or one before it when it would part a surrogate pair. */
function safeCut(text: string, index: number): number {
  const high = text.charCodeAt(index - 1);
  return isLowSurrogate(text, index) && high >= 0xd800 && high <= 0xdbff ? index - 1 : index;
}
