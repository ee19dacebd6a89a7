import { TokenCalibration } from '../counting/calibration.js';
import { gptTokenizerCounter } from '../counting/gpt-tokenizer-counter.js';
import { hash53, hashChain } from '../counting/hash.js';
import { MessageMeter } from '../counting/message-meter.js';
import { PrefixTracker } from '../counting/prefix-tracker.js';
import { ContextCompressionError, MessageTooLargeError, UnknownContextWindowError } from '../errors.js';
import { budgetLimits } from '../options/budget.js';
import { lookupContextWindow } from '../options/context-windows.js';
import {
  type CompressionOptions,
  checkReserve,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_STATE_TTL_MS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
  validateOptions,
} from '../options/options.js';
import { DEFAULT_AWARENESS_BLOCK, DEFAULT_STATE_ACKNOWLEDGEMENT } from '../options/prompts.js';
import { sessionStateMessages } from '../session-state/render-session-state.js';
import type { SessionState } from '../session-state/session-state.js';
import { StepAnalyses } from '../signals/step-analyses.js';
import { recordFor } from '../store/record-for.js';
import { StateRecords } from '../store/state-records.js';
import { memoryStateStore } from '../store/state-store.js';
import {
  DEFAULT_MASKING_OPTIONS,
  type MaskingOptions,
  maskableKeys,
  type ResultEdit,
  resultSites,
} from '../strategies/observation-masking.js';
import { collectRedactions, DEFAULT_REDACTION_TOOL_NAME, type RedactionRules } from '../strategies/redaction.js';
import { extractiveSummarizer } from '../summarizers/extractive-summarizer.js';
import { runSummarizer } from '../summarizers/run-summarizer.js';
import { type Summarizer, toSummarizer } from '../summarizers/summarizer.js';
import type { Message } from '../transcript/transcript.js';
import { DEFAULT_SEMANTIC_TRIGGER_OPTIONS, type SemanticTriggerOptions } from '../triggers/semantic-triggers.js';
import type { StalenessOptions } from '../triggers/staleness.js';
import { FoldLayout } from '../view/fold-layout.js';
import { buildView } from '../view/prompt-view.js';
import type { CompressInput, CompressOutput, FoldCall } from './compress-call.js';
import { compressEvent } from './compress-event.js';
import { dropOldest, foldFinishedSegment, foldOldest, maskOld, type StepContext } from './compression-steps.js';
import { reportEdits } from './report-edits.js';

/**
 * The framework-free engine: counts, loads the stored state for this history, decides, folds, and assembles
 * `[system + awareness] [state pair] [kept messages]`. Adapters convert their prompt types in and out.
 */
export class CompressionEngine implements StepContext {
  readonly meter: MessageMeter;
  readonly calibration = new TokenCalibration();
  private readonly summarizer: Summarizer;
  private readonly records: StateRecords;
  private readonly prefixes = new PrefixTracker();
  private readonly inFlight = new Map<string, Promise<SessionState>>();
  /** Conversations whose summarizer failed, with the message count from which it is tried again. */
  readonly failures = new Map<string, number>();
  readonly placeholderTokens = new Map<string, number>();
  private readonly stateTokenCache = new WeakMap<SessionState, number>();
  private readonly editCache = { edits: new Map<string, ResultEdit | null>(), messages: new Map<string, Message>() };
  private readonly awareness: Message | undefined;
  readonly masking: Required<MaskingOptions> | undefined;
  readonly staleness: StalenessOptions | undefined;
  readonly semantic: SemanticTriggerOptions | undefined;
  private readonly analyses = new StepAnalyses();
  private readonly redactionRules: RedactionRules | undefined;

  constructor(readonly options: CompressionOptions = {}) {
    validateOptions(options);
    // gpt-tokenizer, not tiktoken: the same counts on every fixture text, 5-6x faster once loaded, pure JavaScript
    // (edge runtimes, no WASM loader in bundles) and loaded before the first call rather than at import
    this.meter = new MessageMeter(options.tokenCounter ?? gptTokenizerCounter());
    this.summarizer = toSummarizer(options.summarizer ?? extractiveSummarizer());
    this.records = new StateRecords(options.store ?? memoryStateStore(), options.stateTtlMs ?? DEFAULT_STATE_TTL_MS);
    this.masking = options.masking === false ? undefined : { ...DEFAULT_MASKING_OPTIONS, ...options.masking };
    const triggers = options.triggers ?? {};
    this.staleness = triggers.staleness === false || !this.masking ? undefined : { ...triggers.staleness };
    this.semantic =
      triggers.semantic === false || options.folding === false
        ? undefined
        : { ...DEFAULT_SEMANTIC_TRIGGER_OPTIONS, ...triggers.semantic };
    this.redactionRules =
      options.redaction === false
        ? undefined
        : {
            toolName: options.redaction?.toolName ?? DEFAULT_REDACTION_TOOL_NAME,
            excludeTools: this.masking?.excludeTools,
          };
    const awarenessBlock = options.awarenessBlock ?? DEFAULT_AWARENESS_BLOCK;
    this.awareness = awarenessBlock
      ? { role: 'system', parts: [{ type: 'text', text: awarenessBlock }], synthetic: 'awareness' }
      : undefined;
  }

