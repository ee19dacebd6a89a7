import { TokenizerUnavailableError } from '../errors.js';
import { countInChunks } from './count-in-chunks.js';
import { nodeRequire } from './node-require.js';
import type { TokenCounter } from './token-counter.js';

/** Encodings tiktoken ships. */
export type TiktokenEncodingName = 'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base';

/** The part of tiktoken's API this counter uses; declared here so the package's types do not need tiktoken. */
interface TiktokenEncoding {
  encode(text: string, allowedSpecial: string[], disallowedSpecial: string[]): Uint32Array;
}

const encodings = new Map<TiktokenEncodingName, TiktokenEncoding>();

/**
 * A counter on tiktoken's WASM build (the optional `tiktoken` package, Node and other runtimes with `require`).
 * Counts are identical to `gptTokenizerCounter()`, which is faster and the default. tiktoken is loaded by this call,
 * never at import. Special-token strings such as `<|endoftext|>` are counted as the plain text they are.
 */
export function tiktokenCounter(encodingName: TiktokenEncodingName = 'o200k_base'): TokenCounter {
  let encoding = encodings.get(encodingName);
  if (!encoding) {
    encoding = loadTiktoken().get_encoding(encodingName);
    encodings.set(encodingName, encoding);
  }
  const loaded = encoding;
  return {
    name: `tiktoken:${encodingName}`,
    count: (text) => countInChunks(text, (chunk) => loaded.encode(chunk, [], []).length),
    bytesBound: true,
  };
}

/**
 * Loaded with a run-time `require`, invisible to bundlers: a static or dynamic import would make them bundle the
 * 5.6 MB WASM (and fail without a WASM loader) for every user, including the many who never call this.
 */
function loadTiktoken(): { get_encoding(name: TiktokenEncodingName): TiktokenEncoding } {
  const require = nodeRequire();
  if (!require)
    throw new TokenizerUnavailableError({
      module: 'tiktoken',
      message: 'tiktokenCounter() needs a runtime with require (Node 20.16+, Bun, Deno); use gptTokenizerCounter().',
    });
  try {
    return require('tiktoken');
  } catch (cause) {
    throw new TokenizerUnavailableError({
      module: 'tiktoken',
      message: 'tiktokenCounter() needs the tiktoken package: npm install tiktoken, or use gptTokenizerCounter().',
      cause,
    });
  }
}
