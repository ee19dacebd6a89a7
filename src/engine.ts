import { budgetLimits } from './budget.js';
import { TokenCalibration } from './calibration.js';
import type { CompressInput, CompressOutput, FoldCall } from './compress-call.js';
import { lookupContextWindow } from './context-windows.js';
import { ContextCompressionError, MessageTooLargeError, SummarizerError, UnknownContextWindowError } from './errors.js';
import type { CompressEvent } from './events.js';
import { extractiveSummarizer } from './extractive-summarizer.js';
import { fitState } from './fit-state.js';
import { FoldLayout } from './fold-layout.js';
import { hash53, hashChain } from './hash.js';
import { MessageMeter } from './message-meter.js';
import {
  applyResultEdits,
  DEFAULT_MASKING_OPTIONS,
  forEachResult,
  type MaskingOptions,
  type MaskingStep,
  maskableKeys,
  planMaskingStep,
  type ResultEdit,
  resultEdits,
  resultSites,
} from './observation-masking.js';
import {
  type CompressionOptions,
  checkReserve,
  DEFAULT_CACHE_PRICING,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_STATE_TTL_MS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
  validateOptions,
} from './options.js';
import { PrefixTracker } from './prefix-tracker.js';
import { buildView, newlyTruncated } from './prompt-view.js';
import { DEFAULT_AWARENESS_BLOCK, DEFAULT_STATE_ACKNOWLEDGEMENT } from './prompts.js';
import { collectRedactions, DEFAULT_REDACTION_TOOL_NAME, type RedactionRules } from './redaction.js';
import { sessionStateMessages } from './render-session-state.js';
import { runSummarizer } from './run-summarizer.js';
import { EMPTY_SESSION_STATE, type SessionState } from './session-state.js';
import { STATE_FORMAT_VERSION, type StateRecord, StateRecords } from './state-records.js';
import { memoryStateStore } from './state-store.js';
import { type Summarizer, toSummarizer } from './summarizer.js';
import { tiktokenCounter } from './token-counter.js';
import type { Message } from './transcript.js';

/**
 * A masking step below the budget threshold must promise savings this many times its cache-break cost: the calls
 * still to come are a guess (as many as were made so far), and a wrong guess costs more than a missed saving.
 */
export const MASKING_PAYOFF_MARGIN = 2;

/** After a summarizer failure, a conversation waits this many new messages before the summarizer is tried again. */
export const SUMMARIZER_RETRY_AFTER_MESSAGES = 4;

/**
 * The framework-free engine: counts, loads the stored state for this history, decides, folds, and assembles
 * `[system + awareness] [state pair] [kept messages]`. Adapters convert their prompt types in and out.
 */
export class CompressionEngine {
  readonly meter: MessageMeter;
  readonly calibration = new TokenCalibration();
  private readonly summarizer: Summarizer;
  private readonly records: StateRecords;
  private readonly prefixes = new PrefixTracker();
  private readonly inFlight = new Map<string, Promise<SessionState>>();
  /** Conversations whose summarizer failed, with the message count from which it is tried again. */
  private readonly failures = new Map<string, number>();
  private readonly stateTokenCache = new WeakMap<SessionState, number>();
  private readonly editCache = { edits: new Map<string, ResultEdit | null>(), messages: new Map<string, Message>() };
  private readonly awareness: Message | undefined;
  private readonly masking: Required<MaskingOptions> | undefined;
  private readonly redactionRules: RedactionRules | undefined;