  /**
   * The budget in tokens for a model: context window minus reserved output. `known` is the window an adapter read
   * from the model itself; the `contextWindow` option wins over it. Throws when the window is unknown.
   */
  budgetFor(modelId: string, known?: number): number {
    const contextWindow = this.options.contextWindow ?? known ?? lookupContextWindow(modelId);
    if (contextWindow === undefined) throw new UnknownContextWindowError({ modelId });
    const reserve = this.options.reserveOutputTokens ?? Math.min(DEFAULT_RESERVE_OUTPUT_TOKENS, contextWindow / 4);
    checkReserve(contextWindow, reserve);
    return contextWindow - reserve;
  }

  /** Learns the calibration ratio from the input tokens a provider reported for a prompt we estimated. */
  recordUsage(modelKey: string, estimatedTokens: number, reportedInputTokens: number | undefined): void {
    this.calibration.record(modelKey, estimatedTokens, reportedInputTokens);
  }

  async compress({
    transcript,
    modelId,
    modelKey = modelId,
    contextWindow,
    namespace: callNamespace,
    force = false,
  }: CompressInput): Promise<CompressOutput> {
    await this.meter.counter.load?.();
    const limits = budgetLimits(
      this.budgetFor(modelId, contextWindow),
      Math.round(this.calibration.ratio(modelKey) * 100) / 100,
      this.options,
    );
    const namespace = [this.options.namespace ?? '', callNamespace ?? ''].join('\u0000');
    const system = this.awareness ? [...transcript.system, this.awareness] : [...transcript.system];
    const messages = transcript.messages;
    const toolsJson = transcript.tools.length > 0 ? JSON.stringify(transcript.tools) : '';
    const toolsMeasure = { hash: hash53(toolsJson), tokens: this.meter.countText(toolsJson) };
    const systemMeasures = system.map((message) => this.meter.measure(message));
    const measures = messages.map((message) => this.meter.measure(message));
    const prefixHashes = [hash53(namespace)];
    for (const measure of measures) prefixHashes.push(hashChain(prefixHashes.at(-1) as number, measure.hash));
    const latestUser = messages.findLastIndex((message) => message.role === 'user');
    const latestUserTokens = (measures[latestUser]?.tokens ?? 0) * limits.ratio;
    if (latestUserTokens > limits.budget) {
      throw new MessageTooLargeError({
        messageTokens: Math.round(latestUserTokens),
        budgetTokens: limits.budget,
        messageIndex: latestUser,
      });
    }
    const anchor = (measures[0]?.hash ?? 0).toString(36);
    const found = await this.records.find({ namespace, anchor, prefixHashes, maxThrough: messages.length });
    const stored = found && found.coveredCount < messages.length ? found : undefined;
    const sites = resultSites(messages, this.meter);
    const replayed = this.redactionRules
      ? collectRedactions(messages, this.redactionRules)
      : { reasons: new Map<string, string>(), latest: new Set<string>() };
    const redactionToolName = this.redactionRules?.toolName ?? DEFAULT_REDACTION_TOOL_NAME;
    const maskable = this.masking ? maskableKeys(messages, sites, this.masking, redactionToolName) : new Set<string>();
    const call = {
      namespace,
      anchor,
      conversation: `${namespace}\u0000${anchor}`,
      messages,
      prefixHashes,
      limits,
      fixedTokens: systemMeasures.reduce((sum, measure) => sum + measure.tokens, toolsMeasure.tokens),
      sites,
      siteByKey: new Map(sites.map((site) => [site.key, site])),
      maskable,
      redactions: replayed.reasons,
      coveredCount: stored?.coveredCount ?? 0,
      state: stored?.state,
      droppedCount: stored?.droppedCount ?? 0,
      // a record found for a longer history may mask results this one does not allow (a retry, a fork)
      masked: new Set(stored?.masked.filter((key) => maskable.has(key) || stored.maskReasons?.[key] !== undefined)),
      maskReasons: new Map(Object.entries(stored?.maskReasons ?? {})),
      staleThrough: stored?.maskReasons ? stored.through : 0,
      minThrough: stored?.through ?? 0,
      steps:
        this.staleness || this.semantic
          ? this.analyses.analyze(`${namespace}\u0000${anchor}`, messages, prefixHashes)
          : [],
      newlyMasked: { count: 0, tokensFreed: 0 },
      decisions: [],
      messagesFolded: 0,
      messagesDropped: 0,
      summarizerMs: 0,
      failure: undefined,
    } as unknown as FoldCall;
    this.rebuild(call);
    const tokensBefore = this.total(call);

    const pressure = force || tokensBefore > limits.compressAt;
    if (this.masking) await maskOld(this, call, pressure, force);
    const retryAfter = this.failures.get(call.conversation);
    const backingOff = retryAfter !== undefined && messages.length < retryAfter;
    // under pressure the cache breaks anyway: go down to the target in this one break, not just below the threshold
    const foldAbove = pressure ? limits.compressTo : limits.compressAt;
    const folding = this.options.folding !== false;
    if (this.semantic && folding && !pressure && !backingOff) await foldFinishedSegment(this, call);
    if (folding && (force || this.total(call) > foldAbove) && !backingOff) {
      await foldOldest(this, call, force, tokensBefore);
    }
    if (this.total(call) > limits.hardLimit) await dropOldest(this, call);
    if (call.failure) {
      const fallback = call.messagesDropped > 0 ? 'dropped-oldest-turns' : 'sent-uncompressed';
      this.options.onError?.({ error: call.failure, fallback });
    }
    if (this.total(call) > limits.hardLimit) {
      this.options.onError?.({
        error: new ContextCompressionError({
          name: 'HardLimitError',
          message: `The prompt stays above the hard limit (${Math.round(this.total(call) * limits.ratio)} of ${Math.round(limits.hardLimit * limits.ratio)} tokens) after compression: what is left cannot be folded (the current turn, the pinned user message and the state).`,
        }),
        fallback: 'over-hard-limit',
      });
    }

    const covered = call.coveredCount;
    const output: Message[] = [];
    if (call.state) output.push(...sessionStateMessages(call.state, this.acknowledgement));
    const pinned = call.layout.pinned(covered);
    if (pinned >= 0) output.push(messages[pinned] as Message);
    for (let index = covered; index < messages.length; index++) output.push(call.view.messages[index] as Message);
    const { truncated, redacted } = reportEdits({
      call,
      latestRedactions: replayed.latest,
      previousPrompt: this.prefixes.previous(call.conversation),
      meter: this.meter,
    });
    const cacheablePrefixTokens = this.prefixes.update(call.conversation, [
      toolsMeasure,
      ...systemMeasures,
      ...output.map((message) => this.meter.measure(message)),
    ]);
    const estimatedTokens = this.total(call);
    const event = compressEvent(call, {
      tokensBefore,
      estimatedTokens,
      redacted,
      reusedState: stored?.state !== undefined && call.messagesFolded === 0,
      cacheablePrefixTokens,
    });
    // reported once, by the call that changed what the model sees; later calls reuse the same view silently
    const changed = call.newlyMasked.count + redacted.count + truncated > 0;
    if (event && (call.messagesFolded > 0 || call.messagesDropped > 0 || changed)) this.options.onCompress?.(event);
    return { system, messages: output, estimatedTokens, decisions: call.decisions, event };
  }

