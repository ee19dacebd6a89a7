import { TokenCalibration } from './calibration.js';
import { lookupContextWindow } from './context-windows.js';
import type { CompressionDecision } from './decisions.js';
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
  DEFAULT_COMPRESS_AT,
  DEFAULT_COMPRESS_TO,
  DEFAULT_HARD_LIMIT,
  DEFAULT_MAX_TOOL_RESULT_SHARE,
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
import { type StateRecord, StateRecords } from './state-records.js';
import { memoryStateStore } from './state-store.js';
import { type Summarizer, toSummarizer } from './summarizer.js';
import { tiktokenCounter } from './token-counter.js';
import type { Message, Transcript } from './transcript.js';
import { truncateOversizedResults } from './truncate-tool-result.js';

/** One call to compress. */
export interface CompressInput {
  readonly transcript: Transcript;
  /** The model's id, for the context-window table. */
  readonly modelId: string;
  /** Key of the per-model calibration, e.g. `provider:modelId`. @default modelId */
  readonly modelKey?: string;
  /** Added to the engine's namespace for this call, e.g. a user or tenant id. */
  readonly namespace?: string;
  /** Fold all complete turns now, whatever the budget says. */
  readonly force?: boolean;
}

/** The compressed prompt and what was done to it. */
export interface CompressOutput {
  /** The caller's system messages followed by the awareness block: the same bytes on every call. */
  readonly system: readonly Message[];
  /** The session state pair (when a state exists), then the kept messages. */
  readonly messages: readonly Message[];
  /** Our token estimate of the whole prompt before calibration, to learn from the provider's count. */
  readonly estimatedTokens: number;
  readonly decisions: readonly CompressionDecision[];
  /** Present when this call compressed. */
  readonly event: CompressEvent | undefined;
}

