import type { MessageMeter } from '../counting/message-meter.js';
import type { SummarizerError } from '../errors.js';
import type { EngineSettings } from '../options/engine-settings.js';
import { EMPTY_SESSION_STATE, type SessionState } from '../session-state/session-state.js';
import type { ResultInUse } from '../signals/results-in-use.js';
import type { ProvisionalDrop } from '../store/state-records.js';
import { cacheEconomics } from '../strategies/cache-economics.js';
import { applyDrop, planDrop } from '../strategies/dropping.js';
import { type FoldPlan, planBudgetFold, planSemanticFold } from '../strategies/folding.js';
import { applyMasking, planMasking } from '../strategies/masking-plan.js';
import type { CallDescriptions, Memo } from '../strategies/observation-masking.js';
import type { CompressionDecision } from '../triggers/decisions.js';
import type { Boundary, SemanticTriggerSettings } from '../triggers/semantic-triggers.js';
import type { TermMemo } from '../triggers/staleness.js';
import type { CallFacts } from './call-facts.js';
import type { CompressionPoint } from './compression-point.js';
import type { FoldRunner } from './fold-runner.js';
import type { Projection } from './projection.js';
import { recordFor } from './record-for.js';

/**
 * What the decide stage works with: the resolved settings, the engine's memos and fold runner, and how to project a
 * point and count it. Plain capabilities: the strategies it calls get data only.
 */
export interface DecideStages {
  readonly settings: EngineSettings;
  readonly cachePricing: { readonly read: number; readonly write: number };
  readonly meter: MessageMeter;
  readonly memos: {
    readonly placeholderTokens: Memo<number>;
    readonly descriptions: CallDescriptions;
    readonly terms: TermMemo;
  };
  readonly folds: FoldRunner;
  project(facts: CallFacts, point: CompressionPoint): Projection;
  total(projection: Projection, point: CompressionPoint): number;
  stateTokens(state: SessionState | undefined): number;
  /** The results in `[from, to)` the assistant quoted after they came (`findResultsInUse`), read incrementally. */
  quoted(facts: CallFacts, from: number, to: number): readonly ResultInUse[];
  /** The segment boundaries of the call's history, found incrementally per conversation. */
  boundaries(facts: CallFacts, options: SemanticTriggerSettings): readonly Boundary[];
}

/** Where the decide stage left a call: the point, what the model sees there, and what changed on the way. */
export interface Decided {
  readonly point: CompressionPoint;
  /**
   * The point a record may keep: `point`, or the point before a drop that a summarizer failure forced (never stored
   * as final, so a later call summarizes those messages; `point` is then stored as the record's provisional drop).
   */
  readonly lasting: CompressionPoint;
  /** An earlier call's provisional drop was undone: its messages are sent again (a change of the prompt). */
  readonly restored: boolean;
  readonly projection: Projection;
  readonly decisions: readonly CompressionDecision[];
  /** Folds that would have paid but were put off (the work after them still quotes what they would hide). */
  readonly deferred: readonly CompressionDecision[];
  readonly masked: { count: number; tokensFreed: number };
  readonly messagesFolded: number;
  readonly messagesDropped: number;
  readonly summarizerMs: number;
  readonly failure: SummarizerError | undefined;
  /** Salience quotes a summarizer returned that were not verbatim in the folded messages, dropped. */
  readonly quotesRejected: number;
  /** The recall block this call made (chunks quoted, tokens) and the older blocks it took out. */
  readonly recalled: {
    readonly chunks: number;
    readonly tokens: number;
    readonly blocksDropped: number;
    readonly piecesRedacted: number;
  };
}

/** Semantic folds one call may make in a row (each one summarizer call). */
const MAX_SEMANTIC_FOLDS = 3;
/** Budget folds one call may make in a row, when a state came out larger than planned. */
const MAX_BUDGET_FOLDS = 3;

/**
 * Decide and apply: each strategy plans from the current point and its projection; the engine applies the plan and
 * projects again. Masking first (cheapest to undo from the cache's view), then a semantic fold below the budget, a
 * budget fold, and dropping the oldest turns only when the prompt is still over the hard limit.
 */
