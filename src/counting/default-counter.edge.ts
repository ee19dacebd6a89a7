import type { TokenCounter } from './token-counter.js';
import { utf8BytesCounter } from './utf8-bytes-counter.js';

/**
 * The counter of an engine given none, in the edge build of the AI SDK adapter: UTF-8 bytes, calibrated by the
 * provider's usage (see `utf8BytesCounter`). An edge function is held to 1-2 MB after gzip, and the o200k table alone
 * takes 1.1 MB; an app that can deploy it passes `tokenCounter: gptTokenizerCounter()`.
 */
export function defaultTokenCounter(): TokenCounter {
  return utf8BytesCounter();
}
