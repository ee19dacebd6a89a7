import { TokenCalibration } from '../counting/calibration.js';
import { defaultTokenCounter } from '../counting/default-counter.js';
import { guardedCounter } from '../counting/guarded-counter.js';
import { MessageMeter } from '../counting/message-meter.js';
import { EmbeddingCache } from '../embeddings/embedder.js';
import type { EmbedderError, StoreError } from '../errors.js';
import { FoldRunner } from '../folding/fold-runner.js';
import { FoldsAhead } from '../folding/folds-ahead.js';
import { type EngineSettings, engineSettings } from '../options/engine-settings.js';
import { type CompressionOptions, type ResolvedOptions, resolveOptions } from '../options/options.js';
import { CalibrationStore } from '../persistence/calibration-store.js';
import { FOLD_RESULT_TTL_MS, foldLease } from '../persistence/fold-lease.js';
import { FoldsAheadStore } from '../persistence/folds-ahead-store.js';
import { guardedStore } from '../persistence/guarded-store.js';
import { StateRecords } from '../persistence/state-records.js';
import { memoryStateStore, type StateStore } from '../persistence/state-store.js';
import { SummarizerRetries } from '../persistence/summarizer-retries.js';
import { RecallPlanner } from '../recall/recall-planner.js';
import { DEFAULT_RECALL_ACKNOWLEDGEMENT } from '../recall/render-recall.js';
import type { CompressionErrorEvent } from '../reports/events.js';
import type { StageServices } from '../stages/decide-call.js';
import type { SummaryPricing } from '../strategies/cache-economics.js';
import { extractiveSummarizer } from '../summarizers/extractive-summarizer.js';
import { toSummarizer } from '../summarizers/summarizer.js';
import { CallReader } from './call-reader.js';
import { CallRecords } from './call-records.js';
import { CallReporter } from './call-report.js';
import { ConversationMemory } from './conversation-memory.js';
import { ModelLimits } from './model-limits.js';
import { OverflowLearning } from './overflow-learning.js';
import { OwnToolsSeen } from './own-tools-seen.js';
import { PromiseKeeper } from './promise-keeper.js';
import { PromptAssembly } from './prompt-assembly.js';
import { type Listeners, safeListeners } from './safe-listeners.js';
import { UnchangedCalls } from './unchanged-calls.js';

/** What an engine is made of, built once from its options. */
export interface EngineParts {
  readonly resolved: ResolvedOptions;
  readonly settings: EngineSettings;
  readonly listeners: Listeners;
  readonly meter: MessageMeter;
  readonly calibration: TokenCalibration;
  /** The calibration ratios kept in the caller's store, shared by its instances; none with the memory store. */
  readonly calibrationStore: CalibrationStore | undefined;
  readonly models: ModelLimits;
  readonly memory: ConversationMemory;
  readonly reader: CallReader;
  readonly records: CallRecords;
  readonly assembly: PromptAssembly;
  readonly promises: PromiseKeeper;
  readonly reporter: CallReporter;
  readonly unchangedCalls: UnchangedCalls;
  /** The summarizer's folds, with the store's lease and waits. */
  readonly folds: FoldRunner;
  /** Summaries made ahead of time, when on. */
  readonly ahead: FoldsAhead | undefined;
  /** With summaries made ahead: the offline summarizer's folds, for a call that cannot wait for one not ready. */
  readonly standIn: FoldRunner | undefined;
  readonly services: StageServices;
}

