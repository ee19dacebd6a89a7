import type { MessageMeter } from '../counting/message-meter.js';
import { withoutEngineFields } from '../session-state/folded-calls.js';
import type { SessionState } from '../session-state/session-state.js';
import type { Message } from '../transcript/transcript.js';
import { runSummarizer } from './run-summarizer.js';
import type { Summarizer } from './summarizer.js';
import { chunkBudget, nextChunk, renderedTokens, type SummarizerWindow } from './summarizer-chunks.js';

/** What folding a span gave: the merged state and the summarizer calls it took. */
export interface ChunkedSummary {
  readonly state: SessionState;
  readonly calls: number;
}

/**
 * Folds `messages` into `previous` with as many summarizer calls as the summarizer's window asks for: one call when
 * there is no window or the span fits, else chunk after chunk, each call merging the next chunk into the state the
 * call before returned (`state_k = summarize(state_k-1, chunk_k)`), so every call is an ordinary fold and later facts
 * override earlier ones in order. Each call has the whole timeout; the first failure fails the whole span, and the
 * states between calls are never returned. `beforeCall` runs before every call after the first (a lease renewed).
 */
export async function summarizeInChunks(
  summarizer: Summarizer,
  {
    messages,
    previous,
    timeoutMs,
    window,
    meter,
    beforeCall,
    signal,
  }: {
    messages: readonly Message[];
    previous: SessionState | undefined;
    timeoutMs: number;
    window: SummarizerWindow | undefined;
    meter: MessageMeter;
    beforeCall?: (() => Promise<void>) | undefined;
    /** Aborts the calls from outside. */
    signal?: AbortSignal | undefined;
  },
): Promise<ChunkedSummary> {
  if (!window || fits(messages, chunkBudget(window, previous, meter), meter)) {
    return { state: await runSummarizer(summarizer, { messages, previous, timeoutMs, signal }), calls: 1 };
  }
  let state = previous;
  let calls = 0;
  for (let from = 0; from < messages.length; ) {
    const chunk = nextChunk(messages, from, chunkBudget(window, state, meter), meter);
    if (calls > 0) await beforeCall?.();
    // a summarizer's own timeline or call list is not carried to the next call: those are the engine's
    const summarized = await runSummarizer(summarizer, {
      messages: chunk.messages,
      previous: state,
      timeoutMs,
      signal,
    });
    state = withoutEngineFields(summarized);
    calls++;
    from = chunk.next;
  }
  // the span did not fit one call, so it is not empty and at least one call ran
  return { state: state as SessionState, calls };
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
