import { describe, expect, it } from 'vitest';
import { cacheEconomics, SUMMARY_INSTRUCTION_TOKENS } from '../../src/strategies/cache-economics.js';

const PRICES = { read: 0.1, write: 1.25, output: 5 };
const FOLD = { from: 12, folded: 6_000, stateBefore: 800, stateAfter: 1_000, prompt: 9_000 };

describe('cacheEconomics', () => {
  it('prices no summary with the offline summarizer', () => {
    const economics = cacheEconomics(PRICES, { stepCount: 20 });
    expect(economics.pricesSummaries).toBe(false);
    expect(economics.summaryCost(FOLD)).toBe(0);
  });

  it('prices a separate summary request as the span, the states and the instructions sent anew', () => {
    const economics = cacheEconomics(PRICES, { stepCount: 20 }, { continues: false });
    expect(economics.pricesSummaries).toBe(true);
    expect(economics.summaryCost(FOLD)).toBe(6_000 + 800 + SUMMARY_INSTRUCTION_TOKENS + 1_000 * 5);
  });

  it('prices a continued request as the prompt read from the cache and the change to the state', () => {
    const economics = cacheEconomics(PRICES, { stepCount: 20 }, { continues: true, startsAt: 12 });
    expect(economics.summaryCost(FOLD)).toBeCloseTo(9_000 * 0.1 + SUMMARY_INSTRUCTION_TOKENS * 1.25 + 200 * 5);
  });

  it('prices a fold from another point than the call started from (a second fold in one call) as a separate request', () => {
    const economics = cacheEconomics(PRICES, { stepCount: 20 }, { continues: true, startsAt: 4 });
    expect(economics.summaryCost(FOLD)).toBe(6_000 + 800 + SUMMARY_INSTRUCTION_TOKENS + 1_000 * 5);
  });

  it('weighs the summary as a one-time cost beside the rewrite', () => {
    const economics = cacheEconomics(PRICES, { stepCount: 20 }, { continues: false });
    const withSummary = economics.weigh(2_000, 1_000, 3_000);
    expect(withSummary.savings).toBeCloseTo(2_000 * 0.1 * 20);
    expect(withSummary.breakCost).toBeCloseTo(1_000 * 1.15 + 3_000);
    expect(withSummary.pays).toBe(false);
    expect(economics.weigh(2_000, 1_000).pays).toBe(true);
  });
});
