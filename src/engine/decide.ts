import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { StageReport } from '../call/stage.js';
import { carryProvisionalDrop, hardLimitDrop, restoreProvisionalDrop } from '../dropping/drop-stages.js';
import type { FoldRunner } from '../folding/fold-runner.js';
import { budgetFolds, forcedFold, semanticFolds } from '../folding/fold-stages.js';
import type { FoldsAhead } from '../folding/folds-ahead.js';
import { maskResults } from '../masking/masking-stage.js';
import type { ProvisionalDrop } from '../persistence/state-records.js';
import { recallForLatest, reviewRecallBlocks } from '../recall/recall-stages.js';
import type { DecideStage, StageCall, StageServices } from '../stages/decide-call.js';
import type { DecideEffect } from '../stages/effects.js';
import { cacheEconomics } from '../strategies/cache-economics.js';
import { withoutAwareness } from './read-call.js';
import { type PointMeasure, type RunEffect, runStages } from './run-stages.js';

/**
 * The stages of a call, in order, each listed once. Masking first (cheapest to undo from the cache's view); finished
 * segments folded below the threshold, then the budget's folds; the drop an earlier failed summary made, carried or
 * undone; the oldest turns dropped when the prompt is still over the hard limit; then recall (older blocks kept or
 * taken out, a block for a new user message). The second looks the stages declare (`Stage.again`) come in between:
 * the segments a budget fold left below the threshold, right after it, and again when recall then made a block (a
 * history ends at the same point whether it arrives over the threshold or again, as a retry, from the stored one);
 * last, after any fold, masking weighed where the call ends. Both as a call from the stored point weighs them: the
 * same request sends the same prompt anywhere.
 */
export const DECIDE_STAGES: readonly DecideStage[] = [
  maskResults,
  semanticFolds,
  forcedFold,
  budgetFolds,
  carryProvisionalDrop,
  restoreProvisionalDrop,
  hardLimitDrop,
  reviewRecallBlocks,
  recallForLatest,
];

/** Where the stages left a call: the point, what the model sees there, and what changed on the way. */
export interface Decided extends StageReport {
  readonly point: CompressionPoint;
  /**
   * The point a record may keep: `point`, or the point before a drop that a summarizer failure forced (never stored
   * as final, so a later call summarizes those messages; `point` is then stored as the record's provisional drop).
   */
  readonly lasting: CompressionPoint;
  readonly projection: Projection;
  /** The stored state was cut to this call's cap before the stages ran: a change reported like the stages' own. */
  readonly stateRefitted?: boolean;
}

/** Runs the stages of a call from its starting point. */
export async function decide(
  services: StageServices,
  effects: EffectParts,
  {
    facts,
    start,
    startProjection,
    force,
    tokensBefore,
    aware = true,
    provisional,
    check,
    unsettled,
  }: {
    facts: CallFacts;
    start: CompressionPoint;
    startProjection: Projection;
    force: boolean;
    /** Tokens of the prompt at the starting point. */
    tokensBefore: number;
    /** An earlier call changed the conversation's prompt: the awareness block is in it (see `withoutAwareness`). */
    aware?: boolean;
    /** The drop an earlier call made because its summarizer failed, from the stored record. */
    provisional?: ProvisionalDrop | undefined;
    /** The promise a plan would break (see `CallPromises`): such a plan is left out. */
    check?: PointMeasure['check'];
    /** The break reported when the stages would end with the prompt taken over the hard limit, or further over it. */
    unsettled?: PointMeasure['unsettled'];
  },
  stages: readonly DecideStage[] = DECIDE_STAGES,
): Promise<Decided> {
  const call: StageCall = {
    facts,
    services,
    force,
    tokensBefore,
    pressure: force || tokensBefore > facts.limits.compressAt,
    economics: cacheEconomics(
      services.cachePricing,
      facts,
      services.summaryPricing && { ...services.summaryPricing, startsAt: start.coveredCount },
      {
        callsToThreshold:
          (facts.limits.compressAt - tokensBefore) / Math.max(1, startProjection.layout.growthPerCall()),
        unshown: aware || !facts.awareness ? 0 : facts.fixedTokens - withoutAwareness(facts).fixedTokens,
      },
    ),
    startCovered: start.coveredCount,
    provisional,
  };
  const { point, projection, beforeProvisional, report } = await runStages(
    stages,
    call,
    { point: start, projection: startProjection },
    {
      project: (at) => services.project(facts, at),
      total: (projection, at) => services.total(projection, at),
      ...(check ? { check } : {}),
      // the stages never end with the prompt taken over the hard limit, or further over it (a step may, on its way: a
      // forced fold whose state outweighs what it folded, before the budget's folds)
      settles: (from, end) => end.tokens <= facts.limits.hardLimit || end.tokens <= from.tokens,
      ...(unsettled ? { unsettled } : {}),
    },
    effectsOf(facts, effects),
  );
  // a drop made by design (folding off, or still over after folding) lasts; one a failed or waiting summary forced
  // does not: those turns are summarized by the next call whose summarizer works
  const lasting = beforeProvisional && point.coveredCount > beforeProvisional.coveredCount ? beforeProvisional : point;
  return { ...report, point, lasting, projection };
}

/** What runs the effects the stages ask for: the fold runner (the summarizer, the store) and the summaries ahead. */
export interface EffectParts {
  readonly folds: FoldRunner;
  /** Undefined when summaries are not made ahead of time (no stage then asks for them). */
  readonly ahead: FoldsAhead | undefined;
  /** The offline summarizer's folds, for a call that cannot wait for a summary made ahead (with `ahead`). */
  readonly standIn?: FoldRunner | undefined;
}

/**
 * Runs a call's effects (see `DecideEffect`): whether folding waits is read from the store once per call, when a fold
 * or a drop is first planned (only calls that would change the prompt read it).
 */
export function effectsOf(
  facts: CallFacts,
  { folds, ahead, standIn }: EffectParts,
): RunEffect<StageCall, DecideEffect> {
  let waits: Promise<boolean> | undefined;
  return async (effect) => {
    switch (effect.kind) {
      case 'summarize': {
        const { point, plan } = effect;
        if (!effect.late || !standIn) return folds.run(facts, point, plan);
        const result = await standIn.run(facts, point, plan);
        if (result.failure) return result;
        await folds.stoodIn(result.point.state, facts, point, plan);
        // no summarizer call of the caller's: the summary it stood in for is reported by the fold that extends it
        return { ...result, summarizerCalls: 0, summarizerUsage: undefined, stoodIn: true };
      }
      case 'back-off':
        return folds.discarded(facts);
      case 'waits':
        waits ??= folds.backingOff(facts);
        return waits;
      case 'find-ahead':
        return ahead?.find(facts, effect.point, effect.projection);
      case 'summarize-ahead':
        return ahead?.plan(facts, effect.point, effect.cut, effect.replaces);
    }
  };
}
