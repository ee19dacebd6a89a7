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
  type CompressionOptions,
  checkReserve,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_STATE_TTL_MS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
  validateOptions,
} from './options.js';
import { PrefixTracker } from './prefix-tracker.js';
import { DEFAULT_AWARENESS_BLOCK, DEFAULT_STATE_ACKNOWLEDGEMENT } from './prompts.js';
import { sessionStateMessages } from './render-session-state.js';
import { runSummarizer } from './run-summarizer.js';
import { EMPTY_SESSION_STATE, type SessionState } from './session-state.js';
import { STATE_FORMAT_VERSION, StateRecords } from './state-records.js';
import { memoryStateStore } from './state-store.js';
import { type Summarizer, toSummarizer } from './summarizer.js';
import { tiktokenCounter } from './token-counter.js';
import type { Message } from './transcript.js';
import { truncateOversizedResults } from './truncate-tool-result.js';

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
  private readonly awareness: Message | undefined;

  constructor(private readonly options: CompressionOptions = {}) {
    validateOptions(options);
    this.meter = new MessageMeter(options.tokenCounter ?? tiktokenCounter());
    this.summarizer = toSummarizer(options.summarizer ?? extractiveSummarizer());
    this.records = new StateRecords(options.store ?? memoryStateStore(), options.stateTtlMs ?? DEFAULT_STATE_TTL_MS);
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
    const fixedTokens = systemMeasures.reduce((sum, measure) => sum + measure.tokens, toolsMeasure.tokens);

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
    const stored =
      messages.length > 1
        ? await this.records.find({ namespace, anchor, prefixHashes, maxCovered: messages.length - 1 })
        : undefined;
    const kept = truncateOversizedResults(messages, measures, limits.maxToolResultTokens, this.meter);
    const call: FoldCall = {
      namespace,
      anchor,
      conversation: `${namespace}\u0000${anchor}`,
      messages,
      prefixHashes,
      limits,
      layout: new FoldLayout(messages, kept.tokens, fixedTokens),
      record: stored,
      decisions: [],
      messagesFolded: 0,
      messagesDropped: 0,
      summarizerMs: 0,
      failure: undefined,
    };
    const tokensBefore = this.total(call);
    const retryAfter = this.failures.get(call.conversation);
    const backingOff = retryAfter !== undefined && messages.length < retryAfter;
    if ((force || tokensBefore > limits.compressAt) && !backingOff) await this.foldOldest(call, force, tokensBefore);
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

    const covered = call.record?.coveredCount ?? 0;
    const output: Message[] = [];
    if (call.record) output.push(...sessionStateMessages(call.record.state, this.acknowledgement));
    const pinned = call.layout.pinned(covered);
    if (pinned >= 0) output.push(messages[pinned] as Message);
    for (let index = covered; index < messages.length; index++) output.push(kept.messages[index] as Message);
    if (kept.truncated > 0) {
      call.decisions.push({
        trigger: 'oversized-result',
        scope: { kind: 'observations', toolCallIds: kept.truncatedIds },
        confidence: 1,
        details: `${kept.truncated} tool results over ${limits.maxToolResultTokens} tokens shortened head-and-tail`,
      });
    }
    const previousPrompt = new Set(this.prefixes.previous(call.conversation)?.map((measure) => measure.hash));
    const newlyTruncated = kept.messages.some(
      (message, index) =>
        index >= covered && message !== messages[index] && !previousPrompt.has(this.meter.measure(message).hash),
    );
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
            toolResultsTruncated: kept.truncated,
            summarizerMs: call.summarizerMs,
            reusedState: stored !== undefined && call.messagesFolded === 0,
            cacheablePrefixTokens,
          }
        : undefined;
    // reported once, by the call that changed what the model sees; later calls reuse the same view silently
    if (event && (call.messagesFolded > 0 || call.messagesDropped > 0 || newlyTruncated)) {
      this.options.onCompress?.(event);
    }
    return { system, messages: output, estimatedTokens, decisions: call.decisions, event };
  }

  /** Folds the oldest kept messages into the session state, down to the target share of the budget. */
  private async foldOldest(call: FoldCall, force: boolean, tokensBefore: number): Promise<void> {
    const { limits, layout, record } = call;
    const from = record?.coveredCount ?? 0;
    const growth = Math.min(limits.budget * 0.1, layout.total(from, 0) * 0.15);
    const stateTokens = this.stateTokens(record?.state) + growth;
    const cut = layout.chooseCut({ covered: from, stateTokens, targetTokens: limits.compressTo, force });
    if (cut === undefined) return;
    const started = performance.now();
    try {
      const key = `${call.namespace}\u0000${call.prefixHashes[cut]}`;
      const state = await this.fold(key, call.messages.slice(from, cut), record?.state);
      call.summarizerMs = performance.now() - started;
      await this.save(call, cut, fitState(state, limits.maxStateTokens, this.meter), record?.droppedCount ?? 0);
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
    const from = call.record?.coveredCount ?? 0;
    const state = call.record?.state ?? EMPTY_SESSION_STATE;
    const stateTokens = this.stateTokens(state) + 64;
    const cut = call.layout.chooseCut({ covered: from, stateTokens, targetTokens: call.limits.compressTo });
    if (cut === undefined) return;
    const dropped = cut - from;
    const note = `(${dropped} earlier messages could not be summarized and were left out.)`;
    const droppedState = { ...state, conversationSummary: `${state.conversationSummary} ${note}`.trim() };
    await this.save(call, cut, droppedState, (call.record?.droppedCount ?? 0) + dropped);
    call.messagesDropped = dropped;
    call.decisions.push({
      trigger: 'hard-limit',
      scope: { kind: 'messages', from, to: cut },
      confidence: 1,
      details: `prompt over the hard limit of ${call.limits.percent(call.limits.hardLimit)} of the budget; dropped the oldest ${dropped} messages without a summary`,
    });
  }

  private async save(call: FoldCall, coveredCount: number, state: SessionState, droppedCount: number) {
    const prefixHash = (call.prefixHashes[coveredCount] as number).toString(36);
    call.record = { version: STATE_FORMAT_VERSION, coveredCount, prefixHash, state, droppedCount };
    await this.records.save({ namespace: call.namespace, anchor: call.anchor, record: call.record });
  }

  /** Tokens of the prompt as it stands in this call. */
  private total(call: FoldCall): number {
    return call.layout.total(call.record?.coveredCount ?? 0, this.stateTokens(call.record?.state));
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