export async function decide(
  stages: DecideStages,
  {
    facts,
    start,
    startProjection,
    force,
    tokensBefore,
    provisional,
  }: {
    facts: CallFacts;
    start: CompressionPoint;
    startProjection: Projection;
    force: boolean;
    /** Tokens of the prompt at the starting point. */
    tokensBefore: number;
    /** The drop an earlier call made because its summarizer failed, from the stored record. */
    provisional?: ProvisionalDrop | undefined;
  },
): Promise<Decided> {
  const { limits } = facts;
  let point = start;
  let projection = startProjection;
  const decisions: CompressionDecision[] = [];
  const deferred: CompressionDecision[] = [];
  let masked = { count: 0, tokensFreed: 0 };
  let messagesFolded = 0;
  let messagesDropped = 0;
  let summarizerMs = 0;
  let quotesRejected = 0;
  let failure: SummarizerError | undefined;
  const economics = cacheEconomics(stages.cachePricing, facts);
  const pressure = force || tokensBefore > limits.compressAt;

  const { masking, staleness, semantic } = stages.settings;
  if (masking) {
    const plan = planMasking({
      facts,
      point,
      projection,
      pressure,
      force,
      masking,
      staleness,
      economics,
      meter: stages.meter,
      placeholderTokens: stages.memos.placeholderTokens,
      descriptions: stages.memos.descriptions,
      termMemo: stages.memos.terms,
    });
    if (plan) {
      point = applyMasking(point, plan, facts.messages.length);
      // a later record of this call never goes below the one this step determines
      point = { ...point, minThrough: recordFor(facts, point).through };
      projection = stages.project(facts, point);
      decisions.push(...plan.decisions);
      masked = { count: plan.keys.length, tokensFreed: plan.freed };
    }
  }

  const backingOff = stages.folds.backingOff(facts);
  const folding = stages.settings.folding && !backingOff;
  const semanticPlan = () =>
    semantic && !force && stages.total(projection, point) <= limits.compressAt
      ? planSemanticFold({
          facts,
          point,
          projection,
          stateTokens: stages.stateTokens(point.state),
          options: semantic,
          economics,
          boundaries: () => stages.boundaries(facts, semantic),
          // a result the prompt hides already (masked, redacted at the model's request) holds no fold back
          inUse: (to) =>
            stages
              .quoted(facts, point.coveredCount, to)
              .filter((result) => !point.masked.has(result.key) && !facts.redactions.has(result.key)),
          onDeferred: (decision) => {
            if (!deferred.some((each) => each.details === decision.details)) deferred.push(decision);
          },
        })
      : undefined;
  // under pressure the cache breaks anyway: go down to the target in this one break, not just below the threshold;
  // a forced call's first fold is the forced one, the folds after it are the budget's (never a drop instead)
  const budgetPlan = (forced: boolean) =>
    forced ||
    stages.total(projection, point) > (tokensBefore > limits.compressAt ? limits.compressTo : limits.compressAt)
      ? planBudgetFold({
          facts,
          point,
          projection,
          stateTokens: stages.stateTokens(point.state),
          force: forced,
          tokensBefore,
        })
      : undefined;
  /** Runs a fold and keeps it when it shrank the prompt (or was forced); false when nothing changed. */
  const fold = async (plan: FoldPlan | undefined, forced = false): Promise<boolean> => {
    // a fold that could not shrink the prompt even with a state no larger than today's is not run (unless forced)
    if (!plan || failure || (!forced && !shrinks(stages, projection, point, plan.cut, point.state))) return false;
    const result = await stages.folds.run(facts, point, plan);
    summarizerMs += result.summarizerMs;
    if (result.failure) {
      failure = result.failure;
      return false;
    }
    const folded = stages.project(facts, result.point);
    // nor kept when the state it made outweighs what left (a short turn re-sent as the pinned message)
    if (!forced && stages.total(folded, result.point) >= stages.total(projection, point)) {
      stages.folds.discarded(facts);
      return false;
    }
    messagesFolded += plan.cut - point.coveredCount;
    quotesRejected += result.quotesRejected;
    point = result.point;
    projection = folded;
    decisions.push(plan.decision);
    return true;
  };
  // finished segments first (below the threshold), then the budget, then the segments the budget fold left below it:
  // a history ends at the same point whether it arrives over the threshold or again, as a retry, from the stored one
  const semanticFolds = async () => {
    for (let round = 0; round < MAX_SEMANTIC_FOLDS && (await fold(semanticPlan())); round++);
  };
  if (folding) {
    await semanticFolds();
    // again while a fold's real state left the prompt over its target: a retry from the stored point would fold more
    let budgetFolds = 0;
    // a forced call folds once on request (nothing when its turn was folded already), then as the budget asks
    if (force && (await fold(budgetPlan(true), true))) budgetFolds++;
    while (budgetFolds < MAX_BUDGET_FOLDS && (await fold(budgetPlan(false)))) budgetFolds++;
    if (budgetFolds > 0) await semanticFolds();
  }

  // what a later call may start from: never a drop made because the summarizer failed (those turns are summarized
  // by the next call whose summarizer works), only one made by design (folding off, or still over after folding)
  const lasting = point;
  // while no fold summarized them, the messages an earlier call dropped on a failed summary stay out as long as the
  // prompt would be compressed anyway: it goes on from the one that call sent (its cached prefix holds). Once the
  // prompt fits below the threshold without that drop (an edit, masking, calibration), they are sent again, reported.
  let carried = false;
  let restored = false;
  if (provisional && messagesFolded === 0 && provisional.coveredCount > point.coveredCount) {
    const dropped = {
      ...point,
      coveredCount: provisional.coveredCount,
      state: provisional.state,
      droppedCount: provisional.droppedCount,
    };
    const after = stages.project(facts, dropped);
    const total = stages.total(projection, point);
    if (total > limits.compressAt && stages.total(after, dropped) < total) {
      point = dropped;
      projection = after;
      carried = true;
    } else {
      restored = true;
      const count = provisional.coveredCount - point.coveredCount;
      decisions.push({
        trigger: 'hard-limit',
        scope: { kind: 'messages', from: point.coveredCount, to: provisional.coveredCount },
        confidence: 1,
        details: `the ${count} messages an earlier call left out when its summary failed are sent again: the prompt is below the ${limits.percent(limits.compressAt)} threshold without dropping them`,
      });
    }
  }
  if (stages.total(projection, point) > limits.hardLimit) {
    const plan = planDrop({
      facts,
      point,
      projection,
      stateTokens: (state) => stages.stateTokens(state),
      meter: stages.meter,
      acknowledgement: stages.settings.acknowledgement,
    });
    const dropped = plan && applyDrop(point, plan);
    const after = dropped && stages.project(facts, dropped);
    if (plan && dropped && after && stages.total(after, dropped) < stages.total(projection, point)) {
      messagesDropped = plan.cut - point.coveredCount;
      point = dropped;
      projection = after;
      decisions.push(plan.decision);
    }
  }
  const unsummarized = failure !== undefined || carried || (stages.settings.folding && backingOff);
  return {
    point,
    lasting: unsummarized && point.coveredCount > lasting.coveredCount ? lasting : point,
    restored,
    projection,
    decisions,
    deferred,
    masked,
    messagesFolded,
    messagesDropped,
    summarizerMs,
    failure,
    quotesRejected,
    recalled: { chunks: 0, tokens: 0, blocksDropped: 0, piecesRedacted: 0 },
  };
}

/**
 * Whether folding to `cut` could shrink the prompt at all: with a state no larger than `state` (the empty state's
 * pair at the least), the prompt at the cut (a pinned user message included) must be smaller than now.
 */
function shrinks(
  stages: DecideStages,
  projection: Projection,
  point: CompressionPoint,
  cut: number,
  state: SessionState | undefined,
): boolean {
  const stateTokens = stages.stateTokens(state ?? EMPTY_SESSION_STATE);
  return projection.layout.total(cut, stateTokens) < stages.total(projection, point);
}
