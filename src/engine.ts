import { TokenCalibration } from './calibration.js';
import { lookupContextWindow } from './context-windows.js';
import type { CompressionDecision } from './decisions.js';
import { ContextCompressionError, MessageTooLargeError, SummarizerError, UnknownContextWindowError } from './errors.js';
import type { CompressEvent } from './events.js';
import { extractiveSummarizer } from './extractive-summarizer.js';
import { fitState } from './fit-state.js';
import { hash53, hashChain } from './hash.js';
import { MessageMeter } from './message-meter.js';
import {
  type CompressionOptions,
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
import { cutPoints } from './tool-pairs.js';
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

const STATE_SHARE_OF_BUDGET = 0.25;

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
    let latestUser = -1;
    for (let index = messages.length - 1; index >= 0 && latestUser < 0; index--) {
      if (messages[index]?.role === 'user') latestUser = index;
    }
    const latestUserTokens = latestUser >= 0 ? (measures[latestUser]?.tokens ?? 0) : 0;
    if (latestUserTokens > budget) {
      throw new MessageTooLargeError({
        messageTokens: latestUserTokens,
        budgetTokens: budget,
        messageIndex: latestUser,
      });
    }
    const anchor = (measures[0]?.hash ?? 0).toString(36);
    const stored =
      messages.length > 1
        ? await this.records.find({ namespace, anchor, prefixHashes, maxCovered: messages.length - 1 })
        : undefined;

    const kept = truncateOversizedResults(messages, measures, maxResultTokens, this.meter);
    const suffix = new Array<number>(messages.length + 1).fill(0);
    for (let index = messages.length - 1; index >= 0; index--) {
      suffix[index] = (suffix[index + 1] as number) + (kept.tokens[index] as number);
    }
    const pairTokens = (state: SessionState | undefined) =>
      state
        ? sessionStateMessages(state, this.acknowledgement).reduce((sum, m) => sum + this.meter.measure(m).tokens, 0)
        : 0;
    const pinnedTokens = (covered: number) => (latestUser >= 0 && latestUser < covered ? latestUserTokens : 0);
    const total = (covered: number, state: SessionState | undefined) =>
      fixedTokens + pairTokens(state) + pinnedTokens(covered) + (suffix[covered] as number);

    let record: StateRecord | undefined = stored;
    let covered = stored?.coveredCount ?? 0;
    const decisions: CompressionDecision[] = [];
    const tokensBefore = total(covered, record?.state);
    let messagesFolded = 0;
    let messagesDropped = 0;
    let summarizerMs = 0;

    const cuts = cutPoints(messages).filter((cut) => cut < messages.length);
    const chooseCut = (stateTokens: number): number | undefined => {
      const candidates = cuts.filter((cut) => cut > covered);
      if (force && candidates.length > 0) {
        const beforeLatestUser = candidates.filter((cut) => cut <= latestUser);
        return (beforeLatestUser.length > 0 ? beforeLatestUser : candidates).at(-1);
      }
      const fits = candidates.find(
        (cut) => fixedTokens + stateTokens + pinnedTokens(cut) + (suffix[cut] as number) <= compressTo,
      );
      return fits ?? candidates.at(-1);
    };

    const save = async (next: StateRecord) => {
      record = next;
      covered = next.coveredCount;
      await this.records.save({ namespace, anchor, record: next });
    };

    if (force || tokensBefore > compressAt) {
      const previousTokens = pairTokens(record?.state);
      const cut = chooseCut(previousTokens + Math.min(budget * 0.1, (suffix[covered] as number) * 0.15));
      if (cut !== undefined) {
        const from = covered;
        const started = performance.now();
        try {
          const state = await this.fold(
            `${namespace}\u0000${prefixHashes[cut]}`,
            messages.slice(from, cut),
            record?.state,
          );
          summarizerMs = performance.now() - started;
          const bounded = fitState(state, Math.floor(budget * STATE_SHARE_OF_BUDGET), this.meter);
          await save({
            version: 1,
            coveredCount: cut,
            prefixHash: (prefixHashes[cut] as number).toString(36),
            state: bounded,
            droppedCount: record?.droppedCount ?? 0,
          });
          messagesFolded = cut - from;
          decisions.push({
            trigger: force ? 'forced' : 'budget',
            scope: { kind: 'messages', from, to: cut },
            confidence: 1,
            details: force
              ? `folded ${cut - from} messages on request`
              : `prompt at ${Math.round((tokensBefore / budget) * ratio * 100)}% of the budget passed the ${Math.round((compressAt / budget) * ratio * 100)}% threshold; folded ${cut - from} messages into the session state`,
          });
        } catch (error) {
          summarizerMs = performance.now() - started;
          if (!SummarizerError.isInstance(error)) throw error;
          const over = total(covered, record?.state) > hardLimit;
          this.options.onError?.({ error, fallback: over ? 'dropped-oldest-turns' : 'sent-uncompressed' });
        }
      }
    }

    if (total(covered, record?.state) > hardLimit) {
      const from = covered;
      const state = record?.state ?? EMPTY_SESSION_STATE;
      const cut = chooseCut(pairTokens(state) + 64);
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
          details: `prompt over the hard limit of ${Math.round((hardLimit / budget) * ratio * 100)}% of the budget; dropped the oldest ${dropped} messages`,
        });
      }
      if (total(covered, record?.state) > hardLimit) {
        this.options.onError?.({
          error: new ContextCompressionError({
            name: 'HardLimitError',
            message: `The prompt stays above the hard limit (${Math.round(total(covered, record?.state))} of ${Math.round(hardLimit)} tokens) after compression: the latest turn alone is too large.`,
          }),
          fallback: 'over-hard-limit',
        });
      }
    }

    const output: Message[] = [];
    if (record) output.push(...sessionStateMessages(record.state, this.acknowledgement));
    if (latestUser >= 0 && latestUser < covered) output.push(messages[latestUser] as Message);
    for (let index = covered; index < messages.length; index++) output.push(kept.messages[index] as Message);
    const estimatedTokens = total(covered, record?.state);

    if (kept.truncated > 0) {
      decisions.push({
        trigger: 'oversized-result',
        scope: { kind: 'observations', toolCallIds: kept.truncatedIds },
        confidence: 1,
        details: `${kept.truncated} tool results over ${maxResultTokens} tokens shortened head-and-tail`,
      });
    }
    const cacheablePrefixTokens = this.prefixes.update(`${namespace}\u0000${anchor}`, [
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
    if (event) this.options.onCompress?.(event);
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