  constructor(private readonly options: CompressionOptions = {}) {
    validateOptions(options);
    this.meter = new MessageMeter(options.tokenCounter ?? tiktokenCounter());
    this.summarizer = toSummarizer(options.summarizer ?? extractiveSummarizer());
    this.records = new StateRecords(options.store ?? memoryStateStore(), options.stateTtlMs ?? DEFAULT_STATE_TTL_MS);
    this.masking = options.masking === false ? undefined : { ...DEFAULT_MASKING_OPTIONS, ...options.masking };
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

  /** The budget in tokens for a model: context window minus reserved output. Throws when the window is unknown. */
  budgetFor(modelId: string): number {
    const contextWindow = this.options.contextWindow ?? lookupContextWindow(modelId);
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
    namespace: callNamespace,
    force = false,
  }: CompressInput): Promise<CompressOutput> {
    const limits = budgetLimits(
      this.budgetFor(modelId),
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
      masked: new Set(stored?.masked.filter((key) => maskable.has(key))),
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
    if (this.masking) await this.maskOld(call, pressure, force);
    const retryAfter = this.failures.get(call.conversation);
    const backingOff = retryAfter !== undefined && messages.length < retryAfter;
    // under pressure the cache breaks anyway: go down to the target in this one break, not just below the threshold
    const foldAbove = pressure ? limits.compressTo : limits.compressAt;
    const folding = this.options.folding !== false;
    if (folding && (force || this.total(call) > foldAbove) && !backingOff) {
      await this.foldOldest(call, force, tokensBefore);
    }
    if (this.total(call) > limits.hardLimit) await this.dropOldest(call);
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
    if (call.view.truncatedIds.length > 0) {
      call.decisions.push({
        trigger: 'oversized-result',
        scope: { kind: 'observations', toolCallIds: call.view.truncatedIds },
        confidence: 1,
        details: `${call.view.truncatedIds.length} tool results over ${limits.maxToolResultTokens} tokens shortened head-and-tail`,
      });
    }
    const edited = call.view.truncatedIds.length > 0 || replayed.latest.size > 0;
    const previousHashes = edited
      ? new Set(this.prefixes.previous(call.conversation)?.map((measure) => measure.hash))
      : new Set<number>();
    const truncated =
      call.view.truncatedIds.length > 0
        ? newlyTruncated({ view: call.view, messages, from: covered, previousHashes, meter: this.meter })
        : 0;
    // a redaction is news in the step after its directive, unless this instance already sent that view (a retry)
    const redacted = { count: 0, tokensFreed: 0 };
    forEachResult(replayed.latest.size > 0 ? call.view.messages : [], (part, key, messageIndex) => {
      if (messageIndex < covered || part.edit !== 'redacted' || !replayed.latest.has(key)) return;
      if (previousHashes.has(this.meter.measure(call.view.messages[messageIndex] as Message).hash)) return;
      redacted.count++;
      redacted.tokensFreed += Math.max(0, (call.siteByKey.get(key)?.tokens ?? 0) - this.meter.countText(part.output));
    });
    if (redacted.count > 0) {
      const keys = [...replayed.latest].filter((key) => (call.siteByKey.get(key)?.messageIndex ?? -1) >= covered);
      call.decisions.push({
        trigger: 'redaction',
        scope: { kind: 'observations', toolCallIds: keys.map((key) => call.siteByKey.get(key)?.callId ?? key) },
        confidence: 1,
        details: `the model redacted ${redacted.count} tool results, freeing ${redacted.tokensFreed} tokens`,
      });
    }
    const cacheablePrefixTokens = this.prefixes.update(call.conversation, [
      toolsMeasure,
      ...systemMeasures,
      ...output.map((message) => this.meter.measure(message)),
    ]);
    const estimatedTokens = this.total(call);
    const event: CompressEvent | undefined =
      call.decisions.length > 0
        ? {
            trigger: call.decisions[0]?.trigger ?? 'budget',
            decisions: call.decisions,
            tokensBefore: Math.round(tokensBefore * limits.ratio),
            tokensAfter: Math.round(estimatedTokens * limits.ratio),
            messagesFolded: call.messagesFolded,
            messagesDropped: call.messagesDropped,
            observationsMasked: call.newlyMasked,
            observationsRedacted: redacted,
            toolResultsTruncated: call.view.truncatedIds.length,
            summarizerMs: call.summarizerMs,
            reusedState: stored?.state !== undefined && call.messagesFolded === 0,
            cacheablePrefixTokens,
          }
        : undefined;
    // reported once, by the call that changed what the model sees; later calls reuse the same view silently
    const changed = call.newlyMasked.count + redacted.count + truncated > 0;
    if (event && (call.messagesFolded > 0 || call.messagesDropped > 0 || changed)) this.options.onCompress?.(event);
    return { system, messages: output, estimatedTokens, decisions: call.decisions, event };
  }

  /**
   * One batch of observation masking. Under budget pressure it clears every candidate; otherwise only when it frees
   * at least `clearAtLeast` tokens and the expected cache-read savings over the coming calls exceed the one-time
   * cost of rewriting the prompt after the first masked result.
   */
  private async maskOld(call: FoldCall, pressure: boolean, force: boolean): Promise<void> {
    const masking = this.masking as Required<MaskingOptions>;
    const hidden = new Set([...call.masked, ...call.redactions.keys()]);
    const { read, write } = { ...DEFAULT_CACHE_PRICING, ...this.options.cachePricing };
    const calls = call.messages.filter((message) => message.role === 'assistant').length;
    const expectedCalls = Math.min(50, Math.max(4, calls));
    const economics = (step: MaskingStep) => {
      let after = 0;
      for (let index = step.firstMessageIndex; index < call.view.tokens.length; index++) {
        after += call.view.tokens[index] as number;
      }
      const rewritten = Math.max(0, after - step.freed);
      return { rewritten, savings: read * step.freed * expectedCalls, breakCost: (write - read) * rewritten };
    };
    const pays = (step: MaskingStep) => {
      const { savings, breakCost } = economics(step);
      return step.freed >= masking.clearAtLeast && savings >= MASKING_PAYOFF_MARGIN * breakCost;
    };
    const step = planMaskingStep({
      sites: call.sites,
      covered: call.coveredCount,
      hidden,
      maskable: call.maskable,
      keepRecent: masking.keepRecent,
      meter: this.meter,
      worthPlanning: (bound) => pressure || pays(bound),
    });
    if (step.keys.length === 0 || (!pressure && !pays(step))) return;
    const { rewritten, savings, breakCost } = economics(step);
    for (const key of step.keys) call.masked.add(key);
    call.newlyMasked = { count: step.keys.length, tokensFreed: step.freed };
    this.rebuild(call);
    await this.save(call);
    const arithmetic = `frees ${step.freed} tokens; expected savings ${Math.round(savings)} (${read}x over ~${expectedCalls} calls) vs. a one-time cache rewrite costing ${Math.round(breakCost)} (${rewritten} tokens at +${Math.round((write - read) * 100) / 100}x)`;
    call.decisions.push({
      trigger: force ? 'forced' : pressure ? 'budget' : 'turns',
      scope: { kind: 'observations', toolCallIds: step.keys.map((key) => call.siteByKey.get(key)?.callId ?? key) },
      confidence: 1,
      details: `masked ${step.keys.length} tool results older than the ${masking.keepRecent} most recent: ${arithmetic}`,
    });
  }

  /** Folds the oldest kept messages into the session state, down to the target share of the budget. */
  private async foldOldest(call: FoldCall, force: boolean, tokensBefore: number): Promise<void> {
    const { limits, layout } = call;
    const from = call.coveredCount;
    const growth = Math.min(limits.budget * 0.1, layout.total(from, 0) * 0.15);
    const stateTokens = this.stateTokens(call.state) + growth;
    const cut = layout.chooseCut({ covered: from, stateTokens, targetTokens: limits.compressTo, force });
    if (cut === undefined) return;
    const started = performance.now();
    try {
      const key = `${call.namespace}\u0000${call.prefixHashes[cut]}`;
      const redactedOnly = resultEdits({
        sites: call.sites,
        masked: new Set(),
        redactions: call.redactions,
        keepRecent: 0,
        meter: this.meter,
      });
      const folding = applyResultEdits(call.messages.slice(from, cut), redactedOnly);
      const state = await this.fold(key, folding, call.state);
      call.summarizerMs = performance.now() - started;
      call.state = fitState(state, limits.maxStateTokens, this.meter);
      call.coveredCount = cut;
      this.rebuild(call);
      await this.save(call);
      this.failures.delete(call.conversation);
      call.messagesFolded = cut - from;
      call.decisions.push({
        trigger: force ? 'forced' : 'budget',
        scope: { kind: 'messages', from, to: cut },
        confidence: 1,
        details: force
          ? `folded ${cut - from} messages on request`
          : `prompt at ${limits.percent(tokensBefore)} of the budget passed the ${limits.percent(limits.compressAt)} threshold; folded ${cut - from} messages into the session state`,
      });
    } catch (error) {
      call.summarizerMs = performance.now() - started;
      if (!SummarizerError.isInstance(error)) throw error;
      this.failures.set(call.conversation, call.messages.length + SUMMARIZER_RETRY_AFTER_MESSAGES);
      if (this.failures.size > 1_000) this.failures.delete(this.failures.keys().next().value as string);
      call.failure = error;
    }
  }

  /** The last resort over the hard limit: the oldest whole turns leave without a summary, down to the target. */
  private async dropOldest(call: FoldCall): Promise<void> {
    const from = call.coveredCount;
    const state = call.state ?? EMPTY_SESSION_STATE;
    const stateTokens = this.stateTokens(state) + 64;
    const cut = call.layout.chooseCut({ covered: from, stateTokens, targetTokens: call.limits.compressTo });
    if (cut === undefined) return;
    const dropped = cut - from;
    const note = `(${dropped} earlier messages could not be summarized and were left out.)`;
    call.state = { ...state, conversationSummary: `${state.conversationSummary} ${note}`.trim() };
    call.coveredCount = cut;
    call.droppedCount += dropped;
    this.rebuild(call);
    await this.save(call);
    call.messagesDropped = dropped;
    call.decisions.push({
      trigger: 'hard-limit',
      scope: { kind: 'messages', from, to: cut },
      confidence: 1,
      details: `prompt over the hard limit of ${call.limits.percent(call.limits.hardLimit)} of the budget; dropped the oldest ${dropped} messages without a summary`,
    });
  }

  /** Rebuilds the view and the layout after the fold point or the masked set changed. */
  private rebuild(call: FoldCall): void {
    call.view = buildView({
      messages: call.messages,
      from: call.coveredCount,
      sites: call.sites,
      masked: call.masked,
      redactions: call.redactions,
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
  private async save(call: FoldCall): Promise<void> {
    const masked = [...call.masked].filter((key) => (call.siteByKey.get(key)?.messageIndex ?? -1) >= call.coveredCount);
    const through = masked.reduce(
      (deepest, key) => Math.max(deepest, (call.siteByKey.get(key)?.messageIndex ?? 0) + 1),
      call.coveredCount,
    );
    const record: StateRecord = {
      version: STATE_FORMAT_VERSION,
      through,
      prefixHash: (call.prefixHashes[through] as number).toString(36),
      coveredCount: call.coveredCount,
      ...(call.state ? { state: call.state } : {}),
      droppedCount: call.droppedCount,
      masked,
    };
    await this.records.save({ namespace: call.namespace, anchor: call.anchor, record });
  }

  /** Tokens of the prompt as it stands in this call. */
  private total(call: FoldCall): number {
    return call.layout.total(call.coveredCount, this.stateTokens(call.state));
  }

  /** Tokens of the session state pair, 0 without a state; rendered and counted once per state object. */
  private stateTokens(state: SessionState | undefined): number {
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
  private fold(key: string, messages: readonly Message[], previous: SessionState | undefined): Promise<SessionState> {
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
