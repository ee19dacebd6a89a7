import type { MessageMeter } from '../counting/message-meter.js';
import { type ProviderOverflowError, SummarizerError } from '../errors.js';
import { addSummarizerUsage, type SummarizerUsage } from '../reports/usage.js';
import { withoutEngineFields } from '../session-state/folded-calls.js';
import type { SessionState } from '../session-state/session-state.js';
import type { Message } from '../transcript/transcript.js';
import { runSummarizer } from './run-summarizer.js';
import type { Summarizer } from './summarizer.js';
import { callOverhead, chunkBudget, nextChunk, renderedTokens } from './summarizer-chunks.js';
import type { SummarizerLimits } from './summarizer-limits.js';

/** What folding a span gave: the merged state and the summarizer calls it took. */
export interface ChunkedSummary {
  readonly state: SessionState;
  readonly calls: number;
  /** What the summarizer reported of its calls' tokens, summed (a rejected call's included, when it said). */
  readonly usage: SummarizerUsage | undefined;
}

/**
 * Folds `messages` into `previous` with as many summarizer calls as the summarizer's window asks for: one call when
 * there is no window or the span fits, else chunk after chunk, each call merging the next chunk into the state the
 * call before returned (`state_k = summarize(state_k-1, chunk_k)`), so every call is an ordinary fold and later facts
 * override earlier ones in order. A call the summarizer's provider rejects as too long teaches `limits` (its count,
 * its window, or a bound below the call), is reported to `onRejected`, and is made once more on a chunk cut again by
 * what was learned; any other failure, or a second rejection of the same chunk, fails the whole span, and the states
 * between calls are never returned. Each call has the whole timeout. `beforeCall` runs before every call after the
 * first (a lease renewed).
 */
export async function summarizeInChunks(
  summarizer: Summarizer,
  {
    messages,
    previous,
    timeoutMs,
    limits,
    meter,
    beforeCall,
    onRejected,
    signal,
  }: {
    messages: readonly Message[];
    previous: SessionState | undefined;
    timeoutMs: number;
    /** The summarizer's window and what its provider's rejections taught. */
    limits: SummarizerLimits;
    meter: MessageMeter;
    beforeCall?: (() => Promise<void>) | undefined;
    /** Told of each rejection for length that was learned from and retried. */
    onRejected?: ((error: ProviderOverflowError) => void) | undefined;
    /** Aborts the calls from outside. */
    signal?: AbortSignal | undefined;
  },
): Promise<ChunkedSummary> {
  let state = previous;
  let calls = 0;
  let usage: SummarizerUsage | undefined;
  const onUsage = (reported: SummarizerUsage) => {
    usage = addSummarizerUsage(usage, reported);
  };
  for (let from = 0; from < messages.length; ) {
    let retried = false;
    for (;;) {
      const window = limits.window();
      const chunk =
        !window || (from === 0 && fits(messages, chunkBudget(window, state, meter), meter))
          ? { messages, next: messages.length }
          : nextChunk(messages, from, chunkBudget(window, state, meter), meter);
      if (calls > 0 || retried) await beforeCall?.();
      try {
        // a summarizer's own timeline or call list is not carried to the next call: those are the engine's
        const summarized = await runSummarizer(summarizer, {
          messages: chunk.messages,
          previous: state,
          timeoutMs,
          signal,
          onUsage,
        });
        state =
          calls === 0 && chunk.next === messages.length && from === 0 ? summarized : withoutEngineFields(summarized);
        calls++;
        from = chunk.next;
        break;
      } catch (error) {
        // a second rejection of the chunk is learned from too (the next fold is cut by it), and fails the span
        const rejected = rejection(limits, error, () => sentTokens(limits, state, chunk.messages, meter));
        if (!rejected || retried) throw error;
        onRejected?.(rejected);
        retried = true;
      }
    }
  }
  // the span is not empty (a fold moves messages), so at least one call ran
  return { state: state as SessionState, calls, usage };
}

/** The rejection for length a summarizer's failure was, learned from; undefined for any other failure. */
function rejection(limits: SummarizerLimits, error: unknown, sent: () => number): ProviderOverflowError | undefined {
  if (!SummarizerError.isInstance(error) || error.reason !== 'threw') return undefined;
  return limits.learn(error.cause, sent());
}

/** Our count of what a summarizer call sent: its fixed prompt, the previous state and the messages as rendered. */
function sentTokens(
  limits: SummarizerLimits,
  previous: SessionState | undefined,
  messages: readonly Message[],
  meter: MessageMeter,
): number {
  const window = limits.window() ?? { contextWindow: 0, fixedPrompt: '' };
  return (
    callOverhead(window, previous, meter) + messages.reduce((sum, message) => sum + renderedTokens(message, meter), 0)
  );
}
/** Whether the whole span fits one call. */
function fits(messages: readonly Message[], budget: number, meter: MessageMeter): boolean {
  let tokens = 0;
  for (const message of messages) {
    tokens += renderedTokens(message, meter);
    if (tokens > budget) return false;
  }
  return true;
}
