import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { FoldLayout } from '../call/fold-layout.js';
import type { Projection } from '../call/projection.js';
import type { MessageMeter } from '../counting/message-meter.js';
import { applyResultEdits, resultEdits } from '../masking/observation-masking.js';
import { type BudgetLimits, STATE_SHARE_OF_BUDGET } from '../options/budget.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { SessionState } from '../session-state/session-state.js';
import type { ResultInUse } from '../signals/results-in-use.js';
import type { CacheEconomics } from '../strategies/cache-economics.js';
import type { Message } from '../transcript/transcript.js';
import { type Boundary, findBoundaries, type SemanticTriggerSettings } from './semantic-triggers.js';

/** A fold the engine may run: the messages from the current fold point up to `cut` go into the session state. */
export interface FoldPlan {
  readonly cut: number;
  readonly decision: CompressionDecision;
  /** The most tokens the state the fold makes may take (see `foldStateCap`). */
  readonly stateCap: number;
}

/** Room left for the state to grow by a fold: 15% of what is folded, at most 10% of the budget. */
function stateGrowth(budget: number, foldedTokens: number): number {
  return Math.min(budget * 0.1, foldedTokens * 0.15);
}

/** "72% of the budget passed the 70%", with a decimal when the whole percentages would read alike. */
function passed(limits: BudgetLimits, tokens: number): string {
  const digits = limits.percent(tokens) === limits.percent(limits.compressAt) ? 1 : 0;
  return `${limits.percent(tokens, digits)} of the budget passed the ${limits.percent(limits.compressAt, digits)}`;
}

/** Calls of the loop's recent growth a budget fold leaves room for below the threshold, so folds come in batches. */
export const ROOM_FOR_CALLS = 4;

/** Smallest share of the budget a fold's state is fitted to when the loop's calls are large against the window. */
export const STATE_FLOOR_SHARE = 0.1;

/**
 * The cap of the state a fold makes. The state's full share of the budget (`maxStateTokens`) when what the fold
 * leaves (system prompt and tools, the state, the latest step) has room for `ROOM_FOR_CALLS` calls growing as the
 * last ones did below the threshold; less when it has not, down to `STATE_FLOOR_SHARE` of the budget: in a loop whose
 * steps are large against the window (a read of 15% of it), a full state would leave room for one more call and the
 * next fold would come a call or two later, each fold a rewrite of the cached prefix. A chat's turns are small: its
 * state keeps the full share (the recall blocks sent with its questions are not counted as growth).
 */
export function foldStateCap(limits: BudgetLimits, layout: FoldLayout, covered: number): number {
  const deepest = layout.cuts.at(-1) ?? covered;
  const kept = layout.total(Math.max(covered, deepest), 0) - layout.fixedTokens;
  // the history's own growth: a recall block is made for a question now and then, not with every call
  const room = limits.compressAt - layout.fixedTokens - kept - ROOM_FOR_CALLS * layout.growthPerCall(5, false, true);
  const floor = (limits.maxStateTokens * STATE_FLOOR_SHARE) / STATE_SHARE_OF_BUDGET;
  return Math.floor(Math.min(limits.maxStateTokens, Math.max(floor, room)));
}

/**
 * The fold the budget asks for, in one cache break: at least down to `compressTo`, and deeper when the loop's recent
 * calls grew by more than a quarter of the room between `compressTo` and `compressAt` each, so that four more such
 * calls fit below the threshold (or everything up to the latest user message when forced). Undefined when nothing
 * can be folded.
 */
