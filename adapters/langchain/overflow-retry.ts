import type { CompressionEngine } from '../../src/engine/engine.js';
import type { ProviderOverflowError } from '../../src/errors.js';
import type { ModelInfo } from './model-info.js';

/** What a compressed call sent: our estimate of its tokens, undefined when the call was not compressed. */
type Estimate = () => number | undefined;

/** Tells the engine a model call failed; the rejection when it was one for length (learned and reported). */
function rejectedForLength(
  engine: CompressionEngine,
  info: ModelInfo,
  estimate: Estimate,
  error: unknown,
  retry: boolean,
): ProviderOverflowError | undefined {
  const estimatedTokens = estimate();
  if (estimatedTokens === undefined) return undefined;
  return engine.providerRejected({
    modelId: info.modelId,
    modelKey: info.modelKey,
    contextWindow: info.contextWindow,
    maxOutputTokens: info.maxOutputTokens,
    estimatedTokens,
    error,
    retry,
  });
}

/** One model call with what it needs to be compressed again and retried. */
export interface RetriedCall<S, T> {
  readonly engine: CompressionEngine;
  readonly info: ModelInfo;
  /**
   * Compresses the call's input, to be reported later (`settle`); again for the retry, given the rejection: the engine
   * then knows what it taught, and the retry's report tells of it.
   */
  readonly compress: (retryOf?: ProviderOverflowError) => Promise<S>;
  /** Our estimate of what a compressed input sends; undefined when nothing was compressed (never retried). */
  readonly estimate: (sent: S) => number | undefined;
  /** Tells `onCall` of the attempt that settled the call: accepted, or failed for good. Reports once, however often called. */
  readonly settle: (sent: S) => void;
  readonly run: (sent: S) => Promise<T>;
}

/** The input compressed again for the retry; when that fails, the first attempt settled the call (`settle`). */
async function compressAgain<S>(
  compress: (retryOf?: ProviderOverflowError) => Promise<S>,
  rejected: ProviderOverflowError,
  settle: () => void,
): Promise<S> {
  try {
    return await compress(rejected);
  } catch (error) {
    settle();
    throw error;
  }
}

/**
 * Runs a model call on its compressed input; when the provider rejects the prompt as too long, compresses the input
 * again (now to fit what the engine learned from the rejection) and runs it once more. Any other error, or the retry's
 * own rejection, goes to the caller.
 */
export async function runWithRetry<S, T>({
  engine,
  info,
  compress,
  estimate,
  settle,
  run,
}: RetriedCall<S, T>): Promise<T> {
  const sent = await compress();
  let rejected: ProviderOverflowError | undefined;
  try {
    const answer = await run(sent);
    settle(sent);
    return answer;
  } catch (error) {
    rejected = rejectedForLength(engine, info, () => estimate(sent), error, false);
    if (!rejected) {
      settle(sent);
      throw error;
    }
  }
  const retry = await compressAgain(compress, rejected, () => settle(sent));
  try {
    return await run(retry);
  } catch (error) {
    rejectedForLength(engine, info, () => estimate(retry), error, true);
    throw error;
  } finally {
    settle(retry);
  }
}

/**
 * Whether a chunk says nothing yet: a message chunk with no text, no tool call and no usage (OpenAI's Responses
 * stream opens with one for `response.created` before it may fail), or the `message-start` event of `streamEvents`.
 * Such chunks are held back until the first that says something, so a rejection after them can still be retried.
 */
function opening(chunk: unknown): boolean {
  if (typeof chunk !== 'object' || chunk === null) return false;
  // the new streamEvents protocol opens a message before its content
  if ((chunk as { event?: unknown }).event === 'message-start') return true;
  const message = chunk as {
    content?: unknown;
    tool_call_chunks?: unknown[];
    tool_calls?: unknown[];
    usage_metadata?: unknown;
  };
  const empty = message.content === '' || (Array.isArray(message.content) && message.content.length === 0);
  return (
    empty &&
    (message.tool_call_chunks?.length ?? 0) === 0 &&
    (message.tool_calls?.length ?? 0) === 0 &&
    message.usage_metadata === undefined
  );
}

/**
 * The chunks of a streamed model call; when the provider rejects the prompt as too long before the first chunk that
 * says something, compresses the input again and streams the retry instead. Nothing reached the caller before a
 * retry: the chunks that said nothing yet are held back until one does (see `opening`).
 */
export async function* streamWithRetry<S, C>({
  engine,
  info,
  compress,
  estimate,
  settle,
  run,
}: Omit<RetriedCall<S, never>, 'run'> & { run: (sent: S) => AsyncIterable<C> }): AsyncGenerator<C> {
  const sent = await compress();
  let started = false;
  let rejected: ProviderOverflowError | undefined;
  const held: C[] = [];
  try {
    for await (const chunk of run(sent)) {
      if (!started && opening(chunk)) {
        held.push(chunk);
        continue;
      }
      // the first chunk that says something tells that the provider took the prompt
      if (!started) {
        settle(sent);
        started = true;
        yield* held.splice(0);
      }
      yield chunk;
    }
    // a stream that said nothing: what it held is all there is
    settle(sent);
    yield* held;
    return;
  } catch (error) {
    rejected = started ? undefined : rejectedForLength(engine, info, () => estimate(sent), error, false);
    if (!rejected) {
      settle(sent);
      throw error;
    }
  }
  const retry = await compressAgain(compress, rejected, () => settle(sent));
  try {
    for await (const chunk of run(retry)) {
      settle(retry);
      yield chunk;
    }
  } catch (error) {
    rejectedForLength(engine, info, () => estimate(retry), error, true);
    throw error;
  } finally {
    settle(retry);
  }
}
