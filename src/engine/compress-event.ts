import type { BudgetLimits } from '../options/budget.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { CompressEvent } from '../reports/events.js';
import type { SummarizerUsage } from '../reports/usage.js';

/** What one call changed, as the engine tallies it while it applies the plans. */
export interface CallOutcome {
  readonly decisions: readonly CompressionDecision[];
  readonly messagesFolded: number;
  readonly messagesDropped: number;
  readonly masked: { readonly count: number; readonly tokensFreed: number };
  readonly redacted: { readonly count: number; readonly tokensFreed: number };
  readonly truncated: { readonly count: number; readonly tokensFreed: number };
  readonly summarizerMs: number;
  readonly summarizerCalls: number;
  readonly summarizerUsage: SummarizerUsage | undefined;
  readonly quotesRejected: number;
  readonly reusedState: boolean;
  readonly recalled: {
    readonly chunks: number;
    readonly tokens: number;
    readonly blocksDropped: number;
    readonly piecesRedacted: number;
  };
}

/**
 * The event of a call that took decisions, in the provider's tokens; undefined when it took none. `tokensBefore` is
 * the prompt as it would have gone out without this call's changes (results it shortened counted at full size).
 */
export function compressEvent(
  outcome: CallOutcome,
  {
    limits,
    tokensBefore,
    tokensAfter,
    cacheablePrefixTokens,
  }: { limits: BudgetLimits; tokensBefore: number; tokensAfter: number; cacheablePrefixTokens: number },
): CompressEvent | undefined {
  if (outcome.decisions.length === 0) return undefined;
  return {
    trigger: outcome.decisions[0]?.trigger ?? 'budget',
    decisions: outcome.decisions,
    tokensBefore: Math.round((tokensBefore + outcome.truncated.tokensFreed) * limits.ratio),
    tokensAfter: Math.round(tokensAfter * limits.ratio),
    messagesFolded: outcome.messagesFolded,
    messagesDropped: outcome.messagesDropped,
    // objects of the event's own: the outcome's may be shared (the report of a call before any stage ran)
    toolResultsMasked: { count: outcome.masked.count, tokensFreed: outcome.masked.tokensFreed },
    toolResultsRedacted: { count: outcome.redacted.count, tokensFreed: outcome.redacted.tokensFreed },
    toolResultsTruncated: outcome.truncated.count,
    summarizerMs: outcome.summarizerMs,
    summarizerCalls: outcome.summarizerCalls,
    ...(outcome.summarizerUsage && { summarizerUsage: outcome.summarizerUsage }),
    quotesRejected: outcome.quotesRejected,
    recalled: {
      chunks: outcome.recalled.chunks,
      tokens: Math.round(outcome.recalled.tokens * limits.ratio),
      blocksDropped: outcome.recalled.blocksDropped,
      piecesRedacted: outcome.recalled.piecesRedacted,
    },
    reusedState: outcome.reusedState,
    cacheablePrefixTokens: Math.round(cacheablePrefixTokens * limits.ratio),
  };
}
