import { applyMasking, planMasking } from '../strategies/masking-plan.js';
import type { DecideStage } from './decide-call.js';
import { recordFor } from './record-for.js';

/** Old and stale tool results masked in one batch, when the budget presses or the batch pays for its cache break. */
export const maskResults: DecideStage = {
  name: 'masking',
  plan: ({ call, point, projection }) => {
    const { facts, services } = call;
    const { masking, staleness } = services.settings;
    if (!masking) return undefined;
    const plan = planMasking({
      facts,
      point,
      projection,
      pressure: call.pressure,
      force: call.force,
      masking,
      staleness,
      economics: call.economics,
      meter: services.meter,
      placeholderTokens: services.memos.placeholderTokens,
      descriptions: services.memos.descriptions,
      termMemo: services.memos.terms,
    });
    if (!plan) return undefined;
    const masked = applyMasking(point, plan, facts.messages.length);
    return {
      // a later record of this call never goes below the one this step determines
      point: { ...masked, minThrough: recordFor(facts, masked).through },
      report: { decisions: plan.decisions, masked: { count: plan.keys.length, tokensFreed: plan.freed } },
    };
  },
};
