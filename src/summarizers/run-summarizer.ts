import { withTimeout } from '../counting/with-timeout.js';
import { SummarizerError } from '../errors.js';
import { addSummarizerUsage, type SummarizerUsage } from '../reports/usage.js';
import { type SessionState, SessionStateSchema } from '../session-state/session-state.js';
import { copyMessages } from '../transcript/copy-messages.js';
import type { Message } from '../transcript/transcript.js';
import type { PromptContinuation } from './prompt-continuation.js';
import type { Summarizer } from './summarizer.js';

/**
 * Runs a summarizer with a timeout and validates what it returns. Every failure becomes a SummarizerError, so
 * the engine can fall back without ever writing error text into the state. The summarizer gets copies of the messages
 * and of the previous state: one that changes them (builds its answer in `previous`, keeps them and changes them
 * later) changes neither the engine's stored state nor the caller's messages.
 */
export async function runSummarizer(
  summarizer: Summarizer,
  {
    messages,
    previous,
    timeoutMs,
    signal,
    onUsage,
    continuation,
  }: {
    /** The previous call's prompt to continue (see `SummarizeInput.continuation`). */
    continuation?: PromptContinuation | undefined;
    messages: readonly Message[];
    previous: SessionState | undefined;
    timeoutMs: number;
    /** Aborts the call from outside (a summary made ahead of time, when the engine is closed). */
    signal?: AbortSignal | undefined;
    /** Told of what the summarizer reported of its call's tokens. */
    onUsage?: ((usage: SummarizerUsage) => void) | undefined;
  },
): Promise<SessionState> {
  const controller = new AbortController();
  const cancelled = signal && abortedBy(signal, controller);
  try {
    const called = Promise.resolve().then(() =>
      summarizer.summarize({
        messages: copyMessages(messages),
        previous: previous && structuredClone(previous),
        abortSignal: controller.signal,
        reportUsage: (usage) => onUsage?.(usage),
        ...(continuation ? { continuation } : {}),
      }),
    );
    const output = await withTimeout(cancelled ? Promise.race([called, cancelled.promise]) : called, timeoutMs, () => {
      controller.abort();
      return new SummarizerError({ summarizer: summarizer.name, reason: 'timeout' });
    });
    const parsed = SessionStateSchema.safeParse(output);
    if (!parsed.success) {
      throw new SummarizerError({ summarizer: summarizer.name, reason: 'invalid-output', cause: parsed.error });
    }
    return parsed.data;
  } catch (error) {
    if (SummarizerError.isInstance(error)) throw error;
    throw new SummarizerError({ summarizer: summarizer.name, reason: 'threw', cause: error });
  } finally {
    cancelled?.stop();
  }
}

/** A promise rejected when `signal` aborts (the summarizer's own signal aborted with it); `stop` stops listening. */
function abortedBy(signal: AbortSignal, controller: AbortController): { promise: Promise<never>; stop: () => void } {
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => {
      controller.abort(signal.reason);
      reject(signal.reason ?? new Error('aborted'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return { promise, stop: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * A fold's summary made as a continuation of the previous call's prompt: the state, or none when the summarizer
 * failed (the caller then makes it as a separate request), with the call and the usage it reported either way. An
 * error other than a summarizer's, or one after `signal` aborted, is thrown.
 */
export async function summarizeContinued(
  summarizer: Summarizer,
  {
    messages,
    previous,
    continuation,
    timeoutMs,
    signal,
  }: {
    messages: readonly Message[];
    previous: SessionState | undefined;
    continuation: PromptContinuation;
    timeoutMs: number;
    signal: AbortSignal | undefined;
  },
): Promise<{ state: SessionState | undefined; calls: number; usage: SummarizerUsage | undefined }> {
  let usage: SummarizerUsage | undefined;
  const onUsage = (reported: SummarizerUsage) => {
    usage = addSummarizerUsage(usage, reported);
  };
  try {
    const state = await runSummarizer(summarizer, { messages, previous, timeoutMs, signal, continuation, onUsage });
    return { state, calls: 1, usage };
  } catch (error) {
    if (!SummarizerError.isInstance(error) || signal?.aborted) throw error;
    return { state: undefined, calls: 1, usage };
  }
}
