/**
 * A compression below the budget threshold must promise savings this many times its cache-break cost: the calls
 * still to come are a guess (as many as were made so far), and a wrong guess costs more than a missed saving.
 *
 * The guess reads a run as equally likely to be anywhere in its life: having made `n` calls, it makes at least `r`
 * more with odds `n / (n + r)`. With the savings weighed over `n` calls, a margin `m` asks the change to pay back
 * within `n / m` calls, which a run goes on to make with odds `m / (m + 1)`: two in three at 2.
 */
export const CACHE_PAYOFF_MARGIN = 2;

/**
 * The margin when the prompt will not reach the threshold within the calls expected (a large window): nothing will
 * force a rewrite, so the change is a bet on the run's length alone and must pay back with odds of four in five. A
 * change made while the threshold is in sight takes a rewrite that a fold at the threshold would make anyway.
 */
export const UNFORCED_PAYOFF_MARGIN = 4;

/** Tokens of the instructions a model summarizer's request carries (the package's are about 450). */
export const SUMMARY_INSTRUCTION_TOKENS = 500;

/** How a fold's summary is paid for when a model makes it (undefined: the offline summarizer, free). */
export interface SummaryPricing {
  /** The summary request continues the cached prompt (read from the cache), rather than sending the span anew. */
  readonly continues: boolean;
  /**
   * The fold point the call starts from (the previous prompt was sent from it): only a fold from there continues that
   * prompt; a second fold in the same call is a separate request.
   */
  readonly startsAt?: number;
}

/** A fold's summary request, in tokens: what it folds, the state before and after, and the prompt it continues. */
export interface SummaryTokens {
  /** The fold point the fold starts from (messages the state covers). */
  readonly from: number;
  readonly folded: number;
  readonly stateBefore: number;
  readonly stateAfter: number;
  readonly prompt: number;
}

/** The cache arithmetic of one compression: what it saves on the coming calls against the rewrite it causes. */
export interface CacheEconomics {
  readonly read: number;
  readonly write: number;
  /** Calls still expected in this conversation: as many as were made so far, 4 to 50. */
  readonly expectedCalls: number;
  /** How many times its cost a change's savings must be: CACHE_PAYOFF_MARGIN, or UNFORCED_PAYOFF_MARGIN. */
  readonly margin: number;
  /**
   * Tokens of the awareness block when the conversation's prompt has not changed yet (0 once it has): the first change
   * adds the block after the system prompt, so it rewrites the prompt from there on.
   */
  readonly unshown: number;
  /** Whether a fold's summary has a price (a model makes it): a summary made is then worth using. */
  readonly pricesSummaries: boolean;
  /** What a fold's summary costs, in input tokens: 0 with the offline summarizer. */
  summaryCost(summary: SummaryTokens): number;
  /** `summaryCost`: what the change costs besides the rewrite (a fold's summary), paid once as the rewrite is. */
  weigh(freed: number, rewritten: number, summaryCost?: number): { savings: number; breakCost: number; pays: boolean };
}

/**
 * Freeing `freed` tokens saves a cache read of them on each expected coming call, and costs one cache write instead
 * of a read for the `rewritten` tokens after the change, and, for a fold, its summary when a model makes it. It pays
 * when the savings are `margin` times the cost: CACHE_PAYOFF_MARGIN, or UNFORCED_PAYOFF_MARGIN when `callsToThreshold`
 * (the calls until the prompt's growth takes it over the threshold) is more than the calls expected. `unshown`: the
 * awareness block a first change adds (see `CacheEconomics.unshown`), which its callers count in what it rewrites.
 *
 * A model's summary is priced as its provider prices it: a separate request sends the folded span, the state and the
 * instructions at full price; one that continues the cached prompt reads that prompt from the cache and writes the
 * instructions. Its answer is the new state at the output price (a continued one with a state answers with the change
 * alone: what the state gained).
 */
export function cacheEconomics(
  { read, write, output }: { read: number; write: number; output: number },
  history: { stepCount: number },
  summary?: SummaryPricing,
  { callsToThreshold = 0, unshown = 0 }: { callsToThreshold?: number; unshown?: number } = {},
): CacheEconomics {
  const calls = history.stepCount;
  const expectedCalls = Math.min(50, Math.max(4, calls));
  const margin = callsToThreshold > expectedCalls ? UNFORCED_PAYOFF_MARGIN : CACHE_PAYOFF_MARGIN;
  return {
    read,
    write,
    expectedCalls,
    margin,
    unshown,
    pricesSummaries: summary !== undefined,
    summaryCost({ from, folded, stateBefore, stateAfter, prompt }) {
      if (!summary) return 0;
      const continues = summary.continues && (summary.startsAt === undefined || summary.startsAt === from);
      if (!continues) return folded + stateBefore + SUMMARY_INSTRUCTION_TOKENS + stateAfter * output;
      const answer = stateBefore > 0 ? Math.max(0, stateAfter - stateBefore) : stateAfter;
      return prompt * read + SUMMARY_INSTRUCTION_TOKENS * write + answer * output;
    },
    weigh(freed, rewritten, summaryCost = 0) {
      const savings = read * freed * expectedCalls;
      const breakCost = (write - read) * Math.max(0, rewritten) + summaryCost;
      return { savings, breakCost, pays: savings >= margin * breakCost };
    },
  };
}
