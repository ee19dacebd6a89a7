import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { deferredTasks } from '../../src/deferred-tasks.js';
import type { CompressionEngine } from '../../src/engine/engine.js';
import type { ProviderOverflowError } from '../../src/errors.js';
import type { CallReport } from '../../src/reports/events.js';

/** A call the middleware compressed: the caller's params, to compress again, and our estimate of what was sent. */
export interface SentCall {
  readonly original: LanguageModelV4CallOptions;
  readonly modelKey: string;
  /** The window the call was compressed for, when the call set one (a beta flag's). */
  readonly contextWindow: number | undefined;
  /** Output tokens the call asked for (see `callOutputTokens`). */
  readonly maxOutputTokens: number | undefined;
  /** Whether wrapGenerate or wrapStream took the call: they report it once the provider took it, or failed it. */
  taken: boolean;
  /** Whether `onCall` heard of it. */
  reported: boolean;
  readonly output: { readonly estimatedTokens: number; readonly report: CallReport };
  /** The key the call gave the engine for its request (`CompressInput.request`). */
  readonly request?: object;
}

/** What the retry needs from the middleware: the engine, what each sent call was, and how a call is compressed. */
export interface RetryContext {
  readonly engine: CompressionEngine;
  readonly sent: (params: LanguageModelV4CallOptions) => SentCall | undefined;
  readonly compress: (
    original: LanguageModelV4CallOptions,
    model: LanguageModelV4,
    retryOf: ProviderOverflowError,
  ) => PromiseLike<LanguageModelV4CallOptions>;
}

/** Tells `onCall` of a sent call, unless it heard of it already. */
export function reportOnce(engine: CompressionEngine, sent: SentCall): void {
  if (sent.reported) return;
  sent.reported = true;
  engine.reportCall(sent.output.report);
}

/**
 * Keeps what a transformed call sent under its params. wrapLanguageModel calls wrapGenerate or wrapStream with these
 * params before any timer runs, and they report the call once the provider took it (a retry is made inside them); a
 * caller of transformParams alone hears of the call on the next turn of the event loop.
 */
export function rememberSent(
  engine: CompressionEngine,
  sentCalls: WeakMap<LanguageModelV4CallOptions, SentCall>,
  params: LanguageModelV4CallOptions,
  call: Omit<SentCall, 'taken' | 'reported'>,
  retry: boolean,
): void {
  const sent: SentCall = { ...call, taken: retry, reported: false };
  sentCalls.set(params, sent);
  if (!retry)
    deferredReports.add(() => {
      if (sent.taken) return;
      reportOnce(engine, sent);
      // heard of, and no wrapGenerate or wrapStream will ask for it (see `forget` in the middleware)
      sentCalls.delete(params);
    });
}

/**
 * Calls of transformParams alone, reported on the next turn of the event loop. One queue for the process: a loop that
 * never yields to the event loop (thousands of calls with a mock model) keeps at most this many engines alive through
 * it; an older call is checked at once, long after wrapGenerate or wrapStream would have taken it.
 */
const deferredReports = deferredTasks(16, 'run');

/** Marks a call as one wrapGenerate or wrapStream reports (see `settled`). */
function taken(context: RetryContext, params: LanguageModelV4CallOptions): void {
  const sent = context.sent(params);
  if (sent) sent.taken = true;
}

/** Tells `onCall` of the attempt that settled the call (accepted, or failed for good): once per call. */
function settled(context: RetryContext, params: LanguageModelV4CallOptions): void {
  const sent = context.sent(params);
  if (sent) reportOnce(context.engine, sent);
}

/** Parts a stream may open with before it says anything: the first other part tells whether the call was accepted. */
const OPENING_PARTS = new Set<LanguageModelV4StreamPart['type']>(['stream-start', 'response-metadata', 'raw']);

/**
 * The params to send again after `error`, compressed to fit what the engine learned from it; undefined when the
 * error is not a rejection for length (or the call was not one the middleware compressed): the call then settled
 * with this attempt, which is reported. When compressing the retry fails, the attempt is reported and that failure
 * thrown.
 */
async function retryParams(
  context: RetryContext,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  error: unknown,
): Promise<LanguageModelV4CallOptions | undefined> {
  const sent = context.sent(params);
  if (!sent) return undefined;
  const rejected = rejectionOf(context.engine, sent, model, error, false);
  if (!rejected) {
    reportOnce(context.engine, sent);
    return undefined;
  }
  try {
    return await context.compress(sent.original, model, rejected);
  } catch (failure) {
    reportOnce(context.engine, sent);
    throw failure;
  }
}

