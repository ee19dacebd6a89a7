/**
 * A compression below the budget threshold must promise savings this many times its cache-break cost: the calls
 * still to come are a guess (as many as were made so far), and a wrong guess costs more than a missed saving.
 */
export const CACHE_PAYOFF_MARGIN = 2;

/** The cache arithmetic of one compression: what it saves on the coming calls against the rewrite it causes. */
export interface CacheEconomics {
  readonly read: number;
  readonly write: number;
  /** Calls still expected in this conversation: as many as were made so far, 4 to 50. */
  readonly expectedCalls: number;
  weigh(freed: number, rewritten: number): { savings: number; breakCost: number; pays: boolean };
}

/**
 * Freeing `freed` tokens saves a cache read of them on each expected coming call, and costs one cache write instead
 * of a read for the `rewritten` tokens after the change. It pays when the savings are CACHE_PAYOFF_MARGIN times
 * the cost.
 */
export function cacheEconomics(
  { read, write }: { read: number; write: number },
  history: { stepCount: number },
): CacheEconomics {
  const calls = history.stepCount;
  const expectedCalls = Math.min(50, Math.max(4, calls));
  return {
    read,
    write,
    expectedCalls,
    weigh(freed, rewritten) {
      const savings = read * freed * expectedCalls;
      const breakCost = (write - read) * Math.max(0, rewritten);
      return { savings, breakCost, pays: savings >= CACHE_PAYOFF_MARGIN * breakCost };
    },
  };
}
