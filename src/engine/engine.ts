import { boundedCache } from '../bounded-cache.js';
import { TokenCalibration } from '../counting/calibration.js';
import { gptTokenizerCounter } from '../counting/gpt-tokenizer-counter.js';
import { guardedCounter } from '../counting/guarded-counter.js';
import { type MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { PrefixHashes } from '../counting/prefix-hashes.js';
import { EmbeddingCache } from '../embeddings/embedder.js';
import {
  BrokenPromiseError,
  type EmbedderError,
  MessageTooLargeError,
  type ProviderOverflowError,
  type StoreError,
  UnknownContextWindowError,
} from '../errors.js';
import { budgetLimits } from '../options/budget.js';
import { lookupContextWindow } from '../options/context-windows.js';
import { type EngineSettings, engineSettings } from '../options/engine-settings.js';
import { type CompressionOptions, checkReserve, type ResolvedOptions, resolveOptions } from '../options/options.js';
import { FOLD_RESULT_TTL_MS, foldLease } from '../persistence/fold-lease.js';
import { FoldsAheadStore } from '../persistence/folds-ahead-store.js';
import { guardedStore } from '../persistence/guarded-store.js';
import { type StateRecord, StateRecords } from '../persistence/state-records.js';
import { memoryStateStore, type StateStore } from '../persistence/state-store.js';
import { SummarizerRetries } from '../persistence/summarizer-retries.js';
import { RecallStage } from '../recall/recall-stage.js';
import { DEFAULT_RECALL_ACKNOWLEDGEMENT } from '../recall/render-recall.js';
import { fitState } from '../session-state/fit-state.js';
import { sessionStateMessages } from '../session-state/render-session-state.js';
import type { SessionState } from '../session-state/session-state.js';
import { ResultsInUse, type ScanInput } from '../signals/results-in-use.js';
import { StepAnalyses } from '../signals/step-analyses.js';
import { EDITED_MESSAGE_CACHE_SIZE, type ResultEdit } from '../strategies/observation-masking.js';
import { toSummarizer } from '../summarizers/summarizer.js';
import { CutPointIndex } from '../transcript/cut-point-index.js';
import { rebindOriginals } from '../transcript/rebind-originals.js';
import { PairingScans } from '../transcript/repair-tool-pairs.js';
import { ResultSiteIndex } from '../transcript/result-sites.js';
import type { Message } from '../transcript/transcript.js';
import { SegmentBoundaries } from '../triggers/segment-boundaries.js';
import type { Boundary } from '../triggers/semantic-triggers.js';
import { type CallFacts, readCall } from './call-facts.js';
import { CallReporter } from './call-report.js';
import type { CompressInput, CompressOutput } from './compress-call.js';
import { type CompressionPoint, startingPoint } from './compression-point.js';
import { type Decided, decide } from './decide.js';
import type { StageServices } from './decide-call.js';
import { fittedRecord, refitDecision } from './fitted-record.js';
import { FoldRunner } from './fold-runner.js';
import { FoldsAhead } from './folds-ahead.js';
import { HistoryMemory } from './history-memory.js';
import { checkedRecord, pairedInput } from './input-checks.js';
import { freedUnderPressure } from './masking-stage.js';
import { OverflowLearning } from './overflow-learning.js';
import { OwnToolsSeen } from './own-tools-seen.js';
import { type Projection, type ProjectionCache, project } from './projection.js';
import { CallPromises, type Candidate, type PromiseBreak } from './promise-checks.js';
import { recordFor, sameRecord } from './record-for.js';
import { announces, EMPTY_STAGE_REPORT, type PointAt } from './run-stages.js';
import { type Listeners, safeListeners } from './safe-listeners.js';
import { blockIdentity, SentPrompts } from './sent-prompts.js';
import { UnchangedCalls } from './unchanged-calls.js';

/**
 * How many earlier user messages the first call of a turn looks up recall choices for (besides the latest): the ones
 * since the record's last block. A choice is moved into the record by the next turn's first call, so more than a
 * few are found only when many user messages arrive at once.
 */
const MAX_RECALL_LOOKUPS = 16;

/** A call's outcome with the refit of its stored state reported, when it had one. */
function withRefit(decided: Decided, facts: CallFacts, refitted: boolean): Decided {
  if (!refitted) return decided;
  const decision = refitDecision(facts.limits, decided.point.coveredCount);
  return { ...decided, stateRefitted: true, decisions: [decision, ...decided.decisions] };
}

/**
 * The framework-free engine. One call flows top-down: count (read the call's facts) -> load the stored compression
 * point -> the stages, in order (masking, semantic folds, budget folds, drops over the hard limit, recall: older
 * blocks kept or taken out, a block for a new user message; each planned by its strategy, applied by one loop)
 * -> assemble `[system + awareness] [state pair] [kept messages, a recall block before its user message]` -> save
 * once -> report. A call with nothing stored that no stage could change (proven from byte lengths, see
 * `UnchangedCalls`) skips the stages and sends the history as it came.
 * Adapters convert their prompt types in and out.
 */
export class CompressionEngine {
  readonly meter: MessageMeter;
  readonly calibration = new TokenCalibration();
  private readonly records: StateRecords;
  private readonly folds: FoldRunner;
  /** Summaries made ahead of time, when on. */
  private readonly ahead: FoldsAhead | undefined;
  private readonly analyses = new StepAnalyses();
  private readonly histories = new HistoryMemory();
  private readonly siteIndex = new ResultSiteIndex();
  private readonly cutIndex = new CutPointIndex();
  private readonly pairings = new PairingScans();
  private readonly unchangedCalls: UnchangedCalls;
  /** The boundaries each call's facts were found to have, so a call asks the segment scan once. */
  private readonly foundBoundaries = new WeakMap<CallFacts, readonly Boundary[]>();
  private readonly prefixHashes: PrefixHashes;
  private readonly segments = new SegmentBoundaries();
  private readonly termMemo = boundedCache<string, Map<string, number>>(5_000);
  private readonly resultsInUse = new ResultsInUse();
  private readonly placeholderTokens = boundedCache<string, number>(EDITED_MESSAGE_CACHE_SIZE);
  private readonly statePairs = new WeakMap<SessionState, readonly Message[]>();
  private readonly recalls: RecallStage;
  private readonly embeddings: EmbeddingCache | undefined;
  private readonly rebinds = new WeakMap<Message, { edited: Message; sent: Message }>();
  private readonly ownTools: OwnToolsSeen;
  private readonly projectionCache: ProjectionCache = {
    edits: boundedCache<string, ResultEdit | false>(EDITED_MESSAGE_CACHE_SIZE),
    messages: boundedCache<string, Message>(EDITED_MESSAGE_CACHE_SIZE),
    descriptions: new WeakMap(),
    truncations: new WeakMap(),
  };
  private readonly settings: EngineSettings;
  private readonly reporter: CallReporter;
  private readonly services: StageServices;
  private readonly listeners: Listeners;
  /** What this instance sent last per conversation: what the promise checks compare a call's prompt with. */
  private readonly sentPrompts = new SentPrompts();
  private readonly overflows = new OverflowLearning(this.calibration, (event) => this.listeners.onError(event));
  /** The options with every default in place. */
  private readonly resolved: ResolvedOptions;
  /** How a stored state is measured and fitted to a call's cap. */
  private readonly stateFit = {
    stateTokens: (state: SessionState) => this.stateTokens(state),
    fitTo: (state: SessionState, maxTokens: number) =>
      fitState(state, maxTokens, this.meter, this.settings.acknowledgement),
  };

  constructor(readonly options: CompressionOptions = {}) {
    const resolved = resolveOptions(options);
    this.resolved = resolved;
    // gpt-tokenizer, not tiktoken: the same counts on every fixture text, 5-6x faster once loaded, pure JavaScript
    // (edge runtimes, no WASM loader in bundles) and loaded before the first call rather than at import
    this.listeners = safeListeners(resolved);
    const { onError } = this.listeners;
    this.meter = new MessageMeter(
      resolved.tokenCounter
        ? guardedCounter(resolved.tokenCounter, (error) => onError({ error, fallback: 'approximate-count' }))
        : gptTokenizerCounter(),
    );
    // a store of the caller's is bounded in time and its failures read as absent records; the memory store cannot fail
    const { stateTtlMs, storeTimeoutMs, embedder, embedderTimeoutMs } = resolved;
    const onStoreError = (error: StoreError) => onError({ error, fallback: 'without-store' });
    const store = resolved.store ? guardedStore(resolved.store, storeTimeoutMs, onStoreError) : memoryStateStore();
    // index writes queued by the caller's store object: the engines of a process that share it write in turn
    this.records = new StateRecords(store, stateTtlMs, onStoreError, resolved.store ?? store);
    this.embeddings = embedder && new EmbeddingCache(embedder, embedderTimeoutMs);
    const onEmbedderError = (error: EmbedderError) => onError({ error, fallback: 'lexical' });
    this.folds = foldRunner(resolved, store, this.meter, this.embeddings, onEmbedderError);
    this.prefixHashes = new PrefixHashes(this.meter);
    this.settings = engineSettings(resolved);
    this.ahead =
      this.settings.ahead &&
      new FoldsAhead(this.folds, new FoldsAheadStore(store, stateTtlMs), this.settings.ahead, onError);
    this.ownTools = new OwnToolsSeen(this.settings.awareness);
    this.reporter = new CallReporter(this.listeners, this.meter, resolved.onCall !== undefined);
    this.recalls = new RecallStage(this.meter, DEFAULT_RECALL_ACKNOWLEDGEMENT, {
      embeddings: this.embeddings,
      onEmbedderError,
    });
    this.services = this.stageServices(resolved.cachePricing);
    const { semantic } = this.settings;
    this.unchangedCalls = new UnchangedCalls(
      this.meter,
      this.reporter,
      semantic ? (facts) => this.services.boundaries(facts, semantic) : undefined,
    );
  }

  /** What the stages work with: the settings, memos, fold runner, summaries ahead and recall of this engine. */
  private stageServices(cachePricing: StageServices['cachePricing']): StageServices {
    return {
      settings: this.settings,
      cachePricing,
      meter: this.meter,
      memos: {
        placeholderTokens: this.placeholderTokens,
        descriptions: this.projectionCache.descriptions,
        terms: this.termMemo,
      },
      folds: this.folds,
      ahead: this.ahead && {
        active: () => !this.settings.ahead?.signal?.aborted,
        find: (facts, point, projection) => (this.ahead as FoldsAhead).find(facts, point, projection),
        plan: (facts, point, cut, replaces) => (this.ahead as FoldsAhead).plan(facts, point, cut, replaces),
      },
      recall: this.recalls,
      project: (facts, point) => this.project(facts, point),
      total: (projection, point) => this.total(projection, point),
      stateTokens: (state) => this.stateTokens(state),
      quoted: (facts, from, to) => this.resultsInUse.find({ ...historyOf(facts), from, to }),
      quotes: (facts, from, readers) => this.resultsInUse.quotes({ ...historyOf(facts), from, readers }),
      // always asked with the engine's own semantic settings, so a call's boundaries depend on its facts alone
      boundaries: (facts, semantic) => {
        let found = this.foundBoundaries.get(facts);
        if (!found) {
          found = this.segments.find({
            conversation: facts.conversation,
            messages: facts.messages,
            steps: facts.steps,
            prefixHashes: facts.prefixHashes,
            options: semantic,
          });
          this.foundBoundaries.set(facts, found);
        }
        return found;
      },
    };
  }

  /**
   * The budget in tokens for a model: context window minus reserved output. `known` is the window an adapter read
   * from the model itself; the `contextWindow` option wins over it. Throws when the window is unknown.
   */
  budgetFor(modelId: string, known?: number): number {
    const contextWindow = this.windowFor(modelId, known);
    const reserve = this.resolved.reserveFor(contextWindow);
    checkReserve(contextWindow, reserve);
    return contextWindow - reserve;
  }

  /** The context window a model's calls are compressed for: the option, else the adapter's, else the table's. */
  private windowFor(modelId: string, known?: number): number {
    const contextWindow = this.resolved.contextWindow ?? known ?? lookupContextWindow(modelId);
    if (contextWindow === undefined) throw new UnknownContextWindowError({ modelId });
    return contextWindow;
  }

  /**
   * The budget of one call: `budgetFor`, or less when the provider rejected a prompt of this model and showed a
   * smaller window than the one configured.
   */
  private callBudget(modelId: string, modelKey: string, known?: number): number {
    const budget = this.budgetFor(modelId, known);
    const learned = this.overflows.window(modelKey);
    if (learned === undefined) return budget;
    return Math.max(1, Math.min(budget, learned - this.resolved.reserveFor(learned)));
  }

  /**
   * Tells the engine that the provider rejected a prompt it compressed. When the provider rejected it for its length,
   * the engine learns from its figures (its count against ours into the model's calibration; its window when smaller
   * than ours), reports a `ProviderOverflowError` to `onError` and returns it: the adapter then compresses the same
   * input again, which now fits what was learned, and retries once (`retry: true` on the retry's own rejection, whose
   * error goes to the caller). Any other error returns undefined and is never retried.
   */
  providerRejected(rejection: {
    readonly modelId: string;
    readonly modelKey?: string;
    readonly contextWindow?: number;
    readonly estimatedTokens: number | (() => number);
    readonly error: unknown;
    readonly retry: boolean;
  }): ProviderOverflowError | undefined {
    const { modelId, modelKey = modelId, estimatedTokens, error, retry } = rejection;
    const window = Math.min(
      this.windowFor(modelId, rejection.contextWindow),
      this.overflows.window(modelKey) ?? Number.POSITIVE_INFINITY,
    );
    return this.overflows.learn({
      modelKey,
      contextWindow: window,
      estimatedTokens: typeof estimatedTokens === 'function' ? estimatedTokens() : estimatedTokens,
      error,
      retry,
    });
  }

  /**
   * Learns the calibration ratio from the input tokens a provider reported for a prompt we estimated. The estimate may
   * be given as a function, read only when the provider reported a count.
   */
  recordUsage(
    modelKey: string,
    estimatedTokens: number | (() => number),
    reportedInputTokens: number | undefined,
  ): void {
    if (!reportedInputTokens || reportedInputTokens <= 0) return;
    const estimated = typeof estimatedTokens === 'function' ? estimatedTokens() : estimatedTokens;
    this.calibration.record(modelKey, estimated, reportedInputTokens);
  }

  async compress(input: CompressInput): Promise<CompressOutput> {
    await this.meter.counter.load?.();
    const facts = this.read(pairedInput(input, this.listeners.onError, this.pairings));
    this.ahead?.paced(facts);
    const found = await this.records.find({
      scope: facts.scope,
      anchor: facts.anchor,
      prefixHashes: facts.prefixHashes,
      maxThrough: facts.messages.length,
    });
    const checked =
      found && found.coveredCount < facts.messages.length
        ? checkedRecord(found, facts, this.listeners.onError)
        : undefined;
    const stored = fittedRecord(checked, facts.limits.maxStateTokens, this.stateFit);
    const unchanged = stored || input.force ? undefined : this.unchangedCalls.send(facts);
    if (unchanged) return this.sentAsItCame(facts, found, this.promisesOf(facts, found), unchanged);
    const choices = await this.recallChoices(facts, stored);
    const promises = this.promisesOf(facts, found, choices);
    const start = startingPoint(facts, stored, choices);
    const startProjection = this.project(facts, start);
    const tokensBefore = this.total(startProjection, start);
    const { decided, output, edits } = this.checked(
      facts,
      promises,
      withRefit(
        await decide(this.services, {
          facts,
          start,
          startProjection,
          force: input.force ?? false,
          tokensBefore,
          provisional: stored?.provisional,
          check: (stage, current, next, plan) =>
            this.rejected(
              promises.plan(stage, this.candidate(facts, current), this.candidate(facts, next), {
                // a call that reports a change is a compression (its stored state cut to its cap, a plan before
                // this one): what it rewrites after that is part of it
                announces: stored !== checked || announces(current.report) || announces(plan.report ?? {}),
                restores: plan.restores === true,
              }),
            ),
          unsettled: (start, end) => this.rejected(promises.unsettled(start, end)),
        }),
        facts,
        stored !== checked,
      ),
    );
    const { point, projection, lasting } = decided;
    this.reporter.failures(facts, decided, this.total(projection, point));

    await this.save(facts, { start, decided, found, stored, sent: output.measures });

    const estimatedTokens = this.total(projection, point);
    // a call that did not fold may plan the fold a later call will need, summarized after this prompt went out; not
    // from a drop a failed or waiting summary forced: a later call starts from the point before it, as stored
    if (decided.messagesFolded === 0 && !decided.failure && lasting === point) {
      await this.considerAhead(facts, point, projection, estimatedTokens);
    }
    const { decisions, event, report } = this.reporter.changes({
      facts,
      decided,
      edits,
      sent: output.measures,
      tokensBefore,
      tokensAfter: estimatedTokens,
      reusedState: stored?.state !== undefined && decided.messagesFolded === 0,
    });
    return {
      system: facts.system,
      messages: output.messages,
      estimatedTokens,
      decisions,
      deferred: decided.deferred,
      event,
      report,
    };
  }

  /**
   * Save: the record of where the call left its conversation (when it changed), the recall choice made for its latest
   * user message, and what it sent, for the next call's promise checks.
   */
  private async save(
    facts: CallFacts,
    {
      start,
      decided,
      found,
      stored,
      sent,
    }: {
      start: CompressionPoint;
      decided: Decided;
      found: StateRecord | undefined;
      stored: StateRecord | undefined;
      sent: readonly MessageMeasure[];
    },
  ): Promise<void> {
    const { point, lasting } = decided;
    const record = recordFor(facts, point, lasting === point ? undefined : lasting);
    // a call that changes nothing still stores the recall blocks it keeps for earlier user messages: the next tool
    // step of the turn no longer looks those choices up, and the blocks must stay in its prompt
    const changed = point !== start || record.recalls !== undefined || decided.restored || decided.stateRefitted;
    // a refitted state is saved even when the record is otherwise the stored one: the store still holds the uncut one
    const saved = changed && (decided.stateRefitted === true || !sameRecord(record, stored));
    if (saved) await this.records.save({ scope: facts.scope, anchor: facts.anchor, record });
    await this.saveRecallChoice(facts, start, decided);
    this.sentPrompts.remember(
      facts.conversation,
      {
        history: { length: facts.messages.length, hash: facts.prefixHashes[facts.messages.length] as number },
        hashes: sent.map((measure) => measure.hash),
        decided: { point, lasting },
        record: saved ? record : found,
        partial: !saved && partlyApplied(found, start, facts.messages.length),
        blocks: this.blocksOf(facts, point),
      },
      facts.prefixHashes,
    );
  }

  /** The promise checks of a call, against what this instance sent last for its conversation. */
  private promisesOf(
    facts: CallFacts,
    found: StateRecord | undefined,
    choices: ReadonlyMap<number, readonly string[]> = new Map(),
  ): CallPromises {
    return new CallPromises({
      facts,
      previous: this.sentPrompts.previous(facts.conversation),
      found,
      choices,
      stateTokens: (state) => this.stateTokens(state),
      blockTokens: (at, items) => this.recalls.block(facts, at, items)?.tokens ?? 0,
    });
  }

  /** A break found where a plan is accepted: thrown with `onBrokenPromise: 'throw'`, else kept for the report. */
  private rejected(found: PromiseBreak | undefined): PromiseBreak | undefined {
    if (found && this.resolved.onBrokenPromise === 'throw') throw new BrokenPromiseError(found);
    return found;
  }

  /** What the checks see of a point: its tokens, and the hashes of the prompt made there (when asked). */
  private candidate(facts: CallFacts, at: PointAt): Candidate {
    return {
      point: at.point,
      tokens: at.tokens,
      hashes: () => this.promptMessages(facts, at.point, at.projection).map(({ message }) => this.meter.hash(message)),
      editsReported: () => {
        const { edits } = this.reporter.edits(facts, at);
        return edits.redacted.count + edits.truncated.count > 0;
      },
    };
  }

  /**
   * The finished prompt of the stages' outcome, checked: when it would break continuity or bring back a recall block
   * that left, and this instance knows the prompt it sent last for the conversation, that prompt's point stands
   * instead (continued by the new messages); breaks are reported to `onError`, or thrown with
   * `onBrokenPromise: 'throw'`.
   */
  private checked(facts: CallFacts, promises: CallPromises, decided: Decided) {
    const finish = (outcome: Decided) => {
      const output = this.assemble(facts, outcome.point, outcome.projection);
      const edits = this.reporter.edits(facts, outcome);
      const breaks = promises.prompt({
        messages: output.messages,
        hashes: output.measures.map((measure) => measure.hash),
        blocks: this.blocksOf(facts, outcome.point),
        announced: edits.announced,
        openCallsAtEnd: openCallsAtEnd(facts.messages),
      });
      return { decided: outcome, output, edits, breaks };
    };
    const first = finish(decided);
    this.report(decided.broken, 'plan-rejected');
    const previous = this.sentPrompts.previous(facts.conversation)?.decided;
    const recoverable = first.breaks.some((each) => each.promise === 'continuity' || each.promise === 'recall-flip');
    if (first.breaks.length > 0) this.rejected(first.breaks[0]);
    if (!recoverable || !previous || !promises.owed()) {
      this.report(first.breaks, 'continued');
      return first;
    }
    const { point, lasting } = previous;
    const fallback = finish({ ...EMPTY_STAGE_REPORT, point, lasting, projection: this.project(facts, point) });
    const kept = fallback.breaks.every((each) => each.promise !== 'continuity' && each.promise !== 'recall-flip');
    this.report(first.breaks, kept ? 'previous-prompt' : 'continued');
    return kept ? fallback : first;
  }

  /** Tells `onError` of promise breaks, with what the engine did instead. */
  private report(breaks: readonly PromiseBreak[], fallback: 'plan-rejected' | 'previous-prompt' | 'continued') {
    for (const found of breaks) this.listeners.onError({ error: new BrokenPromiseError(found), fallback });
  }

  /** A call sent as it came: checked against the previous prompt, and remembered. */
  private sentAsItCame(
    facts: CallFacts,
    found: StateRecord | undefined,
    promises: CallPromises,
    output: CompressOutput,
  ): CompressOutput {
    const hashes = facts.messages.map((message) => this.meter.hash(message));
    const breaks = promises.continuity(hashes, false);
    if (breaks.length > 0) this.rejected(breaks[0]);
    this.report(breaks, 'continued');
    this.sentPrompts.remember(
      facts.conversation,
      {
        history: { length: facts.messages.length, hash: facts.prefixHashes[facts.messages.length] as number },
        hashes,
        decided: undefined,
        record: found,
        // a record found but not usable here (it covers or drops more than this history has) was applied not at all
        partial: found !== undefined,
        blocks: new Set(),
      },
      facts.prefixHashes,
    );
    return output;
  }

  /** The recall blocks the prompt at a point carries, by identity. */
  private blocksOf(facts: CallFacts, point: CompressionPoint): ReadonlySet<string> {
    const blocks = new Set<string>();
    for (const [at, items] of point.recalls) {
      if (at >= point.coveredCount && this.recalls.block(facts, at, items))
        blocks.add(blockIdentity(at, facts.prefixHashes, items));
    }
    return blocks;
  }

  /** Plans the fold a later call will need, when summaries are made ahead of time (see `FoldsAhead.consider`). */
  private async considerAhead(facts: CallFacts, point: CompressionPoint, projection: Projection, tokens: number) {
    await this.ahead?.consider(facts, {
      point,
      projection,
      tokens,
      stateTokens: this.stateTokens(point.state),
      maskable: () => freedUnderPressure(this.services, facts, point, projection),
    });
  }

  /**
   * Stores the recall block chosen for the latest user message when the call made a new choice; also after a drop a
   * failed summary forced: later calls send that drop again (the record's provisional drop), and with it the same
   * block, or none when the block left with its message. Not when the message left the prompt for good (folded, or
   * dropped by design): the choice stays the one made for it, which a shorter resend that keeps the message sends.
   */
  private async saveRecallChoice(
    facts: CallFacts,
    start: CompressionPoint,
    { point, lasting }: Pick<Decided, 'point' | 'lasting'>,
  ): Promise<void> {
    const latest = facts.messages.findLastIndex((message) => message.role === 'user');
    const choice = point.recalls.get(latest);
    if (choice && start.recalls.get(latest) !== choice && latest >= lasting.coveredCount) {
      await this.records.saveRecall(facts.scope, latest, facts.prefixHashes, choice);
    }
  }

  /**
   * The stored recall choices the call needs: those of the latest user message (made by an earlier call of its turn:
   * a tool step, a retry) and of the user messages before it since the record's last block (the previous turn's, or
   * several when user messages came in a row, or a user message that came with the steps after it), whose blocks this
   * call keeps or takes out (a kept block is then in the record). Looked up whatever the history ends with: the choice
   * an earlier call made for a user message is found by every later call until it is in the record. None when recall
   * is off or nothing was stored yet.
   */
  private async recallChoices(facts: CallFacts, stored: StateRecord | undefined) {
    if (facts.limits.maxRecallTokens <= 0 || !stored) return new Map<number, string[]>();
    const { messages } = facts;
    const latest = messages.findLastIndex((message) => message.role === 'user');
    const users = latest >= stored.coveredCount ? [latest] : [];
    const from = Math.max(stored.coveredCount, ...(stored.recalls ?? []).map(([at]) => at + 1));
    for (let at = latest - 1; at >= from && users.length <= MAX_RECALL_LOOKUPS; at--) {
      if (messages[at]?.role === 'user') users.push(at);
    }
    return this.records.findRecalls(facts.scope, users, facts.prefixHashes);
  }

  /** Count: the facts of the call, and the check that its latest user message fits at all. */
  private read({ transcript, modelId, modelKey = modelId, contextWindow, namespace }: CompressInput): CallFacts {
    const limits = budgetLimits(
      this.callBudget(modelId, modelKey, contextWindow),
      Math.round(this.calibration.ratio(modelKey) * 100) / 100,
      this.resolved,
      this.overflows.rejectionRatio(modelKey),
    );
    const { names: ownTools, awareness } = this.ownTools.forCall(transcript.tools);
    const facts = readCall(transcript, {
      meter: this.meter,
      limits,
      scope: [this.resolved.namespace, namespace ?? ''],
      system: awareness ? [...transcript.system, awareness] : [...transcript.system],
      masking: this.settings.masking,
      redaction: this.settings.redaction,
      redactionToolName: this.settings.redactionToolName,
      ownTools,
      reuseSeen: (conversation, messages) => this.histories.reuse(conversation, messages),
      siteIndex: this.siteIndex,
      cutPoints: (conversation, messages) => this.cutIndex.cuts(conversation, messages),
      prefixHashes: (conversation, namespace, messages) => this.prefixHashes.of(conversation, namespace, messages),
      analyzeSteps:
        this.settings.staleness || this.settings.semantic
          ? (conversation, messages, prefixHashes) =>
              this.analyses.analyze(conversation, messages, prefixHashes, transcript.system)
          : undefined,
    });
    const latestUser = facts.messages.findLastIndex((message) => message.role === 'user');
    const latest = facts.messages[latestUser];
    const latestUserTokens = (latest ? this.meter.measure(latest).tokens : 0) * limits.ratio;
    if (latestUserTokens > limits.budget) {
      throw new MessageTooLargeError({
        messageTokens: Math.round(latestUserTokens),
        budgetTokens: limits.budget,
        messageIndex: latestUser,
      });
    }
    return facts;
  }

  /**
   * Assemble: the state pair, the pinned user message when the fold point splits a turn, the kept messages. Measures
   * are taken on the engine's objects, whose measures are remembered; untouched messages go out as the caller's own.
   */
  private assemble(
    facts: CallFacts,
    point: CompressionPoint,
    projection: Projection,
  ): { messages: Message[]; measures: MessageMeasure[] } {
    const messages: Message[] = [];
    const measures: MessageMeasure[] = [];
    for (const { message, sent } of this.promptMessages(facts, point, projection)) {
      messages.push(sent);
      measures.push(this.meter.measure(message));
    }
    return { messages, measures };
  }

  /** The messages of the prompt at a point: the engine's object of each (measured) and the one sent. */
  private promptMessages(
    facts: CallFacts,
    point: CompressionPoint,
    projection: Projection,
  ): { message: Message; sent: Message }[] {
    const prompt: { message: Message; sent: Message }[] = [];
    const add = (message: Message, sent: Message = message) => prompt.push({ message, sent });
    if (point.state) for (const message of this.stateMessages(point.state)) add(message);
    const pinned = projection.layout.pinned(point.coveredCount);
    if (pinned >= 0) add(facts.messages[pinned] as Message, facts.input[pinned]);
    for (let index = point.coveredCount; index < facts.messages.length; index++) {
      const items = point.recalls.get(index);
      const block = items && this.recalls.block(facts, index, items);
      if (block) for (const synthetic of block.messages) add(synthetic);
      const message = projection.view.messages[index] as Message;
      const caller = facts.input[index] as Message;
      add(message, message === facts.messages[index] ? caller : this.rebound(message, caller));
    }
    return prompt;
  }

  /** An edited message with this call's framework objects, the same object while the caller's message is the same. */
  private rebound(edited: Message, caller: Message): Message {
    const known = this.rebinds.get(caller);
    if (known?.edited === edited) return known.sent;
    const sent = rebindOriginals(edited, caller);
    this.rebinds.set(caller, { edited, sent });
    return sent;
  }

  private project(facts: CallFacts, point: CompressionPoint): Projection {
    return project(facts, point, {
      meter: this.meter,
      keepRecent: this.settings.keepRecent,
      cache: this.projectionCache,
      recallTokens: (at, items) => this.recalls.block(facts, at, items)?.tokens ?? 0,
    });
  }

  /** Tokens of the prompt at a point. */
  private total(projection: Projection, point: CompressionPoint): number {
    return projection.layout.total(point.coveredCount, this.stateTokens(point.state));
  }

  /** The session state pair of a state, rendered once per state object. */
  private stateMessages(state: SessionState): readonly Message[] {
    let pair = this.statePairs.get(state);
    if (!pair) {
      pair = sessionStateMessages(state, this.settings.acknowledgement);
      this.statePairs.set(state, pair);
    }
    return pair;
  }

  /** Tokens of the session state pair, 0 without a state. */
  private stateTokens(state: SessionState | undefined): number {
    if (!state) return 0;
    return this.stateMessages(state).reduce((sum, message) => sum + this.meter.measure(message).tokens, 0);
  }
}

/** The engine's fold runner: its summarizer, with the fold lease and the stored waits of the engine's store. */
function foldRunner(
  resolved: ResolvedOptions,
  store: StateStore,
  meter: MessageMeter,
  embeddings: EmbeddingCache | undefined,
  onEmbedderError: (error: EmbedderError) => void,
): FoldRunner {
  const { stateTtlMs, summarizerTimeoutMs, storeTimeoutMs, embedder, embedderTimeoutMs } = resolved;
  return new FoldRunner(
    toSummarizer(resolved.summarizer),
    { timeoutMs: summarizerTimeoutMs, contextWindow: resolved.summarizerContextWindow },
    meter,
    embeddings,
    onEmbedderError,
    resolved.acknowledgement,
    foldLease(store, resolved.store !== undefined && resolved.foldLease, {
      stateTtlMs,
      summarizerTimeoutMs,
      embedderTimeoutMs: embedder ? embedderTimeoutMs : 0,
      storeTimeoutMs,
    }),
    new SummarizerRetries(store, stateTtlMs),
    { store, ttlMs: Math.min(stateTtlMs, FOLD_RESULT_TTL_MS) },
  );
}

/**
 * Whether a call applied its stored record only in part: a record a longer history made (the call is a shorter resend)
 * masks results this history keeps, or carries a drop that would leave it nothing to send.
 */
function partlyApplied(found: StateRecord | undefined, start: CompressionPoint, historyLength: number): boolean {
  if (!found) return false;
  return start.masked.size < found.masked.length || (found.provisional?.coveredCount ?? 0) >= historyLength;
}

/** Whether a history ends with an assistant message whose tool calls have no results yet (allowed at the end). */
function openCallsAtEnd(messages: readonly Message[]): boolean {
  return (
    messages.at(-1)?.role === 'assistant' && (messages.at(-1)?.parts.some((part) => part.type === 'tool-call') ?? false)
  );
}

/** What reading the results in use needs of a call's history. */
function historyOf({ conversation, messages, prefixHashes, system, sites }: CallFacts): ScanInput {
  return { conversation, messages, prefixHashes, system, sites };
}
