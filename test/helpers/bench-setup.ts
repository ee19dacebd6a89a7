import type { Setup } from '../../bench/compare/types.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';

/** The budget the peer tests run at: an 8k window with 1k reserved for output. */
export function benchSetup(): Setup {
  return {
    contextWindow: 8000,
    reserveOutputTokens: 1000,
    budget: 7000,
    tokenCounter: tiktokenCounter(),
    summarizerCalls: { count: 0, inputTokens: 0, outputTokens: 0 },
  };
}