/** Builds an engine's parts: the options resolved, the counter, the store and its records, the memory, the stages' services. */
export function engineParts(options: CompressionOptions): EngineParts {
  const resolved = resolveOptions(options);
  const listeners = safeListeners(resolved);
  const { onError } = listeners;
  // gpt-tokenizer, not tiktoken: the same counts on every fixture text, 5-6x faster once loaded, pure JavaScript
  // (no WASM loader in bundles) and loaded before the first call rather than at import; UTF-8 bytes in the edge build
  const meter = new MessageMeter(
    resolved.tokenCounter
      ? guardedCounter(resolved.tokenCounter, (error) => onError({ error, fallback: 'approximate-count' }))
      : defaultTokenCounter(),
  );
  const calibration = new TokenCalibration(undefined, meter.counter.calibrationFloor);
  const models = new ModelLimits(resolved, calibration, new OverflowLearning(calibration), (event) => onError(event));
  // a store of the caller's is bounded in time and its failures read as absent records; the memory store cannot fail
  const { stateTtlMs, storeTimeoutMs, embedder, embedderTimeoutMs } = resolved;
  const onStoreError = (error: StoreError) => onError({ error, fallback: 'without-store' });
  const store = resolved.store ? guardedStore(resolved.store, storeTimeoutMs, onStoreError) : memoryStateStore();
  const calibrationStore =
    resolved.store && new CalibrationStore(store, calibration, resolved.namespace, meter.counter.name, stateTtlMs);
  // index writes queued by the caller's store object: the engines of a process that share it write in turn
  const stateRecords = new StateRecords(store, stateTtlMs, onStoreError, resolved.store ?? store);
  const embeddings = embedder && new EmbeddingCache(embedder, embedderTimeoutMs);
  const onEmbedderError = (error: EmbedderError) => onError({ error, fallback: 'lexical' });
  const settings = engineSettings(resolved);
  const standIns = settings.ahead !== undefined;
  const folds = foldRunner(resolved, store, meter, embeddings, { onEmbedderError, onError, standIns });
  const memory = new ConversationMemory(meter);
  const ahead =
    settings.ahead && new FoldsAhead(folds, new FoldsAheadStore(store, stateTtlMs), settings.ahead, onError);
  const ownTools = new OwnToolsSeen(settings.awareness);
  const reporter = new CallReporter(listeners, meter, resolved.onCall !== undefined, resolved.cachePricing);
  const recall = new RecallPlanner(meter, DEFAULT_RECALL_ACKNOWLEDGEMENT, { embeddings, onEmbedderError });
  const assembly = new PromptAssembly(meter, settings, memory, recall);
  const services: StageServices = {
    settings,
    cachePricing: resolved.cachePricing,
    summaryPricing: summaryPricing(resolved, settings),
    meter,
    memos: {
      placeholderTokens: memory.placeholderTokens,
      descriptions: memory.projections.descriptions,
      terms: memory.terms,
    },
    aheadActive: () => ahead !== undefined && !settings.ahead?.signal?.aborted,
    aheadCalls: (facts) => ahead?.callsAhead(facts.conversationKey) ?? 0,
    recall,
    project: (facts, point) => assembly.project(facts, point),
    total: (projection, point) => assembly.total(projection, point),
    stateTokens: (state) => assembly.stateTokens(state),
    quoted: (facts, from, to) => memory.quoted(facts, from, to),
    quotes: (facts, from, readers) => memory.quotes(facts, from, readers),
    // always asked with the engine's own semantic settings, so a call's boundaries depend on its facts alone
    boundaries: (facts, semantic) => memory.boundaries(facts, semantic),
  };
  const { semantic } = settings;
  return {
    resolved,
    settings,
    listeners,
    meter,
    calibration,
    calibrationStore,
    models,
    memory,
    reader: new CallReader(meter, resolved, settings, memory, ownTools, models),
    records: new CallRecords(stateRecords, memory, assembly, meter, resolved.acknowledgement, onError),
    assembly,
    promises: new PromiseKeeper(meter, assembly, reporter, memory, onError, resolved.onBrokenPromise === 'throw'),
    reporter,
    unchangedCalls: new UnchangedCalls(
      meter,
      reporter,
      semantic ? (facts) => services.boundaries(facts, semantic) : undefined,
    ),
    folds,
    ahead,
    standIn: ahead && standInRunner(resolved, meter, embeddings, onEmbedderError),
    services,
  };
}

/**
 * How a fold's summary is paid for: by a model when the summarizer is one of the package's model summarizers, or its
 * summaries are made ahead of time (a summarizer that takes seconds); the offline one, or a function made fast, free.
 */
function summaryPricing(resolved: ResolvedOptions, settings: EngineSettings): SummaryPricing | undefined {
  const summarizer = toSummarizer(resolved.summarizer);
  if (!summarizer.name.startsWith('model:') && !settings.ahead) return undefined;
  return { continues: summarizer.continuesPrompts === true };
}

/** The offline summarizer's folds, for a call over the hard limit that cannot wait for a summary made ahead. */
function standInRunner(
  resolved: ResolvedOptions,
  meter: MessageMeter,
  embeddings: EmbeddingCache | undefined,
  onEmbedderError: (error: EmbedderError) => void,
): FoldRunner {
  const { summarizerTimeoutMs: timeoutMs, acknowledgement } = resolved;
  return new FoldRunner(extractiveSummarizer(), { timeoutMs, meter, embeddings, onEmbedderError, acknowledgement });
}

/** The engine's fold runner: its summarizer, with the fold lease and the stored waits of the engine's store. */
function foldRunner(
  resolved: ResolvedOptions,
  store: StateStore,
  meter: MessageMeter,
  embeddings: EmbeddingCache | undefined,
  {
    onEmbedderError,
    onError,
    standIns,
  }: {
    onEmbedderError: (error: EmbedderError) => void;
    onError: (event: CompressionErrorEvent) => void;
    standIns: boolean;
  },
): FoldRunner {
  const { stateTtlMs, summarizerTimeoutMs, storeTimeoutMs, embedder, embedderTimeoutMs } = resolved;
  return new FoldRunner(toSummarizer(resolved.summarizer), {
    timeoutMs: summarizerTimeoutMs,
    contextWindow: resolved.summarizerContextWindow,
    meter,
    embeddings,
    onEmbedderError,
    onRejected: (error) => onError({ error, fallback: 'retried' }),
    acknowledgement: resolved.acknowledgement,
    standIns,
    lease: foldLease(store, resolved.store !== undefined && resolved.foldLease, {
      stateTtlMs,
      summarizerTimeoutMs,
      embedderTimeoutMs: embedder ? embedderTimeoutMs : 0,
      storeTimeoutMs,
    }),
    retries: new SummarizerRetries(store, stateTtlMs),
    shared: { store, ttlMs: Math.min(stateTtlMs, FOLD_RESULT_TTL_MS) },
  });
}