  /** Rebuilds the view and the layout after the fold point or the masked set changed. */
  rebuild(call: FoldCall): void {
    call.view = buildView({
      messages: call.messages,
      from: call.coveredCount,
      sites: call.sites,
      masked: call.masked,
      redactions: call.redactions,
      maskReasons: call.maskReasons,
      keepRecent: this.masking ? this.masking.keepRecent : DEFAULT_MASKING_OPTIONS.keepRecent,
      maxToolResultTokens: call.limits.maxToolResultTokens,
      meter: this.meter,
      cache: this.editCache,
    });
    call.layout = new FoldLayout(call.messages, call.view.tokens, call.fixedTokens);
  }

  /**
   * Stores the call's compression point under the shortest prefix that determines it (the fold point, or the last
   * masked result), so a repeated, extended or regenerated request finds it.
   */
  async save(call: FoldCall): Promise<void> {
    await this.records.save({ namespace: call.namespace, anchor: call.anchor, record: recordFor(call) });
  }

  /** Tokens of the prompt as it stands in this call. */
  total(call: FoldCall): number {
    return call.layout.total(call.coveredCount, this.stateTokens(call.state));
  }

  /** Tokens of the session state pair, 0 without a state; rendered and counted once per state object. */
  stateTokens(state: SessionState | undefined): number {
    if (!state) return 0;
    let tokens = this.stateTokenCache.get(state);
    if (tokens === undefined) {
      const pair = sessionStateMessages(state, this.acknowledgement);
      tokens = pair.reduce((sum, message) => sum + this.meter.measure(message).tokens, 0);
      this.stateTokenCache.set(state, tokens);
    }
    return tokens;
  }

  private get acknowledgement(): string {
    return this.options.acknowledgement ?? DEFAULT_STATE_ACKNOWLEDGEMENT;
  }

  /** Runs the summarizer once per fold point, even when concurrent calls of one conversation ask for it together. */
  fold(key: string, messages: readonly Message[], previous: SessionState | undefined): Promise<SessionState> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const promise = runSummarizer(this.summarizer, {
      messages,
      previous,
      timeoutMs: this.options.summarizerTimeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS,
    }).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }
}
