import type { CompressionEngine } from '../../src/engine/engine.js';
import type { ModelInfo } from './model-info.js';

/** What a compressed call sent: our estimate of its tokens, undefined when the call was not compressed. */
type Estimate = () => number | undefined;

/** Tells the engine a model call failed; true when it was a rejection for length (learned and reported). */
function rejectedForLength(
  engine: CompressionEngine,
  info: ModelInfo,
  estimate: Estimate,
  error: unknown,
  retry: boolean,
): boolean {
  const estimatedTokens = estimate();
  if (estimatedTokens === undefined) return false;
  const rejected = engine.providerRejected({
    modelId: info.modelId,
    modelKey: info.modelKey,
    contextWindow: info.contextWindow,
    estimatedTokens,
    error,
    retry,
  });
  return rejected !== undefined;
}

/** One model call with what it needs to be compressed again and retried. */
export interface RetriedCall<S, T> {
  readonly engine: CompressionEngine;
  readonly info: ModelInfo;
  /** Compresses the call's input (again, for the retry: the engine then knows what the rejection taught it). */
  readonly compress: () => Promise<S>;
  /** Our estimate of what a compressed input sends; undefined when nothing was compressed (never retried). */
  readonly estimate: (sent: S) => number | undefined;
  readonly run: (sent: S) => Promise<T>;
}

/**
 * Runs a model call on its compressed input; when the provider rejects the prompt as too long, compresses the input
 * again (now to fit what the engine learned from the rejection) and runs it once more. Any other error, or the retry's
 * own rejection, goes to the caller.
 */
export async function runWithRetry<S, T>({ engine, info, compress, estimate, run }: RetriedCall<S, T>): Promise<T> {
  const sent = await compress();
  try {
    return await run(sent);
  } catch (error) {
    if (!rejectedForLength(engine, info, () => estimate(sent), error, false)) throw error;
  }
  const retry = await compress();
  try {
    return await run(retry);
  } catch (error) {
    rejectedForLength(engine, info, () => estimate(retry), error, true);
    throw error;
  }
}

/**
 * The chunks of a streamed model call; when the provider rejects the prompt as too long before the first chunk,
 * compresses the input again and streams the retry instead. Nothing reached the caller before a retry.
 */
export async function* streamWithRetry<S, C>({
  engine,
  info,
  compress,
  estimate,
  run,
}: Omit<RetriedCall<S, never>, 'run'> & { run: (sent: S) => AsyncIterable<C> }): AsyncGenerator<C> {
  const sent = await compress();
  let started = false;
  try {
    for await (const chunk of run(sent)) {
      started = true;
      yield chunk;
    }
    return;
  } catch (error) {
    if (started || !rejectedForLength(engine, info, () => estimate(sent), error, false)) throw error;
  }
  const retry = await compress();
  try {
    yield* run(retry);
  } catch (error) {
    rejectedForLength(engine, info, () => estimate(retry), error, true);
    throw error;
  }
}
