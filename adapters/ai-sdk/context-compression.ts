import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import type { EmbeddingModel, LanguageModel } from 'ai';
import { providerFamily } from '../../src/counting/provider-family.js';
import { type Embedder, isEmbedder } from '../../src/embeddings/embedder.js';
import { callMetadata, METADATA_KEY, withProviderUsage } from '../../src/engine/call-metadata.js';
import { createCompressionEngine } from '../../src/engine/create-engine.js';
import type { CompressionEngine } from '../../src/engine/engine.js';
import { type ProviderOverflowError, UnknownContextWindowError } from '../../src/errors.js';
import { type AdapterOptions, AdapterOptionsSchema } from '../../src/options/adapter-options.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { type CompressionOptions, readOptions } from '../../src/options/options.js';
import type { SummarizeFunction, Summarizer } from '../../src/summarizers/summarizer.js';
import { cachesAtBreakpoints, withCacheBreakpoints } from './cache-breakpoints.js';
import { readCallOptions } from './call-options.js';
import { providerUsageOf } from './compression-report.js';
import { fromTranscript } from './from-transcript.js';
import { isEmbeddingModel, modelEmbedder } from './model-embedder.js';
import { modelSummarizer } from './model-summarizer.js';
import {
  generateWithRetry,
  type RetryContext,
  rememberSent,
  reportStreamedRejection,
  type SentCall,
  streamWithRetry,
} from './overflow-retry.js';
import { callContextWindow, callOutputTokens } from './provider-terms.js';
import { SentRequests } from './sent-requests.js';
import { promptConversionsByCounting, toTranscript } from './to-transcript.js';
import { ToolCallPrompts } from './tool-call-prompts.js';

/** Options of the AI SDK middleware: the engine's options, with any AI SDK model accepted as summarizer. */
export interface ContextCompressionOptions
  extends Omit<CompressionOptions, 'summarizer' | 'embedder'>,
    Pick<AdapterOptions, 'cacheBreakpoints'> {
  /**
   * Folds evicted messages into the session state: an AI SDK model (called with structured output), a summarizer
   * object, or a plain async function. @default the offline extractive summarizer
   */
  summarizer?: LanguageModel | Summarizer | SummarizeFunction;
  /**
   * Vectors for recall ranking and salience deduplication: an AI SDK embedding model (through `embedMany`), or any
   * embedder (`transformersEmbedder()`, a LangChain `Embeddings`). @default none: lexical ranking
   */
  embedder?: EmbeddingModel | Embedder;
}

/** The engine's embedder for an AI SDK option value: an embedding model through `modelEmbedder`, others as they are. */
export function toEmbedder(value: EmbeddingModel | Embedder | undefined): Embedder | undefined {
  return value !== undefined && !isEmbedder(value) && isEmbeddingModel(value)
    ? modelEmbedder(value)
    : (value as Embedder);
}

function isLanguageModel(value: unknown): value is LanguageModel {
  return (
    typeof value === 'string' ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as { doGenerate?: unknown }).doGenerate === 'function')
  );
}

/** The option this adapter adds to the engine's, checked before the engine checks its own. */
const CACHE_BREAKPOINTS_OPTION = AdapterOptionsSchema.pick({ cacheBreakpoints: true });

/** Builds the engine for a set of AI SDK options, turning a model summarizer into a Summarizer. */
export function createEngine(
  options: ContextCompressionOptions | undefined,
  wrapped?: LanguageModel,
): CompressionEngine {
  const { cacheBreakpoints: _adapterOnly, ...given } = readOptions(options);
  parseOptions(CACHE_BREAKPOINTS_OPTION, { cacheBreakpoints: _adapterOnly }, '');
  return createCompressionEngine({ ...given, embedder: toEmbedder(given.embedder) }, (value) =>
    isLanguageModel(value)
      ? modelSummarizer(value, value === wrapped ? { continueCachedPrompt: true } : {})
      : undefined,
  );
}

/**
 * A `LanguageModelV4Middleware` that compresses every call's prompt: counts it, reuses the stored state of this
 * history, folds old turns into a `<session_state>` pair when the budget asks for it, and keeps the system prompt
 * byte-identical. Runs on every step of a tool loop; the summarizer runs once per compression.
 */
export function contextCompression(options: ContextCompressionOptions = {}): LanguageModelV4Middleware {
  const engine = createEngine(options);
  const middleware = middlewareFor(engine, options);
  const { transformParams } = middleware;
  return {
    ...middleware,
    // the model is first seen here: an unknown window is told with this factory's own example
    transformParams: async (call) => {
      try {
        return (await transformParams?.(call)) ?? call.params;
      } catch (error) {
        if (!UnknownContextWindowError.isInstance(error)) throw error;
        throw new UnknownContextWindowError({ modelId: error.modelId, example: WINDOW_EXAMPLE });
      }
    },
  };
}

/** How to give the window to this middleware, in the error for a model whose window is unknown. */
const WINDOW_EXAMPLE = 'wrapLanguageModel({ model, middleware: contextCompression({ contextWindow: 128_000 }) })';

