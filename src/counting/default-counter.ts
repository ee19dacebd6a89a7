import { gptTokenizerCounter } from './gpt-tokenizer-counter.js';
import type { TokenCounter } from './token-counter.js';

/**
 * The counter of an engine given none: gpt-tokenizer with o200k_base, the counts of OpenAI's tokenizer. The edge build
 * of the AI SDK adapter (`edge-light` and `worker` conditions) is built with default-counter.edge.ts in its place,
 * which leaves the 1 MB encoding table out of the bundle.
 */
export function defaultTokenCounter(): TokenCounter {
  return gptTokenizerCounter();
}