/** Largest share of the budget the session state may take. */
const STATE_SHARE_OF_BUDGET = 0.25;
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
    const budget = this.budgetFor(modelId);
    const ratio = Math.round(this.calibration.ratio(modelKey) * 100) / 100;
    const limit = (share: number) => (share * budget) / ratio;
    const compressAt = limit(this.options.compressAt ?? DEFAULT_COMPRESS_AT);
    const compressTo = limit(this.options.compressTo ?? DEFAULT_COMPRESS_TO);
    const hardLimit = limit(this.options.hardLimit ?? DEFAULT_HARD_LIMIT);
    const percent = (tokens: number) => `${Math.round(((tokens * ratio) / budget) * 100)}%`;
    const maxResultTokens = this.options.maxToolResultTokens ?? Math.floor(budget * DEFAULT_MAX_TOOL_RESULT_SHARE);
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
    const latestUserTokens = latestUser >= 0 ? (measures[latestUser]?.tokens ?? 0) : 0;
    if (latestUserTokens * ratio > budget) {
      throw new MessageTooLargeError({
        messageTokens: Math.round(latestUserTokens * ratio),
        budgetTokens: budget,
        messageIndex: latestUser,
      });
    }
    const anchor = (measures[0]?.hash ?? 0).toString(36);
    const conversation = `${namespace}\u0000${anchor}`;
    const stored =
      messages.length > 1
        ? await this.records.find({ namespace, anchor, prefixHashes, maxCovered: messages.length - 1 })
        : undefined;

    const kept = truncateOversizedResults(messages, measures, maxResultTokens, this.meter);
    const layout = new FoldLayout(messages, kept.tokens, fixedTokens);
    const stateTokens = (state: SessionState | undefined) =>
      state
        ? sessionStateMessages(state, this.acknowledgement).reduce((sum, m) => sum + this.meter.measure(m).tokens, 0)
        : 0;

    let record: StateRecord | undefined = stored;
    const covered = () => record?.coveredCount ?? 0;
    const total = () => layout.total(covered(), stateTokens(record?.state));
    const save = async (next: StateRecord) => {
      record = next;
      await this.records.save({ namespace, anchor, record: next });
    };
    const decisions: CompressionDecision[] = [];
    const tokensBefore = total();
    let messagesFolded = 0;
    let messagesDropped = 0;
    let summarizerMs = 0;
    let failure: SummarizerError | undefined;

    const retryAfter = this.failures.get(conversation);
    const backingOff = retryAfter !== undefined && messages.length < retryAfter;
    if ((force || tokensBefore > compressAt) && !backingOff) {
      const from = covered();
      const previousTokens = stateTokens(record?.state);
      const growth = Math.min(budget * 0.1, layout.total(from, 0) * 0.15);
      const cut = layout.chooseCut({
        covered: from,
        stateTokens: previousTokens + growth,
        targetTokens: compressTo,
        force,
      });
      if (cut !== undefined) {
        const started = performance.now();
        try {
          const state = await this.fold(
            `${namespace}\u0000${prefixHashes[cut]}`,
            messages.slice(from, cut),
            record?.state,
          );
          summarizerMs = performance.now() - started;
          await save({
            version: 1,
            coveredCount: cut,
            prefixHash: (prefixHashes[cut] as number).toString(36),
            state: fitState(state, Math.floor((budget * STATE_SHARE_OF_BUDGET) / ratio), this.meter),
            droppedCount: record?.droppedCount ?? 0,
          });
          this.failures.delete(conversation);
          messagesFolded = cut - from;
          decisions.push({
            trigger: force ? 'forced' : 'budget',
            scope: { kind: 'messages', from, to: cut },
            confidence: 1,
            details: force
              ? `folded ${cut - from} messages on request`
              : `prompt at ${percent(tokensBefore)} of the budget passed the ${percent(compressAt)} threshold; folded ${cut - from} messages into the session state`,
          });
        } catch (error) {
          summarizerMs = performance.now() - started;
          if (!SummarizerError.isInstance(error)) throw error;
          this.failures.set(conversation, messages.length + SUMMARIZER_RETRY_AFTER_MESSAGES);
          if (this.failures.size > 1_000) this.failures.delete(this.failures.keys().next().value as string);
          failure = error;
        }
      }
    }

    if (total() > hardLimit) {
      const from = covered();
      const state = record?.state ?? EMPTY_SESSION_STATE;
      const cut = layout.chooseCut({ covered: from, stateTokens: stateTokens(state) + 64, targetTokens: compressTo });
      if (cut !== undefined) {
        const dropped = cut - from;
        await save({
          version: 1,
          coveredCount: cut,
          prefixHash: (prefixHashes[cut] as number).toString(36),
          state: {
            ...state,
            conversationSummary:
              `${state.conversationSummary} (${dropped} earlier messages could not be summarized and were left out.)`.trim(),
          },
          droppedCount: (record?.droppedCount ?? 0) + dropped,
        });
        messagesDropped = dropped;
        decisions.push({
          trigger: 'hard-limit',
          scope: { kind: 'messages', from, to: cut },
          confidence: 1,
          details: `prompt over the hard limit of ${percent(hardLimit)} of the budget; dropped the oldest ${dropped} messages without a summary`,
        });
      }
    }
    if (failure)
      this.options.onError?.({
        error: failure,
        fallback: messagesDropped > 0 ? 'dropped-oldest-turns' : 'sent-uncompressed',
      });
    if (total() > hardLimit) {
      this.options.onError?.({
        error: new ContextCompressionError({
          name: 'HardLimitError',
          message: `The prompt stays above the hard limit (${Math.round(total() * ratio)} of ${Math.round(hardLimit * ratio)} tokens) after compression: what is left cannot be folded (the current turn, the pinned user message and the state).`,
        }),
        fallback: 'over-hard-limit',
      });
    }

    const output: Message[] = [];
    if (record) output.push(...sessionStateMessages(record.state, this.acknowledgement));
    const pinned = layout.pinned(covered());
    if (pinned >= 0) output.push(messages[pinned] as Message);
    for (let index = covered(); index < messages.length; index++) output.push(kept.messages[index] as Message);
    const estimatedTokens = total();

    if (kept.truncated > 0) {
      decisions.push({
        trigger: 'oversized-result',
        scope: { kind: 'observations', toolCallIds: kept.truncatedIds },
        confidence: 1,
        details: `${kept.truncated} tool results over ${maxResultTokens} tokens shortened head-and-tail`,
      });
    }
    const previousPrompt = new Set(this.prefixes.previous(conversation)?.map((measure) => measure.hash));
    const newlyTruncated = kept.messages.some(
      (message, index) =>
        index >= covered() && message !== messages[index] && !previousPrompt.has(this.meter.measure(message).hash),
    );
    const cacheablePrefixTokens = this.prefixes.update(conversation, [
      toolsMeasure,
      ...systemMeasures,
      ...output.map((message) => this.meter.measure(message)),
    ]);
    const event: CompressEvent | undefined =
      decisions.length > 0
        ? {
            trigger: decisions[0]?.trigger ?? 'budget',
            decisions,
            tokensBefore: Math.round(tokensBefore * ratio),
            tokensAfter: Math.round(estimatedTokens * ratio),
            messagesFolded,
            messagesDropped,
            toolResultsTruncated: kept.truncated,
            summarizerMs,
            reusedState: stored !== undefined && messagesFolded === 0,
            cacheablePrefixTokens,
          }
        : undefined;
    // reported once, by the call that changed what the model sees; later calls reuse the same view silently
    if (event && (messagesFolded > 0 || messagesDropped > 0 || newlyTruncated)) this.options.onCompress?.(event);
    return { system, messages: output, estimatedTokens, decisions, event };
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
