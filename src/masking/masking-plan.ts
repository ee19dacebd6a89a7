import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { Quotes } from '../signals/results-in-use.js';
import type { CacheEconomics } from '../strategies/cache-economics.js';
import {
  type CallDescriptions,
  type MaskingOptions,
  type MaskingStep,
  type Memo,
  planMaskingStep,
} from './observation-masking.js';
import {
  findSupersededObservations,
  type StalenessSettings,
  type StaleObservation,
  scoreStaleObservations,
  type TermMemo,
} from './staleness.js';

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

/** What masking plans from: the call, where it stands, its options and the engine's memos. */
export interface MaskingInput {
  /** Memo of term counts for the scored staleness, kept by the engine across calls. */
  readonly termMemo: TermMemo;
  /** Memo of call descriptions, kept by the engine across calls. */
  readonly descriptions: CallDescriptions;
  readonly facts: CallFacts;
  readonly point: CompressionPoint;
  readonly projection: Projection;
  readonly pressure: boolean;
  readonly force: boolean;
  readonly masking: Required<MaskingOptions>;
  readonly staleness: StalenessSettings | undefined;
  readonly economics: CacheEconomics;
  readonly meter: MessageMeter;
  /** Memo of placeholder token counts, kept by the engine across calls. */
  readonly placeholderTokens: Memo<number>;
  /** The results the given assistant messages quote (see `findQuotes`), from the engine's incremental scan. */
  readonly quotes?: (readers: readonly number[]) => Quotes;
}

/** The cache arithmetic of a step: the tokens rewritten after its first masked result, and whether it pays. */
type StepWeight = { rewritten: number } & ReturnType<CacheEconomics['weigh']>;

/**
 * Plans one batch of observation masking. Under budget pressure it clears every candidate; otherwise only when it
 * frees at least `clearAtLeast` tokens and the expected cache-read savings over the coming calls exceed the one-time
 * cost of rewriting the prompt after the first masked result. Undefined when no step is due.
 */
export function planMasking(input: MaskingInput): MaskingPlan | undefined {
  const { facts, point, staleness } = input;
  // no tool result, nothing to mask (and no step signals to read: a chat never has them analyzed)
  if (facts.sites.length === 0) return undefined;
  const hidden = new Set([...point.masked, ...facts.redactions.keys()]);
  const worth = (step: MaskingStep) =>
    input.pressure || (step.freed >= input.masking.clearAtLeast && weighStep(input, step).pays);
  // staleness adds results a step may mask even among the newest (a read superseded by an edit), with a reason
  const superseded = staleness
    ? withStaleReasons(
        findSupersededObservations({ steps: facts.steps, sites: facts.sites, from: point.coveredCount }),
        {
          hidden,
        },
      )
    : new Map<string, string>();
  const step = maskingStep(input, hidden, superseded, worth);
  if (step.keys.length === 0 || !worth(step)) return undefined;
  if (!staleness) return maskingPlan(input, step, superseded);
  // a step happens anyway: the scored staleness (costlier) may add results to it
  const stale = withStaleReasons(
    scoreStaleObservations({
      messages: facts.messages,
      steps: facts.steps,
      sites: facts.sites,
      from: point.coveredCount,
      settings: staleness,
      termMemo: input.termMemo,
      ...(input.quotes ? { quotes: input.quotes } : {}),
    }),
    { hidden, known: superseded },
  );
  const wider = stale.size > superseded.size ? maskingStep(input, hidden, stale, worth) : undefined;
  return maskingPlan(input, wider && worth(wider) ? wider : step, stale);
}

/** Reasons of the stale observations not hidden yet, added to the `known` ones (a later reason replaces one known). */
function withStaleReasons(
  observations: readonly StaleObservation[],
  { hidden, known = new Map() }: { hidden: ReadonlySet<string>; known?: ReadonlyMap<string, string> },
): Map<string, string> {
  const reasons = new Map(known);
  for (const observation of observations) {
    if (!hidden.has(observation.key)) reasons.set(observation.key, observation.reason);
  }
  return reasons;
}

/** The step that masks the maskable results (the stale ones with them) beyond the newest. */
function maskingStep(
  { facts, point, masking, meter, placeholderTokens, descriptions }: MaskingInput,
  hidden: ReadonlySet<string>,
  stale: ReadonlyMap<string, string>,
  worth: (step: MaskingStep) => boolean,
): MaskingStep {
  return planMaskingStep({
    sites: facts.sites,
    covered: point.coveredCount,
    hidden,
    maskable: stale.size > 0 ? new Set([...facts.maskable, ...stale.keys()]) : facts.maskable,
    keepRecent: masking.keepRecent,
    meter,
    reasons: stale,
    worthPlanning: worth,
    placeholderTokens,
    descriptions,
    retrievalToolName: facts.retrievalToolName,
    maxShownTokens: facts.limits.maxToolResultTokens,
  });
}

function weighStep({ projection, economics }: MaskingInput, step: MaskingStep): StepWeight {
  const viewTokens = projection.view.tokens;
  // the conversation's first change rewrites the prompt from the awareness block it adds
  const from = economics.unshown > 0 ? 0 : step.firstMessageIndex;
  let after = economics.unshown;
  for (let index = from; index < viewTokens.length; index++) after += viewTokens[index] as number;
  const rewritten = Math.max(0, after - step.freed);
  return { rewritten, ...economics.weigh(step.freed, rewritten) };
}

/** The plan of a step: its keys, the reasons of its stale results, and a decision each for the stale and the old. */
function maskingPlan(input: MaskingInput, step: MaskingStep, stale: ReadonlyMap<string, string>): MaskingPlan {
  const { facts, masking, force, pressure } = input;
  const { read, write, expectedCalls } = input.economics;
  const { rewritten, savings, breakCost } = weighStep(input, step);
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
