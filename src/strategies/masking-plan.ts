import type { MessageMeter } from '../counting/message-meter.js';
import type { CallFacts } from '../engine/call-facts.js';
import type { CompressionPoint } from '../engine/compression-point.js';
import type { Projection } from '../engine/projection.js';
import type { CompressionDecision } from '../triggers/decisions.js';
import {
  findStaleObservations,
  findSupersededObservations,
  type StalenessSettings,
  type StaleObservation,
  type TermMemo,
} from '../triggers/staleness.js';
import type { CacheEconomics } from './cache-economics.js';
import {
  type CallDescriptions,
  type MaskingOptions,
  type MaskingStep,
  type Memo,
  planMaskingStep,
} from './observation-masking.js';

/** A masking step the engine may apply: the results to mask, why, and the decisions that explain it. */
export interface MaskingPlan {
  /** Keys (`ResultSite.key`) of the results to mask. */
  readonly keys: readonly string[];
  /** Reasons of the results masked because they went stale, by key. */
  readonly staleReasons: ReadonlyMap<string, string>;
  /** Tokens the step frees. */
  readonly freed: number;
  readonly decisions: readonly CompressionDecision[];
}

/**
 * Plans one batch of observation masking. Under budget pressure it clears every candidate; otherwise only when it
 * frees at least `clearAtLeast` tokens and the expected cache-read savings over the coming calls exceed the one-time
 * cost of rewriting the prompt after the first masked result. Undefined when no step is due.
 */
export function planMasking({
  facts,
  point,
  projection,
  pressure,
  force,
  masking,
  staleness,
  economics,
  meter,
  placeholderTokens,
  descriptions,
  termMemo,
}: {
  /** Memo of term counts for the scored staleness, kept by the engine across calls. */
  termMemo: TermMemo;
  /** Memo of call descriptions, kept by the engine across calls. */
  descriptions: CallDescriptions;
  facts: CallFacts;
  point: CompressionPoint;
  projection: Projection;
  pressure: boolean;
  force: boolean;
  masking: Required<MaskingOptions>;
  staleness: StalenessSettings | undefined;
  economics: CacheEconomics;
  meter: MessageMeter;
  /** Memo of placeholder token counts, kept by the engine across calls. */
  placeholderTokens: Memo<number>;
}): MaskingPlan | undefined {
  const hidden = new Set([...point.masked, ...facts.redactions.keys()]);
  const { read, write, expectedCalls, weigh } = economics;
  const viewTokens = projection.view.tokens;
  const weighStep = (step: MaskingStep) => {
    let after = 0;
    for (let index = step.firstMessageIndex; index < viewTokens.length; index++) after += viewTokens[index] as number;
    const rewritten = Math.max(0, after - step.freed);
    return { rewritten, ...weigh(step.freed, rewritten) };
  };
  const pays = (step: MaskingStep) => step.freed >= masking.clearAtLeast && weighStep(step).pays;
  // staleness adds results a step may mask even among the newest (a read superseded by an edit), with a reason
  const stale = new Map<string, string>();
  const addStale = (observations: readonly StaleObservation[]) => {
    for (const observation of observations)
      if (!hidden.has(observation.key)) stale.set(observation.key, observation.reason);
  };
  if (staleness)
    addStale(findSupersededObservations({ steps: facts.steps, sites: facts.sites, from: point.coveredCount }));
  const plan = () =>
    planMaskingStep({
      sites: facts.sites,
      covered: point.coveredCount,
      hidden,
      maskable: stale.size > 0 ? new Set([...facts.maskable, ...stale.keys()]) : facts.maskable,
      keepRecent: masking.keepRecent,
      meter,
      reasons: stale,
      worthPlanning: (bound) => pressure || pays(bound),
      placeholderTokens,
      descriptions,
      recallToolName: facts.recallToolName,
    });
  let step = plan();
  if (step.keys.length === 0 || (!pressure && !pays(step))) return undefined;
  if (staleness) {
    // a step happens anyway: the scored staleness (costlier) may add results to it
    const before = stale.size;
    addStale(
      findStaleObservations({
        messages: facts.messages,
        steps: facts.steps,
        sites: facts.sites,
        from: point.coveredCount,
        options: staleness,
        termMemo,
      }),
    );
    if (stale.size > before) {
      const wider = plan();
      if (pressure || pays(wider)) step = wider;
    }
  }
  const { rewritten, savings, breakCost } = weighStep(step);
  const arithmetic = `frees ${step.freed} tokens; expected savings ${Math.round(savings)} (${read}x over ~${expectedCalls} calls) vs. a one-time cache rewrite costing ${Math.round(breakCost)} (${rewritten} tokens at +${Math.round((write - read) * 100) / 100}x)`;
  const idsOf = (keys: readonly string[]) => keys.map((key) => facts.siteByKey.get(key)?.callId ?? key);
  const staleKeys = step.keys.filter((key) => stale.has(key));
  const oldKeys = step.keys.filter((key) => !stale.has(key));
  const decisions: CompressionDecision[] = [];
  if (staleKeys.length > 0) {
    const reasons = staleKeys.slice(0, 3).map((key) => `${facts.siteByKey.get(key)?.callId}: ${stale.get(key)}`);
    decisions.push({
      trigger: 'staleness',
      scope: { kind: 'observations', toolCallIds: idsOf(staleKeys) },
      confidence: 0.8,
      details: `masked ${staleKeys.length} stale tool results (${reasons.join('; ')}${staleKeys.length > 3 ? '; ...' : ''}); ${arithmetic}`,
    });
  }
  if (oldKeys.length > 0) {
    decisions.push({
      trigger: force ? 'forced' : pressure ? 'budget' : 'turns',
      scope: { kind: 'observations', toolCallIds: idsOf(oldKeys) },
      confidence: 1,
      details: `masked ${oldKeys.length} tool results older than the ${masking.keepRecent} most recent: ${arithmetic}`,
    });
  }
  const staleReasons = new Map(staleKeys.map((key) => [key, stale.get(key) as string]));
  return { keys: step.keys, staleReasons, freed: step.freed, decisions };
}

/** The compression point after a masking step. */
export function applyMasking(point: CompressionPoint, plan: MaskingPlan, historyLength: number): CompressionPoint {
  return {
    ...point,
    masked: new Set([...point.masked, ...plan.keys]),
    maskReasons: new Map([...point.maskReasons, ...plan.staleReasons]),
    staleThrough: plan.staleReasons.size > 0 ? historyLength : point.staleThrough,
  };
}