export function planBudgetFold({
  facts,
  point,
  projection,
  stateTokens,
  force,
  tokensBefore,
  growthUntilMade = 0,
}: {
  facts: CallFacts;
  point: CompressionPoint;
  projection: Projection;
  /** Tokens of the state pair of the current point. */
  stateTokens: number;
  force: boolean;
  tokensBefore: number;
  /**
   * Tokens the history is expected to grow by before the fold is made: a fold summarized ahead of time is made some
   * calls later, and the messages those calls add stay in the prompt it leaves, so its cut goes that much deeper.
   */
  growthUntilMade?: number;
}): FoldPlan | undefined {
  const { limits } = facts;
  const { layout } = projection;
  const from = point.coveredCount;
  const stateCap = foldStateCap(limits, layout, from);
  const growth = stateGrowth(limits.budget, layout.total(from, 0));
  // deep enough that the next several calls, growing as the last ones did, stay below the threshold: a loop whose
  // steps are large would otherwise fold again every call or two, each fold a rewrite of the cached prefix
  // (when four calls would not fit at all, as deep as the latest turn allows)
  const targetTokens = Math.max(
    0,
    Math.min(limits.compressTo, limits.compressAt - ROOM_FOR_CALLS * layout.growthPerCall()) - growthUntilMade,
  );
  const cut = layout.chooseCut({
    covered: from,
    // the state now as the fold fits it, with room to grow
    stateTokens: Math.min(stateTokens, stateCap) + growth,
    targetTokens,
    force,
  });
  if (cut === undefined) return undefined;
  return {
    cut,
    stateCap,
    decision: {
      trigger: force ? 'forced' : 'budget',
      scope: { kind: 'messages', from, to: cut },
      confidence: 1,
      details: force
        ? `folded ${cut - from} messages on request`
        : `prompt at ${passed(limits, tokensBefore)} threshold; folded ${cut - from} messages into the session state`,
    },
  };
}

/** Calls a budget fold should buy below the threshold before it is made at the threshold rather than the hard limit. */
export const CALLS_A_FOLD_BUYS = 3;

/**
 * Whether a budget fold now would come back within fewer than `CALLS_A_FOLD_BUYS` calls: even the deepest fold leaves
 * the fixed part, the state (at most its cap, with room to grow) and the latest step, and the calls after it, growing
 * as the recent ones did (the median), take the prompt over the threshold again before that. In a loop whose steps
 * are large against the window (a read of 15% of it) folds would then come every other call, each a rewrite of the
 * cached prefix; the fold is better made when the prompt would pass the hard limit, a call or two later.
 */
export function foldBuysFewCalls({
  facts,
  point,
  projection,
  stateTokens,
}: {
  facts: CallFacts;
  point: CompressionPoint;
  projection: Projection;
  /** Tokens of the state pair of the current point. */
  stateTokens: number;
}): boolean {
  const { limits } = facts;
  const { layout } = projection;
  const from = point.coveredCount;
  const state =
    Math.min(stateTokens, foldStateCap(limits, layout, from)) + stateGrowth(limits.budget, layout.total(from, 0));
  const cut = layout.chooseCut({ covered: from, stateTokens: state, targetTokens: 0 });
  if (cut === undefined) return false;
  return layout.total(cut, state) + (CALLS_A_FOLD_BUYS - 1) * layout.growthPerCall() > limits.compressAt;
}

/**
 * The budget fold a later call will ask for, planned ahead from a call below the threshold, so its summary can be
 * made in the background: it is made once `calls` calls went by (or by the call that cannot wait), and must take the
 * prompt to the budget fold's target then, so the cut is chosen for the prompt as it will be (at least one call's
 * growth past the threshold; deeper than a fold now would go). Undefined when nothing can be folded, or the prompt is
 * not expected to cross within `calls`.
 */
