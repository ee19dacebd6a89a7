import type { CompressionPoint } from '../call/compression-point.js';
import type { StageContext, StagePlan } from '../call/stage.js';
import type { CompressionDecision } from '../reports/decisions.js';
import { addSummarizerUsage } from '../reports/usage.js';
import { EMPTY_SESSION_STATE } from '../session-state/session-state.js';
import type { DecideStage, StageCall } from '../stages/decide-call.js';
import { backOff, type Effects, findAhead, summarize, summarizeAhead, waits } from '../stages/effects.js';
import { type FoldPlan, foldBuysFewCalls, planBudgetFold, planSemanticFold, weighFold } from './fold-plans.js';

/** Semantic folds one run of the stage may make in a row (each one summarizer call). */
export const MAX_SEMANTIC_FOLDS = 3;
/** Budget folds one call may make in a row (the forced one included), when a state came out larger than planned. */
export const MAX_BUDGET_FOLDS = 3;

type Context = StageContext<StageCall>;

/** Finished segments folded below the threshold, each fold paying for its cache break. */
export const semanticFolds: DecideStage = {
  name: 'semantic-folds',
  rounds: MAX_SEMANTIC_FOLDS,
  plan: (context) => semanticFold(context),
  again: [
    // the segments a budget fold left below the threshold, folded as a call from the stored point would fold them
    { after: 'budget-folds', when: ({ report }) => report.budgetFolds > 0 },
    // once more after recall chose a block: a call from the stored point starts with that block in its prompt, so the
    // segments are weighed as it would weigh them (the same request sends the same prompt)
    { after: 'recall-for-latest', when: ({ report }) => report.budgetFolds > 0 && report.recallChosen },
  ],
};

/** A forced call folds once on request (nothing when its turn was folded already). */
export const forcedFold: DecideStage = {
  name: 'forced-fold',
  plan: (context) => (context.call.force ? fold(context, budgetPlan(context, true), { forced: true }) : undefined),
};

/**
 * Under pressure the cache breaks anyway: folds down to the target in this one break, not just below the threshold,
 * and again while a fold's real state left the prompt over its target (a retry from the stored point would fold more).
 */
export const budgetFolds: DecideStage = {
  name: 'budget-folds',
  rounds: MAX_BUDGET_FOLDS,
  plan: async function* (context) {
    if (context.report.budgetFolds >= MAX_BUDGET_FOLDS) return undefined;
    // a fold that would come back within a call or two waits for the hard limit (see `foldBuysFewCalls`), unless the
    // call rewrites the cached prefix anyway (masking under pressure): then it folds in that one break
    const breaks = context.report.masked.count > 0;
    if (!context.call.services.aheadActive() && !breaks && foldWaitsForRoom(context)) return undefined;
    const canWait = budgetWaits(context);
    const plan = budgetPlan(context, false);
    // a fold that may wait is made some calls later, with what those calls add: summarized for the prompt as it will
    // be then (the fold this call takes or replaces is weighed by the plan of the history alone, so every instance
    // decides alike whatever the pace it measured)
    const ahead = canWait && plan ? (budgetPlan(context, false, aheadGrowth(context)) ?? plan) : plan;
    // a shorter fold pending is taken when it takes the prompt below the threshold (else the deeper fold is planned)
    const takes = (cut: number) => belowThreshold(context, cut);
    return (
      plan && (yield* foldWhenSummarized(context, plan, { canWait, takes, forBudget: true, aheadCut: ahead?.cut }))
    );
  },
};

/** Whether folding to `cut` takes the prompt below the threshold, the state left room to grow. */
function belowThreshold(context: Context, cut: number): boolean {
  const { freed } = weighFold(foldWeights(context), cut);
  return context.tokens - freed <= context.call.facts.limits.compressAt;
}

/**
 * What the history is expected to add before a fold planned now for the budget is made, when summaries are made ahead
 * and it may wait: the calls a summary takes, each growing as the recent ones did (the median of the last five).
 */
function aheadGrowth({ call, projection }: Context): number {
  if (!call.services.aheadActive() || call.force) return 0;
  return call.services.aheadCalls(call.facts) * projection.layout.growthPerCall();
}

