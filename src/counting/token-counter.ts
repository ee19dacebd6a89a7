import { get_encoding, type Tiktoken } from 'tiktoken';

/** Counts the tokens of a text. Implementations must not throw on any input. */
export interface TokenCounter {
  /** A stable name, part of the memo key, e.g. `tiktoken:o200k_base`. */
  readonly name: string;
  count(text: string): number;
}

/** Encodings tiktoken ships. */
export type TiktokenEncodingName = 'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base';

const encodings = new Map<TiktokenEncodingName, Tiktoken>();

/**
 * The default counter: tiktoken's `o200k_base` (GPT-4o and later). Special-token strings such as
 * `<|endoftext|>` are counted as the plain text they are, so user content never makes counting throw.
 * Other providers' tokenizers differ; the engine corrects for that with a calibration ratio learned from usage.
 */
export function tiktokenCounter(encodingName: TiktokenEncodingName = 'o200k_base'): TokenCounter {
  let encoding = encodings.get(encodingName);
  if (!encoding) {
    encoding = get_encoding(encodingName);
    encodings.set(encodingName, encoding);
  }
  const loaded = encoding;
  const encode = (text: string) => loaded.encode(text, [], []).length;
  return {
    name: `tiktoken:${encodingName}`,
    count: (text) => {
      if (text.length <= CHUNK_CHARS) return text.length === 0 ? 0 : encode(text);
      let tokens = 0;
      for (const chunk of chunks(text)) tokens += encode(chunk);
      return tokens;
    },
  };
}

/** Long texts are counted in chunks: BPE time grows with the square of a run without spaces (minified code, base64). */
const CHUNK_CHARS = 4_096;

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

/** A counter without a tokenizer: about four characters a token. Useful in tests and on constrained runtimes. */
export function approximateCounter(charactersPerToken = 4): TokenCounter {
  return { name: `approximate:${charactersPerToken}`, count: (text) => Math.ceil(text.length / charactersPerToken) };
}
