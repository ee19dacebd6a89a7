import { maxUtf8Bytes } from './message-meter.js';
import type { TokenCounter } from './token-counter.js';

/**
 * A counter without a tokenizer that never counts fewer tokens than a byte-level tokenizer gives (each token stands
 * for at least one byte: OpenAI's o200k and cl100k, Claude's, Gemini's with its byte fallback): the text's length in
 * UTF-8 bytes. English prose counts about four times its tokens, so the engine compresses early until the provider's
 * usage calibrates it (the first response of each model: see the edge section of the AI SDK guide), never late. The
 * default in the edge build of the AI SDK adapter, where a tokenizer's table is too large to deploy.
 */
export function utf8BytesCounter(): TokenCounter {
  // prose runs 3-5 bytes a token, pretty-printed JSON up to 12 (runs of spaces are single tokens): the ratio learned
  // may be as low as 1/16
  return { name: 'utf8-bytes', count: maxUtf8Bytes, bytesBound: true, calibrationFloor: 1 / 16 };
}