/** Whether the budget's fold may wait for its summary: the prompt is below the hard limit. */
function budgetWaits({ call, tokens }: Pick<Context, 'call' | 'tokens'>): boolean {
  return tokens <= call.facts.limits.hardLimit;
}

/**
 * Whether this call's budget fold may be left to a later one: the call is not forced, the prompt is below the hard
 * limit, and summaries are made ahead of time or a fold now would buy few calls (`foldWaitsForRoom`).
 */
export function budgetFoldMayWait(context: Pick<Context, 'call' | 'tokens' | 'point' | 'projection'>): boolean {
  if (context.call.force || !budgetWaits(context)) return false;
  return context.call.services.aheadActive() || foldWaitsForRoom(context);
}

/**
 * Whether the budget's fold waits for the hard limit: the call is not forced, the prompt is below the hard limit and
 * folding now would take it back over the threshold within a call or two (a loop whose steps are large against the
 * window). Until then the prompt goes on between the threshold and the hard limit, its cached prefix whole.
 */
function foldWaitsForRoom(context: Pick<Context, 'call' | 'tokens' | 'point' | 'projection'>): boolean {
  const { call, point, projection } = context;
  if (call.force || !folding(context) || !budgetWaits(context)) return false;
  return foldBuysFewCalls({
    facts: call.facts,
    point,
    projection,
    stateTokens: call.services.stateTokens(point.state),
  });
}

/**
 * A fold as it is made now, with summaries made ahead of time: the fold pending for this point once it is due (its
 * summary had the time to be made), or before when the fold cannot wait; a fold that can wait, with none pending, is
 * planned (its summary started in the background) and made by a later call. Without them, the fold as planned.
 *
 * A pending fold that would not shrink the prompt, or whose state outweighed what it folded, is of no use: the fold
 * planned now takes its place (planned ahead again when it can wait), so a shallow fold planned earlier never holds
 * back the deeper one the prompt needs, and never leaves the oldest turns to a drop.
 */
async function* foldWhenSummarized(
  context: Context,
  plan: FoldPlan,
  {
    canWait,
    takes,
    forBudget,
    aheadCut = plan.cut,
  }: {
    canWait: boolean;
    /** The cut a fold planned now to be made later is summarized for (the plan's own by default). */
    aheadCut?: number;
    /** The budget's fold (else a finished segment's). */
    forBudget: boolean;
    /**
     * Whether the fold takes a pending fold short of its own cut, when it can wait (one at or past its cut is always
     * taken, and any that shrinks the prompt when it cannot wait).
     */
    takes: (cut: number) => boolean;
  },
): Effects<StagePlan | undefined> {
  const { call, point, projection } = context;
  if (!call.services.aheadActive()) return yield* fold(context, plan, { forBudget });
  const found = yield* findAhead(point, projection);
  // a shorter one is taken when the fold finds it of use, or it was planned in place of another already (so that
  // folds planned deeper and deeper never hold the prompt back)
  const taken = found && (found.cut >= plan.cut || found.replaces || !canWait || takes(found.cut));
  const pending = taken && shrinks(context, found.cut) ? found : undefined;
  let spent: StagePlan | undefined;
  // a call over the hard limit does not wait for a summary made ahead that is not due yet, nor for a second fold after
  // it: the offline summarizer folds that span (and the next fold extends the summarizer's summary of it once made);
  // decided by the history's length alone, so every instance decides alike. A conversation's first fold waits for the
  // summarizer: the whole past would be summarized offline
  const late = !canWait && point.state !== undefined;
  if (pending && (pending.due || !canWait)) {
    // a fold whose state outweighs what it folds waits a few messages, unless a deeper one replaces it now
    const deeper = plan.cut > pending.cut;
    const folded = yield* fold(context, withCut(plan, point, pending.cut), {
      forBudget,
      backOff: !deeper,
      late: late && !pending.due,
    });
    // a failed summary is reported and ends the call's folding: it is not asked again for the deeper fold
    if (!deeper || folded?.point !== context.point || folded.report?.failure) return folded;
    spent = folded;
  }
  if (!canWait) return withSpent(yield* fold(context, plan, { forBudget, late }), spent);
  // one fold pending at a time: it is made once due
  if (pending && !pending.due) return undefined;
  // after a fold in this call the next is planned by the next call, whose summary request can then continue this
  // call's prompt: one planned now would be a separate request (the prompt sent before starts elsewhere)
  if (point.coveredCount !== call.startCovered && call.services.summaryPricing?.continues) {
    return withSpent(undefined, spent);
  }
  const cut = Math.max(plan.cut, aheadCut);
  if (shrinks(context, cut)) yield* summarizeAhead(point, cut, found !== undefined);
  return withSpent(undefined, spent);
}