/** The middleware around an existing engine (shared by `contextCompression` and `withContextCompression`). */
export function middlewareFor(
  engine: CompressionEngine,
  { cacheBreakpoints = true }: Pick<ContextCompressionOptions, 'cacheBreakpoints'> = {},
): LanguageModelV4Middleware {
  const state: MiddlewareState = {
    engine,
    cacheBreakpoints,
    sentCalls: new WeakMap(),
    conversions: promptConversionsByCounting(),
    requests: new SentRequests(),
  };
  const { sentCalls, requests } = state;
  const compress = (params: LanguageModelV4CallOptions, model: LanguageModelV4, retryOf?: ProviderOverflowError) =>
    compressCall(state, params, model, retryOf);
  const retries: RetryContext = { engine, sent: (params) => sentCalls.get(params), compress };
  const recordUsage = (sent: SentCall | undefined, usage: LanguageModelV4Usage | undefined) => {
    if (!sent) return;
    engine.recordUsage(sent.modelKey, () => sent.output.estimatedTokens, usage?.inputTokens?.total);
    requests.answered(sent.request, usage);
  };
  // a call answered is forgotten: its report reads the call's facts, which hold the request before it, so a kept
  // entry would chain every call of a conversation to the one before it (a server's memory growing call by call)
  const forget = (...params: LanguageModelV4CallOptions[]) => {
    for (const key of params) sentCalls.delete(key);
  };
  return {
    specificationVersion: 'v4',
    transformParams: ({ params, model }) => compress(params, model),
    async wrapGenerate(options) {
      const { result, answered } = await generateWithRetry(retries, options).catch((error: unknown) => {
        forget(options.params);
        throw error;
      });
      const sent = sentCalls.get(answered);
      recordUsage(sent, result.usage);
      forget(options.params, answered);
      new ToolCallPrompts(sent?.original ?? answered).remember(result.content);
      return sent ? { ...result, providerMetadata: withReport(result.providerMetadata, sent, result.usage) } : result;
    },
    async wrapStream(options) {
      const { result, answered } = await streamWithRetry(retries, options);
      const sent = sentCalls.get(answered);
      const prompts = new ToolCallPrompts(sent?.original ?? answered);
      const retried = answered !== options.params;
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
          transform(part, controller) {
            prompts.rememberPart(part);
            if (retried) reportStreamedRejection(retries, { params: answered, model: options.model }, part);
            if (part.type !== 'finish') return controller.enqueue(part);
            recordUsage(sent, part.usage);
            controller.enqueue(
              sent ? { ...part, providerMetadata: withReport(part.providerMetadata, sent, part.usage) } : part,
            );
          },
          flush() {
            forget(options.params, answered);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

/** What the middleware keeps across calls. */
interface MiddlewareState {
  readonly engine: CompressionEngine;
  readonly cacheBreakpoints: boolean;
  /** Each sent call's params, model key and engine output, whose estimate is read once the provider answered. */
  readonly sentCalls: WeakMap<LanguageModelV4CallOptions, SentCall>;
  readonly conversions: ReturnType<typeof promptConversionsByCounting>;
  /** The requests sent, for a fold's summary that continues one. */
  readonly requests: SentRequests;
}

/** One call's params compressed, with what its report and a later retry or continued summary need remembered. */
async function compressCall(
  { engine, cacheBreakpoints, sentCalls, conversions, requests }: MiddlewareState,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  retryOf?: ProviderOverflowError,
): Promise<LanguageModelV4CallOptions> {
  const { callOptions, providerOptions } = readCallOptions(params.providerOptions);
  if (callOptions.disable) return { ...params, providerOptions };
  // files are counted as the model's provider counts them, each way of counting with its own conversions
  const counting = { family: providerFamily(model.provider, model.modelId), modelId: model.modelId };
  const contextWindow = callContextWindow(params, model);
  const maxOutputTokens = callOutputTokens(params, model);
  const request = {};
  const result = await engine.compress({
    transcript: toTranscript(params.prompt, params.tools, conversions(counting), counting),
    modelId: model.modelId,
    modelKey: modelKeyOf(model),
    contextWindow,
    maxOutputTokens,
    namespace: callOptions.namespace,
    force: callOptions.force,
    // reported once the provider took the prompt: a call rejected for length is reported by its retry alone
    deferReport: true,
    retryOf,
    request,
    continueRequest: (previous, from, to) => requests.continuation(previous, params, from, to),
  });
  const prompt = cacheBreakpoints ? withBreakpoints(result, params, model.provider) : undefined;
  const transformed = {
    ...params,
    providerOptions,
    prompt: prompt ?? fromTranscript(result.system, result.messages),
  };
  requests.remember(request, transformed, model);
  const call = {
    original: params,
    modelKey: modelKeyOf(model),
    contextWindow,
    maxOutputTokens,
    output: result,
    request,
  };
  rememberSent(engine, sentCalls, transformed, call, retryOf !== undefined);
  return transformed;
}

const modelKeyOf = (model: { provider: string; modelId: string }) => `${model.provider}:${model.modelId}`;

/**
 * The provider's metadata with this call's report under `context-compression` (see `CompressionReport`), and what
 * the provider's usage said of the call.
 */
function withReport(
  metadata: SharedV4ProviderMetadata | undefined,
  sent: SentCall,
  usage: LanguageModelV4Usage | undefined,
): SharedV4ProviderMetadata {
  const report = withProviderUsage(callMetadata(sent.output.report), providerUsageOf(usage));
  return { ...metadata, [METADATA_KEY]: report };
}

/** The prompt with cache breakpoints for providers that cache at them, or undefined for the others. */
function withBreakpoints(
  result: Awaited<ReturnType<CompressionEngine['compress']>>,
  params: LanguageModelV4CallOptions,
  provider: string,
) {
  if (!cachesAtBreakpoints(provider)) return undefined;
  const offset = result.system.length;
  const pair = result.messages[0]?.synthetic === 'session-state' ? offset + 1 : undefined;
  const recall = result.messages.findIndex((message) => message.synthetic === 'recall');
  return withCacheBreakpoints(fromTranscript(result.system, result.messages), params.tools, {
    systemEnd: offset - 1,
    stateEnd: pair,
    beforeRecall: recall > 0 ? offset + recall - 1 : undefined,
  });
}
