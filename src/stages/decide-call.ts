import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { Stage } from '../call/stage.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { Boundary, SemanticTriggerSettings } from '../folding/semantic-triggers.js';
import type { CallDescriptions, Memo } from '../masking/observation-masking.js';
import type { TermMemo } from '../masking/staleness.js';
import type { EngineSettings } from '../options/engine-settings.js';
import type { ProvisionalDrop } from '../persistence/state-records.js';
import type { RecallPlanner } from '../recall/recall-planner.js';
import type { SessionState } from '../session-state/session-state.js';
import type { Quotes, ResultInUse } from '../signals/results-in-use.js';
import type { CacheEconomics, SummaryPricing } from '../strategies/cache-economics.js';
import type { DecideEffect } from './effects.js';

/**
 * What the stages work with: the resolved settings, the engine's memos and recall, and how to project a
 * point and count it. Plain capabilities: the strategies the stages call get data only.
 */
export interface StageServices {
  readonly settings: EngineSettings;
  readonly cachePricing: { readonly read: number; readonly write: number; readonly output: number };
  /** How a fold's summary is paid for when a model makes it; undefined with the offline summarizer. */
  readonly summaryPricing: SummaryPricing | undefined;
  readonly meter: MessageMeter;
  readonly memos: {
    readonly placeholderTokens: Memo<number>;
    readonly descriptions: CallDescriptions;
    readonly terms: TermMemo;
  };
  /**
   * Whether summaries are made ahead of time and still may be (`summarizeAhead.signal` not aborted): folds that can
   * wait are then put off. False when they are off.
   */
  aheadActive(): boolean;
  /**
   * Model calls of this conversation a summary made ahead of time takes (measured, see `FoldsAhead`): the calls by
   * which a fold planned now is made later. Zero when summaries are not made ahead (read only while `aheadActive`).
   */
  aheadCalls(facts: CallFacts): number;
  readonly recall: RecallPlanner;
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
export interface StageCall {
  readonly facts: CallFacts;
  readonly services: StageServices;
  readonly force: boolean;
  /** Tokens of the prompt at the starting point. */
  readonly tokensBefore: number;
  /** Over the threshold at the start, or forced: the cache breaks anyway, masking clears every candidate. */
  readonly pressure: boolean;
  readonly economics: CacheEconomics;
  /** The fold point the call started from (the previous prompt was sent from it). */
  readonly startCovered: number;
  /** The drop an earlier call made because its summarizer failed, from the stored record. */
  readonly provisional: ProvisionalDrop | undefined;
}

/** One stage of the decide pipeline: it asks the engine for the summarizer and the store as effects. */
export type DecideStage = Stage<StageCall, DecideEffect>;