/**
 * A plan with the summarizer time and calls of a fold made before it and discarded (its state outweighed what it
 * folded) counted in; that fold's own accounting when there is no plan. The same plan when nothing was spent.
 */
function withSpent(plan: StagePlan | undefined, spent: StagePlan | undefined): StagePlan | undefined {
  if (!spent) return plan;
  const { summarizerMs = 0, summarizerCalls = 0, summarizerUsage } = spent;
  if (!plan) return spent;
  return {
    ...plan,
    summarizerMs: (plan.summarizerMs ?? 0) + summarizerMs,
    summarizerCalls: (plan.summarizerCalls ?? 0) + summarizerCalls,
    summarizerUsage: addSummarizerUsage(plan.summarizerUsage, summarizerUsage),
  };
}

/** A fold's decision saying that the offline summarizer made its state. */
function stoodIn(decision: CompressionDecision): CompressionDecision {
  return {
    ...decision,
    details: `${decision.details}; over the hard limit before its summary was due: summarized offline`,
  };
}

/** A plan folding to the cut summarized ahead of time (the planned one, or another), saying so. */
function withCut(plan: FoldPlan, point: CompressionPoint, cut: number): FoldPlan {
  const { decision } = plan;
  return {
    ...plan,
    cut,
    decision: {
      ...decision,
      scope: { kind: 'messages', from: point.coveredCount, to: cut },
      details: `${decision.details}${cut === plan.cut ? '' : `; folded to message ${cut} instead`}, summarized ahead of time`,
    },
  };
}

/** Whether folding is on (whether it waits after a recent failure is asked once a fold is planned). */
function folding({ call }: Pick<Context, 'call'>): boolean {
  return call.services.settings.folding;
}

async function* semanticFold(context: Context): Effects<StagePlan | undefined> {
  if (!folding(context)) return undefined;
  const { semantic } = context.call.services.settings;
  let deferred: CompressionDecision | undefined;
  const plan =
    semantic && !context.call.force && context.tokens <= context.call.facts.limits.compressAt
      ? planSemanticFold({
          ...foldWeights(context),
          options: semantic,
          boundaries: () => context.call.services.boundaries(context.call.facts, semantic),
          inUse: (to) => inUse(context, to),
          onDeferred: (decision) => {
            deferred = decision;
          },
        })
      : undefined;
  // a conversation waiting after a failure neither folds nor reports a fold it defers
  if (!plan && !deferred) return undefined;
  if (yield* waits()) return undefined;
  // a fold below the threshold loses nothing by waiting: a shorter fold pending is taken once due only when it is worth
  // more than the segment's fold planned in its place (see `takesShorter`)
  const takes = (cut: number) => plan !== undefined && takesShorter(context, cut, plan.cut);
  const folded = plan && (yield* foldWhenSummarized(context, plan, { canWait: true, takes, forBudget: false }));
  if (folded || !deferred) return folded;
  return { point: context.point, report: { deferred: [deferred] } };
}

/**
 * Whether a finished segment's fold takes the shorter fold pending (to `shorter`) rather than plan its own (to `cut`)
 * in its place. A model's summary of the shorter one is made and paid for already: taking it costs the cache rewrite
 * alone, planning the segment's costs the rewrite and a second summary of the same messages (what the segment added
 * after the shorter cut is folded later only if it pays for its own). The one whose savings exceed its cost by more
 * is taken. With a free summary the segment's is planned: one rewrite where taking the shorter one could make two.
 */
