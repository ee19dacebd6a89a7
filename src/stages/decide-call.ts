import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { Stage } from '../call/stage.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { FoldRunner } from '../folding/fold-runner.js';
import type { Boundary, SemanticTriggerSettings } from '../folding/semantic-triggers.js';
import type { CallDescriptions, Memo } from '../masking/observation-masking.js';
import type { TermMemo } from '../masking/staleness.js';
import type { EngineSettings } from '../options/engine-settings.js';
import type { ProvisionalDrop } from '../persistence/state-records.js';
import type { RecallStage } from '../recall/recall-stage.js';
import type { SessionState } from '../session-state/session-state.js';
import type { Quotes, ResultInUse } from '../signals/results-in-use.js';
import type { CacheEconomics } from '../strategies/cache-economics.js';

/**
 * What the stages work with: the resolved settings, the engine's memos, fold runner and recall, and how to project a
 * point and count it. Plain capabilities: the strategies the stages call get data only.
 */
export interface StageServices {
  readonly settings: EngineSettings;
  readonly cachePricing: { readonly read: number; readonly write: number };
  readonly meter: MessageMeter;
  readonly memos: {
    readonly placeholderTokens: Memo<number>;
    readonly descriptions: CallDescriptions;
    readonly terms: TermMemo;
  };
  readonly folds: FoldRunner;
  /** Summaries made ahead of time (see `FoldsAhead`), undefined when off: folds that can wait are put off. */
  readonly ahead:
    | {
        /** False once the engine is closed (`summarizeAhead.signal` aborted): folds are then made at once. */
        active(): boolean;
        /** The fold pending for this point, if one is and still fits the history, and whether it is due. */
        find(
          facts: CallFacts,
          point: CompressionPoint,
          projection: Projection,
        ): Promise<{ cut: number; due: boolean; replaces: boolean } | undefined>;
        /**
         * Plans a fold of this point to `cut`, made from a later call on, its summary started in the background;
         * `replaces`: in place of a shorter one that was of no use.
         */
        plan(facts: CallFacts, point: CompressionPoint, cut: number, replaces?: boolean): Promise<void>;
      }
    | undefined;
  readonly recall: RecallStage;
  project(facts: CallFacts, point: CompressionPoint): Projection;
  total(projection: Projection, point: CompressionPoint): number;
  stateTokens(state: SessionState | undefined): number;
  /** The results in `[from, to)` the assistant quoted after they came (`findResultsInUse`), read incrementally. */
  quoted(facts: CallFacts, from: number, to: number): readonly ResultInUse[];
  /** The results from `from` on that the assistant messages at `readers` quote (`findQuotes`), read incrementally. */
  quotes(facts: CallFacts, from: number, readers: readonly number[]): Quotes;
  /** The segment boundaries of the call's history, found incrementally per conversation. */
  boundaries(facts: CallFacts, options: SemanticTriggerSettings): readonly Boundary[];
}

/** What holds for every stage of one call: its facts and services, and what was known before the first stage. */
export interface DecideCall {
  readonly facts: CallFacts;
  readonly services: StageServices;
  readonly force: boolean;
  /** Tokens of the prompt at the starting point. */
  readonly tokensBefore: number;
  /** Over the threshold at the start, or forced: the cache breaks anyway, masking clears every candidate. */
  readonly pressure: boolean;
  readonly economics: CacheEconomics;
  /**
   * Whether folding waits after a recent summarizer failure: read once, when a fold or a drop is first planned (the
   * store is read only by calls that would change the prompt).
   */
  readonly backingOff: () => Promise<boolean>;
  /** The drop an earlier call made because its summarizer failed, from the stored record. */
  readonly provisional: ProvisionalDrop | undefined;
}

/** One stage of the decide pipeline. */
export type DecideStage = Stage<DecideCall>;