export function planFoldAhead({
  facts,
  point,
  projection,
  stateTokens,
  tokens,
  calls,
  maskable,
}: {
  facts: CallFacts;
  point: CompressionPoint;
  projection: Projection;
  /** Tokens of the state pair of the current point. */
  stateTokens: number;
  /** Tokens of the prompt at `point`. */
  tokens: number;
  /** Model calls a summary takes to be made, as measured: how far ahead the fold is planned. */
  calls: number;
  /** Tokens masking frees when the prompt is over the threshold (asked only near it). */
  maskable: () => number;
}): FoldPlan | undefined {
  const { limits } = facts;
  const { layout } = projection;
  // the calls of a loop grow unevenly (a large tool result now and then): planned for the largest recent growth
  const growth = layout.growthPerCall(5, true);
  if (tokens > limits.compressAt || tokens + calls * growth <= limits.compressAt) return undefined;
  // the call that crosses masks first: no fold when what masking frees takes it below the fold's target
  if (limits.compressAt + growth - maskable() <= limits.compressTo) return undefined;
  const from = point.coveredCount;
  const target = Math.max(0, Math.min(limits.compressTo, limits.compressAt - ROOM_FOR_CALLS * growth));
  // the calls until the fold is made add to what it leaves: at least up to one call past the threshold
  const added = Math.max(limits.compressAt + growth, tokens + calls * growth) - tokens;
  const stateCap = foldStateCap(limits, layout, from);
  const cut = layout.chooseCut({
    covered: from,
    stateTokens: Math.min(stateTokens, stateCap) + stateGrowth(limits.budget, layout.total(from, 0)),
    targetTokens: Math.max(0, target - added),
  });
  if (cut === undefined) return undefined;
  return {
    cut,
    stateCap,
    decision: {
      trigger: 'budget',
      scope: { kind: 'messages', from, to: cut },
      confidence: 1,
      details: `prompt at ${limits.percent(tokens)} of the budget, about ${Math.ceil((limits.compressAt - tokens) / Math.max(1, growth))} calls below the ${limits.percent(limits.compressAt)} threshold; ${cut - from} messages summarized ahead of time`,
    },
  };
}

/**
 * A semantic fold below the budget threshold: the deepest finished segment (see `findBoundaries`) whose fold frees at
 * least `minTokens` and whose expected cache-read savings pay for the one-time rewrite of the rest of the prompt.
 */
export function planSemanticFold({
  facts,
  point,
  projection,
  stateTokens,
  options,
  economics,
  boundaries = () => findBoundaries(facts.messages, facts.steps, options),
  inUse = () => [],
  onDeferred,
}: {
  facts: CallFacts;
  point: CompressionPoint;
  projection: Projection;
  stateTokens: number;
  options: SemanticTriggerSettings;
  economics: CacheEconomics;
  /** The boundaries of the history (`findBoundaries`), asked for only when a fold could free enough. */
  boundaries?: () => readonly Boundary[];
  /** The results from the fold point up to `to` that the assistant quoted after they came (`findResultsInUse`). */
  inUse?: (to: number) => readonly ResultInUse[];
  /** Told of a fold that would pay but was put off: the work after it still quotes results it would hide. */
  onDeferred?: (decision: CompressionDecision) => void;
}): FoldPlan | undefined {
  const { layout } = projection;
  const from = point.coveredCount;
  // nothing to fold unless a finished segment beyond the fold point holds at least minTokens
  const { minTokens, deferWhileQuoted } = options;
  const lastStart = facts.lastStepStart;
  if (layout.total(from, 0) - layout.total(lastStart, 0) < minTokens) return undefined;
  const candidates = boundaries().filter(
    (boundary) => boundary.messageIndex > from && layout.isCut(boundary.messageIndex),
  );
  const deepest = candidates.at(-1)?.messageIndex ?? from;
  // read once, at the first fold that would pay: most calls have none
  let quoted: readonly ResultInUse[] | undefined;
  let deferred: { boundary: Boundary; freed: number; blocking: readonly ResultInUse[] } | undefined;
  for (const boundary of candidates.reverse()) {
    const { freed, savings, breakCost, pays } = weighFold(
      { facts, point, projection, stateTokens, economics },
      boundary.messageIndex,
    );
    if (freed < minTokens || !pays) continue;
    // not finished after all while the work after it still quotes its results: hiding them now is the likeliest
    // way to make the agent fetch them again, and below the threshold nothing presses; a shallower segment may do
    quoted ??= deferWhileQuoted ? inUse(deepest) : [];
    const blocking = quoted.filter(
      (result) => result.messageIndex < boundary.messageIndex && result.lastUse >= boundary.messageIndex,
    );
    if (blocking.length > 0) {
      deferred ??= { boundary, freed, blocking };
      continue;
    }
    const held = deferred
      ? `; a fold to message ${deferred.boundary.messageIndex} (about ${Math.round(deferred.freed)} tokens) waits: the work after it still quotes ${describeQuoted(deferred.blocking)}`
      : '';
    return {
      cut: boundary.messageIndex,
      stateCap: foldStateCap(facts.limits, layout, from),
      decision: {
        trigger: boundary.trigger,
        scope: { kind: 'messages', from, to: boundary.messageIndex },
        confidence: boundary.confidence,
        details: `${boundary.details}; folded the finished segment (${boundary.messageIndex - from} messages), freeing about ${Math.round(freed)} tokens; expected savings ${Math.round(savings)} vs. a one-time cost of ${Math.round(breakCost)} (the cache rewrite, and a model's summary)${deferWhileQuoted ? '; the work after it quotes none of its results' : ''}${held}`,
      },
    };
  }
  if (deferred) {
    onDeferred?.({
      trigger: deferred.boundary.trigger,
      scope: { kind: 'messages', from, to: deferred.boundary.messageIndex },
      confidence: deferred.boundary.confidence,
      details: `${deferred.boundary.details}; a fold of ${deferred.boundary.messageIndex - from} messages would free about ${Math.round(deferred.freed)} tokens and pay for its cache rewrite, but waits: the work after it still quotes ${describeQuoted(deferred.blocking)}, results it would hide`,
    });
  }
  return undefined;
}

