import { InvalidOptionError, TokenizerUnavailableError } from '../errors.js';
import { countInChunks } from './count-in-chunks.js';
import { nodeRequire } from './node-require.js';
import type { TokenCounter } from './token-counter.js';

/** Encodings of gpt-tokenizer this counter offers. */
export type GptTokenizerEncodingName = 'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base';

interface GptTokenizerEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

/**
 * One literal specifier per encoding, so bundlers put each encoding in a chunk of its own, fetched on first use.
 * Importing an encoding costs ~300 ms and ~60 MB (it builds a 200k-entry rank map): never at import of this package.
 */
const IMPORTS: Record<GptTokenizerEncodingName, () => Promise<GptTokenizerEncoding>> = {
  o200k_base: () => import('gpt-tokenizer/encoding/o200k_base'),
  cl100k_base: () => import('gpt-tokenizer/encoding/cl100k_base'),
  p50k_base: () => import('gpt-tokenizer/encoding/p50k_base'),
  r50k_base: () => import('gpt-tokenizer/encoding/r50k_base'),
};

const encodings = new Map<GptTokenizerEncodingName, GptTokenizerEncoding>();

/** No special token is disallowed: `<|endoftext|>` in user content is plain text, counted, never an error. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The default counter: gpt-tokenizer (pure JavaScript) with `o200k_base` (GPT-4o and later). It gives the same
 * counts as `tiktokenCounter()` and runs on every runtime, edge included. The encoding is loaded by `load()`, which
 * the engine awaits before its first count; a `count()` before that loads it synchronously where `require` exists.
 */
export function gptTokenizerCounter(encodingName: GptTokenizerEncodingName = 'o200k_base'): TokenCounter {
  if (!Object.hasOwn(IMPORTS, encodingName))
    throw new InvalidOptionError({
      option: 'encodingName',
      message: `expected one of ${Object.keys(IMPORTS).join(', ')}, got ${String(encodingName)}`,
    });
  return {
    // Not `tiktoken:...`: both count the same ranks in the same chunks and agreed on every fixture text, but two
    // pre-tokenizers (a JavaScript and a Rust regex) may still part on inputs never tried; a name of its own keeps
    // a count memoized under one from standing in for the other.
    name: `gpt-tokenizer:${encodingName}`,
    count: (text) => {
      const encoding = encodings.get(encodingName) ?? loadNow(encodingName);
      return countInChunks(text, (chunk) => encoding.countTokens(chunk, PLAIN_TEXT));
    },
    bytesBound: true,
    load: async () => {
      if (encodings.has(encodingName)) return;
      const encoding = await IMPORTS[encodingName]();
      if (!encodings.has(encodingName)) encodings.set(encodingName, encoding);
    },
  };
}

function loadNow(encodingName: GptTokenizerEncodingName): GptTokenizerEncoding {
  const require = nodeRequire();
  if (!require)
    throw new TokenizerUnavailableError({
      module: 'gpt-tokenizer',
      message: 'gptTokenizerCounter() was used before it loaded: await counter.load() before counting on this runtime.',
    });
  const encoding: GptTokenizerEncoding = require(`gpt-tokenizer/encoding/${encodingName}`);
  encodings.set(encodingName, encoding);
  return encoding;
}
