import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { FoldPlan } from '../folding/fold-plans.js';
import type { FoldResult } from '../folding/fold-runner.js';

/** A fold summarized ahead of time that is pending for a point: its cut, whether it is due, whether it replaces another. */
export interface PendingFold {
  readonly cut: number;
  readonly due: boolean;
  readonly replaces: boolean;
}

/**
 * What a stage asks the loop to do for it: the work that calls a summarizer or reads and writes the store. A stage
 * yields an effect and is resumed with its result; the engine runs it (see `decide`), so a planner never holds the
 * summarizer or the store.
 * - `summarize`: fold `point` as `plan` says, now (the fold runner: the summarizer, or a summary made ahead); `late`: the
 *   call cannot wait for the summarizer (the offline summarizer stands in) -> `FoldResult`
 * - `back-off`: a fold was discarded (its state outweighed what it folded): folding waits a few messages, on every
 *   instance on the store -> nothing
 * - `waits`: whether folding waits for this conversation after a failure or a discard (read once per call) -> boolean
 * - `find-ahead`: the fold summarized ahead of time pending for `point` -> `PendingFold | undefined`
 * - `summarize-ahead`: plan a fold of `point` to `cut`, its summary started in the background -> nothing
 */
export type DecideEffect =
  | { readonly kind: 'summarize'; readonly point: CompressionPoint; readonly plan: FoldPlan; readonly late: boolean }
  | { readonly kind: 'back-off' }
  | { readonly kind: 'waits' }
  | { readonly kind: 'find-ahead'; readonly point: CompressionPoint; readonly projection: Projection }
  | {
      readonly kind: 'summarize-ahead';
      readonly point: CompressionPoint;
      readonly cut: number;
      readonly replaces: boolean;
    };

/** The steps of a stage that asks for effects. */
export type Effects<Result> = AsyncGenerator<DecideEffect, Result, unknown>;

/** Folds `point` as `plan` says, now; `late`: by the offline summarizer, without waiting for the summarizer. */
export async function* summarize(point: CompressionPoint, plan: FoldPlan, late = false): Effects<FoldResult> {
  return (yield { kind: 'summarize', point, plan, late }) as FoldResult;
}

/** Tells that a fold was discarded: folding waits. */
export async function* backOff(): Effects<void> {
  yield { kind: 'back-off' };
}

/** Whether folding waits for this conversation. */
export async function* waits(): Effects<boolean> {
  return (yield { kind: 'waits' }) as boolean;
}

/** The fold summarized ahead of time pending for a point. */
export async function* findAhead(point: CompressionPoint, projection: Projection): Effects<PendingFold | undefined> {
  return (yield { kind: 'find-ahead', point, projection }) as PendingFold | undefined;
}

/** Plans a fold of a point to `cut`, summarized in the background. */
export async function* summarizeAhead(point: CompressionPoint, cut: number, replaces: boolean): Effects<void> {
  yield { kind: 'summarize-ahead', point, cut, replaces };
}