/** Reports the retry's own rejection for length (learned from too); the error itself goes to the caller. */
function retryRejected(
  context: RetryContext,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  error: unknown,
) {
  const sent = context.sent(params);
  if (sent) rejectionOf(context.engine, sent, model, error, true);
}

/** Tells the engine a sent call failed: the rejection when it was one for length (learned and reported). */
function rejectionOf(
  engine: CompressionEngine,
  sent: SentCall,
  model: LanguageModelV4,
  error: unknown,
  retry: boolean,
) {
  return engine.providerRejected({
    modelId: model.modelId,
    modelKey: sent.modelKey,
    contextWindow: sent.contextWindow,
    maxOutputTokens: sent.maxOutputTokens,
    estimatedTokens: () => sent.output.estimatedTokens,
    error,
    retry,
  });
}

/** Runs the retry, reporting its rejection before the error goes on to the caller. */
async function secondAttempt<T>(
  context: RetryContext,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  run: () => PromiseLike<T>,
): Promise<T> {
  try {
    const result = await run();
    settled(context, params);
    return result;
  } catch (error) {
    retryRejected(context, params, model, error);
    settled(context, params);
    throw error;
  }
}

/**
 * `doGenerate`, sent once more compressed to fit when the provider rejects the prompt as too long. Returns the result
 * and the params it answered (the retry's, whose estimate the usage calibrates).
 */
export async function generateWithRetry(
  context: RetryContext,
  { doGenerate, params, model }: { doGenerate: () => PromiseLike<LanguageModelV4GenerateResult> } & Target,
): Promise<{ result: LanguageModelV4GenerateResult; answered: LanguageModelV4CallOptions }> {
  taken(context, params);
  try {
    const result = await doGenerate();
    settled(context, params);
    return { result, answered: params };
  } catch (error) {
    const retry = await retryParams(context, params, model, error);
    if (!retry) throw error;
    return { result: await secondAttempt(context, retry, model, () => model.doGenerate(retry)), answered: retry };
  }
}

interface Target {
  readonly params: LanguageModelV4CallOptions;
  readonly model: LanguageModelV4;
}

/** The parts a stream opens with, up to and with its first part of another kind (or none when it ended at once). */
async function opening(reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>) {
  const parts: LanguageModelV4StreamPart[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { parts, first: undefined, done: true };
    parts.push(value);
    if (!OPENING_PARTS.has(value.type)) return { parts, first: value, done: false };
  }
}

/** A stream of `parts` then the rest of `reader`. */
function resumed(
  parts: readonly LanguageModelV4StreamPart[],
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  done: boolean,
): ReadableStream<LanguageModelV4StreamPart> {
  let pending = [...parts];
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      if (pending.length > 0) {
        for (const part of pending) controller.enqueue(part);
        pending = [];
        if (done) controller.close();
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * `doStream`, sent once more compressed to fit when the provider rejects the prompt as too long: as the call's error,
 * or as an error part before any output (as some OpenAI-compatible servers stream it). Nothing was streamed to the
 * caller when it is retried.
 */
export async function streamWithRetry(
  context: RetryContext,
  { doStream, params, model }: { doStream: () => PromiseLike<LanguageModelV4StreamResult> } & Target,
): Promise<{ result: LanguageModelV4StreamResult; answered: LanguageModelV4CallOptions }> {
  taken(context, params);
  let result: LanguageModelV4StreamResult;
  try {
    result = await doStream();
  } catch (error) {
    const retry = await retryParams(context, params, model, error);
    if (!retry) throw error;
    return { result: await secondAttempt(context, retry, model, () => model.doStream(retry)), answered: retry };
  }
  const reader = result.stream.getReader();
  let opened: Awaited<ReturnType<typeof opening>>;
  try {
    opened = await opening(reader);
  } catch (error) {
    // the stream failed before it said anything: as a rejection of the call
    const retry = await retryParams(context, params, model, error);
    if (!retry) throw error;
    return { result: await secondAttempt(context, retry, model, () => model.doStream(retry)), answered: retry };
  }
  const { parts, first, done } = opened;
  if (first?.type === 'error') {
    const retry = await retryParams(context, params, model, first.error);
    if (retry) {
      await reader.cancel().catch(() => undefined);
      return { result: await secondAttempt(context, retry, model, () => model.doStream(retry)), answered: retry };
    }
  }
  settled(context, params);
  return { result: { ...result, stream: resumed(parts, reader, done) }, answered: params };
}

/** Reports an error part of a retried stream when it is the provider's rejection for length. */
export function reportStreamedRejection(
  context: RetryContext,
  { params, model }: Target,
  part: LanguageModelV4StreamPart,
): void {
  if (part.type === 'error') retryRejected(context, params, model, part.error);
}
