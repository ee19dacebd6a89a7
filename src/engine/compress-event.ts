import type { FoldCall } from './compress-call.js';
import type { CompressEvent } from './events.js';

/** The event of a call that took decisions, in the provider's tokens; undefined when it took none. */
export function compressEvent(
  call: FoldCall,
  {
    tokensBefore,
    estimatedTokens,
    redacted,
    reusedState,
    cacheablePrefixTokens,
  }: {
    tokensBefore: number;
    estimatedTokens: number;
    redacted: { count: number; tokensFreed: number };
    reusedState: boolean;
    cacheablePrefixTokens: number;
  },
): CompressEvent | undefined {
  if (call.decisions.length === 0) return undefined;
  return {
    trigger: call.decisions[0]?.trigger ?? 'budget',
    decisions: call.decisions,
    tokensBefore: Math.round(tokensBefore * call.limits.ratio),
    tokensAfter: Math.round(estimatedTokens * call.limits.ratio),
    messagesFolded: call.messagesFolded,
    messagesDropped: call.messagesDropped,
    observationsMasked: call.newlyMasked,
    observationsRedacted: redacted,
    toolResultsTruncated: call.view.truncatedIds.length,
    summarizerMs: call.summarizerMs,
    reusedState,
    cacheablePrefixTokens,
  };
}
