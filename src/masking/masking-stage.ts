import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import { recordFor } from '../call/record-for.js';
import { AT_THE_END, type StageContext } from '../call/stage.js';
import { budgetFoldMayWait } from '../folding/fold-stages.js';
import type { DecideStage, StageCall, StageServices } from '../stages/decide-call.js';
import { cacheEconomics } from '../strategies/cache-economics.js';
import { applyMasking, planMasking } from './masking-plan.js';

type Context = StageContext<StageCall>;

/**
 * Old and stale tool results masked in one batch, when the budget presses or the batch pays for its cache break.
 * A call under pressure below the hard limit may leave its fold to a later call (with summaries made ahead of time, or
 * when a fold now would buy few calls): the cache does not break anyway, so the batch then clears every candidate only
 * when that takes the prompt below the threshold, and otherwise pays for its own break like a batch below it.
 *
 * After a fold, the results are weighed again where the call ends, as a call starting from the stored point weighs
 * them (the same request sends the same prompt on any instance): its pressure is the prompt's size then, its cache
 * arithmetic the prompt after the fold.
 */
export const maskResults: DecideStage = {
  name: 'masking',
  plan: (context) => {
    const { call, tokens } = context;
    if (!call.pressure || !budgetFoldMayWait(context)) return maskingPlan(context, call.pressure);
    const all = maskingPlan(context, true);
    const below = all && tokens - all.report.masked.tokensFreed <= call.facts.limits.compressAt;
    return below ? all : maskingPlan(context, false);
  },
  again: [
    {
      after: AT_THE_END,
      when: ({ report }) => report.messagesFolded > 0,
      plan: (context) =>
        maskingPlan(context, context.call.force || context.tokens > context.call.facts.limits.compressAt),
    },
  ],
};

/**
 * Tokens masking would free where a call stands if the prompt were over the threshold (every candidate cleared): what
 * a call that crosses the threshold frees before it folds.
 */
export function freedUnderPressure(
  services: StageServices,
  facts: CallFacts,
  point: CompressionPoint,
  projection: Projection,
): number {
  const call = { facts, services, force: false, economics: cacheEconomics(services.cachePricing, facts) };
  return maskingPlan({ call, point, projection }, true)?.report.masked.tokensFreed ?? 0;
}

function maskingPlan(
  {
    call,
    point,
    projection,
  }: Pick<Context, 'point' | 'projection'> & {
    call: Pick<StageCall, 'facts' | 'services' | 'force' | 'economics'>;
  },
  pressure: boolean,
) {
  const { facts, services } = call;
  const { masking, staleness } = services.settings;
  if (!masking) return undefined;
  const plan = planMasking({
    facts,
    point,
    projection,
    pressure,
    force: call.force,
    masking,
    staleness,
    economics: call.economics,
    meter: services.meter,
    placeholderTokens: services.memos.placeholderTokens,
    descriptions: services.memos.descriptions,
    termMemo: services.memos.terms,
    quotes: (readers) => services.quotes(facts, point.coveredCount, readers),
  });
  if (!plan) return undefined;
  const masked = applyMasking(point, plan, facts.messages.length);
  return {
    // a later record of this call never goes below the one this step determines
    point: { ...masked, minThrough: recordFor(facts, masked).through },
    // placeholders of tiny results can outweigh them: a step that does not shrink the prompt is not taken
    onlyIfSmaller: true,
    report: { decisions: plan.decisions, masked: { count: plan.keys.length, tokensFreed: plan.freed } },
  };
}
