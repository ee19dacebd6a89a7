import { LRUCache } from 'lru-cache';
import type { MessageMeter } from '../counting/message-meter.js';
import type { EmbeddingCache } from '../embeddings/embedder.js';
import { type EmbedderError, SummarizerError } from '../errors.js';
import { fitState } from '../session-state/fit-state.js';
import { mergeSimilarQuotes, verifySalience } from '../session-state/salience.js';
import type { SessionState } from '../session-state/session-state.js';
import { appendToTimeline, timelineEntry, withoutTimeline } from '../session-state/timeline.js';
import { applyFold, type FoldPlan, messagesToFold } from '../strategies/folding.js';
import { runSummarizer } from '../summarizers/run-summarizer.js';
import type { Summarizer } from '../summarizers/summarizer.js';
import type { Message } from '../transcript/transcript.js';
import type { CallFacts } from './call-facts.js';
import type { CompressionPoint } from './compression-point.js';

/** After a summarizer failure, a conversation waits this many new messages before the summarizer is tried again. */
export const SUMMARIZER_RETRY_AFTER_MESSAGES = 4;

/** What running a fold gave: the new point, or the failure the call falls back from. */
export type FoldResult =
  | {
      readonly point: CompressionPoint;
      readonly summarizerMs: number;
      /** Salience quotes of the new state that were not verbatim in the folded messages, dropped. */
      readonly quotesRejected: number;
      readonly failure?: undefined;
    }
  | { readonly point?: undefined; readonly summarizerMs: number; readonly failure: SummarizerError };

/**
 * Runs the summarizer for fold plans: once per fold point even when concurrent calls of one conversation ask for it
 * together, and not again for a conversation whose summarizer just failed until it grew by a few messages.
 */
export class FoldRunner {
  private readonly inFlight = new Map<string, Promise<SessionState>>();
  /** Conversations whose summarizer failed, with the message count from which it is tried again. */
  private readonly failures = new LRUCache<string, number>({ max: 1_000 });

  constructor(
    private readonly summarizer: Summarizer,
    private readonly timeoutMs: number,
    private readonly meter: MessageMeter,
    private readonly embeddings: EmbeddingCache | undefined,
    private readonly onEmbedderError: (error: EmbedderError) => void,
  ) {}

  /** Whether folding waits for this conversation after a recent failure. */
  backingOff(facts: CallFacts): boolean {
    const retryAfter = this.failures.get(facts.conversation);
    return retryAfter !== undefined && facts.messages.length < retryAfter;
  }

  /** Folds the messages of a plan into the state; a summarizer failure is returned, any other error thrown. */
  async run(facts: CallFacts, point: CompressionPoint, plan: FoldPlan): Promise<FoldResult> {
    const started = performance.now();
    try {
      const key = `${facts.namespace}\u0000${facts.prefixHashes[plan.cut]}`;
      const folded = messagesToFold(facts, point, plan.cut, this.meter);
      // the timeline is the engine's: summarizers neither see nor write it
      const summarized = await this.summarize(key, folded, point.state && withoutTimeline(point.state));
      this.failures.delete(facts.conversation);
      const { state, rejected } = verifySalience(summarized, point.state, folded);
      const merged = await mergeSimilarQuotes(state, this.embeddings, this.onEmbedderError);
      const timeline = appendToTimeline(
        point.state?.timeline,
        timelineEntry({ messages: facts.messages, span: folded, from: point.coveredCount, to: plan.cut }),
      );
      const fitted = fitState({ ...merged, timeline }, facts.limits.maxStateTokens, this.meter);
      return {
        point: applyFold(point, plan.cut, fitted),
        summarizerMs: performance.now() - started,
        quotesRejected: rejected,
      };
    } catch (error) {
      if (!SummarizerError.isInstance(error)) throw error;
      this.failures.set(facts.conversation, facts.messages.length + SUMMARIZER_RETRY_AFTER_MESSAGES);
      return { failure: error, summarizerMs: performance.now() - started };
    }
  }

  private summarize(key: string, messages: readonly Message[], previous: SessionState | undefined) {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const promise = runSummarizer(this.summarizer, { messages, previous, timeoutMs: this.timeoutMs }).finally(() =>
      this.inFlight.delete(key),
    );
    this.inFlight.set(key, promise);
    return promise;
  }
}