/**
 * A fold below the threshold to `cut`, weighed: the tokens it frees (the state left room to grow) and whether the
 * cache reads it saves pay for the one-time rewrite of the prompt after it and its summary (`summaryCost`, within
 * `breakCost`).
 */
export function weighFold(
  {
    facts,
    point,
    projection,
    stateTokens,
    economics,
  }: {
    facts: CallFacts;
    point: CompressionPoint;
    projection: Projection;
    stateTokens: number;
    economics: CacheEconomics;
  },
  cut: number,
): { freed: number; savings: number; breakCost: number; summaryCost: number; pays: boolean } {
  const { layout } = projection;
  const from = point.coveredCount;
  const folded = layout.total(from, 0) - layout.total(cut, 0);
  const stateAfter = stateTokens + stateGrowth(facts.limits.budget, folded);
  const after = layout.total(cut, stateAfter);
  const prompt = layout.total(from, stateTokens);
  const freed = prompt - after;
  const summaryCost = economics.summaryCost({ from, folded, stateBefore: stateTokens, stateAfter, prompt });
  // a first change also writes the awareness block it adds
  return { freed, summaryCost, ...economics.weigh(freed, after - layout.fixedTokens + economics.unshown, summaryCost) };
}

/** The quoted results for a decision's details: how many, and the first calls with the term quoted. */
function describeQuoted(results: readonly ResultInUse[]): string {
  const shown = results
    .slice(0, 3)
    .map((result) => `${result.callId} ("${result.term}")`)
    .join(', ');
  return `${results.length} of its results (${shown}${results.length > 3 ? ', ...' : ''})`;
}

/** The messages a fold hands the summarizer: what the model discarded with the redaction tool as redacted. */
export function messagesToFold(
  facts: CallFacts,
  point: CompressionPoint,
  cut: number,
  meter: MessageMeter,
): readonly Message[] {
  const redactedOnly = resultEdits({
    sites: facts.sites,
    masked: new Set(),
    redactions: facts.redactions,
    keepRecent: 0,
    meter,
  });
  return applyResultEdits(facts.messages, redactedOnly, point.coveredCount).slice(point.coveredCount, cut);
}

/** The compression point after a fold to `cut` produced `state`. */
export function applyFold(point: CompressionPoint, cut: number, state: SessionState): CompressionPoint {
  return { ...point, coveredCount: cut, state };
}