function takesShorter(context: Context, shorter: number, cut: number): boolean {
  if (!context.call.economics.pricesSummaries) return false;
  const taken = weighFold(foldWeights(context), shorter);
  const planned = weighFold(foldWeights(context), cut);
  return taken.savings - (taken.breakCost - taken.summaryCost) >= planned.savings - planned.breakCost;
}

/** What weighing a fold of this point below the threshold takes. */
function foldWeights({ call, point, projection }: Context) {
  const { facts, services, economics } = call;
  return { facts, point, projection, stateTokens: services.stateTokens(point.state), economics };
}

/** The quoted results up to `to`: one the prompt hides already (masked, redacted on request) holds no fold back. */
function inUse({ call, point }: Context, to: number) {
  return call.services
    .quoted(call.facts, point.coveredCount, to)
    .filter((result) => !point.masked.has(result.key) && !call.facts.redactions.has(result.key));
}

/** The budget's fold; a forced call's first fold is the forced one, the folds after it are the budget's. */
function budgetPlan(context: Context, forced: boolean, growthUntilMade = 0): FoldPlan | undefined {
  if (!folding(context)) return undefined;
  const { facts, tokensBefore, services } = context.call;
  const { limits } = facts;
  const target = tokensBefore > limits.compressAt ? limits.compressTo : limits.compressAt;
  if (!forced && context.tokens <= target) return undefined;
  return planBudgetFold({
    facts,
    point: context.point,
    projection: context.projection,
    stateTokens: services.stateTokens(context.point.state),
    force: forced,
    tokensBefore,
    growthUntilMade,
  });
}

/**
 * Runs a fold: kept when it shrank the prompt (or was forced). Not run after a failure in this call, nor when it could
 * not shrink the prompt even with a state no larger than today's (unless forced).
 */
async function* fold(
  context: Context,
  plan: FoldPlan | undefined,
  {
    forced = false,
    forBudget = forced,
    backOff: backsOff = true,
    late = false,
  }: { forced?: boolean; forBudget?: boolean; backOff?: boolean; late?: boolean },
): Effects<StagePlan | undefined> {
  if (!plan || context.report.failure || (!forced && !shrinks(context, plan.cut))) return undefined;
  if (yield* waits()) return undefined;
  const { facts, services } = context.call;
  const result = yield* summarize(context.point, plan, late);
  if (result.failure) {
    return { point: context.point, summarizerMs: result.summarizerMs, report: { failure: result.failure } };
  }
  // nor kept when the state it made outweighs what left (a short turn re-sent as the pinned message): the summarizer
  // then waits a few messages, on every instance (the wait is stored)
  const projection = services.project(facts, result.point);
  // a forced fold may grow a short prompt, never one over the hard limit (the budget's folds go on from there)
  const total = services.total(projection, result.point);
  if (total >= context.tokens && (!forced || total > facts.limits.hardLimit)) {
    if (backsOff && !forced) yield* backOff();
    return {
      point: context.point,
      summarizerMs: result.summarizerMs,
      summarizerCalls: result.summarizerCalls,
      summarizerUsage: result.summarizerUsage,
    };
  }
  return {
    point: result.point,
    projection,
    summarizerMs: result.summarizerMs,
    summarizerCalls: result.summarizerCalls,
    summarizerUsage: result.summarizerUsage,
    report: {
      messagesFolded: plan.cut - context.point.coveredCount,
      ...(forBudget && { budgetFolds: 1 }),
      quotesRejected: result.quotesRejected,
      decisions: [result.stoodIn ? stoodIn(plan.decision) : plan.decision],
    },
  };
}

/**
 * Whether folding to `cut` could shrink the prompt at all: with a state no larger than the current one (the empty
 * state's pair at the least), the prompt at the cut (a pinned user message included) must be smaller than now.
 */
function shrinks({ call, point, projection, tokens }: Context, cut: number): boolean {
  const stateTokens = call.services.stateTokens(point.state ?? EMPTY_SESSION_STATE);
  return projection.layout.total(cut, stateTokens) < tokens;
}
