import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatModelStream } from '@langchain/core/language_models/stream';
import type { BaseMessage, BaseMessageLike } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { RunnableBinding } from '@langchain/core/runnables';
import type { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError, type ProviderOverflowError } from '../../src/errors.js';
import type { ProviderUsage } from '../../src/reports/compression-report.js';
import { readCallOptions } from './call-options.js';
import { type CompressedBaseMessages, compressBaseMessages, inputMessages } from './compress-base-messages.js';
import { addedUsage, providerUsageOf } from './compression-report.js';
import { breakpointsOn, createEngine, type LangChainCompressionOptions } from './create-engine.js';
import { generateCompressed } from './generate-compressed.js';
import { callWindow, isChatModel, type ModelInfo, modelInfo, reportedInputTokens } from './model-info.js';
import { callOwn, methodOf, parsedCallOptions, streamsNatively, streamsOwnChunks } from './model-methods.js';
import { streamWithRetry } from './overflow-retry.js';
import { reportingRun, withReports } from './report-metadata.js';
import { type SendAsBefore, SentRequests, sendThrough } from './sent-requests.js';
import { TranscriptConverter } from './transcript-converter.js';

/**
 * Marks a model that compresses its calls, so none is wrapped twice. A brand on the wrapper rather than a set of this
 * module's, so that another copy of this package (its CommonJS build beside the ESM one) recognizes it too.
 */
const COMPRESSING = Symbol.for('context-compression.compressing');

function isCompressing(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, COMPRESSING);
}

/** What one `withContextCompression` call shares with every copy LangChain makes of its model. */
interface Compression {
  readonly engine: CompressionEngine;
  readonly converter: TranscriptConverter;
  /** Compressing copies by the model a binder returned: a model handed out again (per call) is wrapped once. */
  readonly copies: WeakMap<object, BaseChatModel>;
  /** Whether models that cache only at breakpoints get them (the `cacheBreakpoints` option). */
  readonly cacheBreakpoints: boolean;
  /** The requests sent, for a fold's summary that continues one. */
  readonly requests: SentRequests;
}

/** The model info of a model a binder made, or its parent's when the new one's window cannot be known. */
function infoFor(model: BaseChatModel, engine: CompressionEngine, parent: ModelInfo): ModelInfo {
  const info = modelInfo(model);
  try {
    engine.budgetFor(info.modelId, info.contextWindow);
    return info;
  } catch {
    return parent;
  }
}

/**
 * Keeps compression on whatever a binder returns (`bindTools`, `withConfig`, `withStructuredOutput`, the per-call
 * model of langchain's `initChatModel`): a binding of a copy, or a new model. `boundTools` are the tools `bindTools`
 * was given, for a model that keeps them on the new model instead of in its call options (LangChain's `fakeModel`).
 */
function keepCompressing(
  result: unknown,
  compression: Compression,
  info: ModelInfo,
  boundTools?: readonly unknown[],
): unknown {
  if (isCompressing(result)) return result;
  if (isChatModel(result)) {
    const known = compression.copies.get(result);
    if (known) return known;
    const wrapped = compressingModel(result, compression, infoFor(result, compression.engine, info), boundTools);
    compression.copies.set(result, wrapped);
    return wrapped;
  }
  if (RunnableBinding.isRunnableBinding(result) && isChatModel(result.bound) && !isCompressing(result.bound)) {
    return new RunnableBinding({
      bound: keepCompressing(result.bound, compression, info, boundTools) as BaseChatModel,
      kwargs: result.kwargs,
      config: result.config,
      configFactories: result.configFactories,
    });
  }
  return result;
}

type CallOptions = Partial<BaseChatModel['ParsedCallOptions']>;

/** A streamed model call on what compression sent (undefined: the call was not compressed). */
type Streamed<C> = (sent: CompressedBaseMessages | undefined) => AsyncIterable<C>;

/** Our estimate of what a compressed call sent, to learn from a rejection; undefined when nothing was compressed. */
const estimate = (sent: CompressedBaseMessages | undefined) => sent?.estimatedTokens;

/**
 * A stream's chunks; once it ends, the engine learns from the input tokens they reported, and the request is kept with
 * the usage they add up to (a later fold's summary may continue it, as one after `invoke` does).
 */
async function* recordingUsage<C>(
  { engine, requests }: Pick<Compression, 'engine' | 'requests'>,
  info: ModelInfo,
  chunks: AsyncIterable<C>,
  sent: CompressedBaseMessages | undefined,
  send: SendAsBefore,
) {
  if (sent?.request) requests.remember(sent.request, { messages: sent.messages, send });
  let reported: number | undefined;
  let usage: ProviderUsage | undefined;
  for await (const chunk of chunks) {
    const tokens = reportedInputTokens(chunk as BaseMessage);
    if (tokens !== undefined) reported = (reported ?? 0) + tokens;
    usage = addedUsage(usage, providerUsageOf(chunk as BaseMessage));
    yield chunk;
  }
  requests.answered(sent?.request, usage);
  if (sent) engine.recordUsage(info.modelKey, () => sent.estimatedTokens, reported);
}

/**
 * How a compressing model compresses one call's messages: undefined when the call opts out; reported once the
 * provider took the prompt; in the window the call's own beta flags open (Claude's context-1m).
 */
function compressorFor(
  { engine, converter, cacheBreakpoints, requests }: Compression,
  info: ModelInfo,
  boundTools?: readonly unknown[],
) {
  return async (messages: readonly BaseMessage[], options: unknown, retryOf?: ProviderOverflowError) => {
    const callOptions = readCallOptions(options);
    if (callOptions.disable) return undefined;
    const given = options as { tools?: unknown[]; cache_control?: unknown } | undefined;
    const tools = given?.tools ?? boundTools;
    const model = { ...info, contextWindow: callWindow(info, options) };
    return compressBaseMessages(engine, {
      messages,
      tools,
      model,
      callOptions,
      awareness: 'system',
      converter,
      report: 'later',
      retryOf,
      request: {},
      continueRequest: (previous, from, to) => requests.continuation(previous, messages, from, to),
      breakpoints:
        cacheBreakpoints && info.cachesAtBreakpoints
          ? { tools, automatic: given?.cache_control != null, markSystem: true }
          : undefined,
    });
  };
}

function compressingModel<T extends BaseChatModel>(
  model: T,
  compression: Compression,
  info: ModelInfo,
  boundTools?: readonly unknown[],
): T {
  const { engine } = compression;
  const base: BaseChatModel = model;
  const wrapped = Object.create(model) as T;
  const compress = compressorFor(compression, info, boundTools);
  const streamCompressed = <C>(messages: readonly BaseMessage[], options: unknown, run: Streamed<C>) =>
    streamWithRetry({
      engine,
      info: { ...info, contextWindow: callWindow(info, options) },
      compress: (retryOf) => compress(messages, options, retryOf),
      estimate,
      settle: (sent) => sent?.settled(),
      run,
    });
  const binder = (name: string) =>
    function (this: BaseChatModel, ...args: unknown[]) {
      const tools = name === 'bindTools' && Array.isArray(args[0]) ? args[0] : undefined;
      return keepCompressing(callOwn(model, name, this, args), compression, info, tools);
    };
  const methods = {
    generate(
      this: BaseChatModel,
      messages: BaseMessageLike[][],
      options?: string[] | CallOptions,
      callbacks?: Callbacks,
    ): Promise<LLMResult> {
      return generateCompressed(
        { engine, info, compress, base, self: this, requests: compression.requests },
        messages,
        options,
        callbacks,
      );
    },
    async *_streamIterator(this: BaseChatModel, input: BaseLanguageModelInput, options?: CallOptions) {
      if (!streamsNatively(model, this)) {
        // LangChain falls back to `invoke`, which compresses in `generate`.
        yield* base._streamIterator.call(this, input, options);
        return;
      }
      const reporting = (sent: CompressedBaseMessages | undefined) =>
        sent ? withReports(options, [sent.metadata]) : options;
      yield* streamCompressed(inputMessages(input), options, (sent) =>
        recordingUsage(
          compression,
          info,
          base._streamIterator.call(this, sent?.messages ?? input, reporting(sent)),
          sent,
          sendThrough(base, this, options),
        ),
      );
    },
    streamEvents(
      this: BaseChatModel,
      input: BaseLanguageModelInput,
      options?: CallOptions & { version?: string },
      streamOptions?: unknown,
    ) {
      if (options?.version === 'v1' || options?.version === 'v2')
        return callOwn(model, 'streamEvents', this, [input, options, streamOptions]);
      const self = this;
      const callOptions = parsedCallOptions(self, options);
      async function* events() {
        const messages = inputMessages(input);
        yield* streamCompressed(messages, options, (sent) =>
          self._streamChatModelEvents(sent?.messages ?? messages, callOptions),
        );
      }
      return new ChatModelStream(events());
    },
    ...reportingRun((name, self, args) => callOwn(model, name, self, args)),
    bindTools: binder('bindTools'),
    withConfig: binder('withConfig'),
    withStructuredOutput: binder('withStructuredOutput'),
    // langchain's initChatModel (ConfigurableModel) hands every call to a model it makes per call: wrap that one
    async _getModelInstance(this: BaseChatModel, ...args: unknown[]) {
      return keepCompressing(await callOwn(model, '_getModelInstance', this, args), compression, info);
    },
  };
  install(wrapped, model, methods);
  return wrapped;
}

/** Methods the wrapper has only when the model has them: LangChain looks for them. */
const OPTIONAL_METHODS = new Set(['bindTools', '_getModelInstance', '_generate', '_streamResponseChunks']);

/** Puts the compressing methods on the wrapper, and its brand. */
function install(wrapped: object, model: object, methods: Record<string, unknown>): void {
  // a `_streamResponseChunks` the model does not have of its own stays absent: LangChain looks for one
  const streams = streamsOwnChunks(model);
  for (const [name, value] of Object.entries(methods)) {
    if (OPTIONAL_METHODS.has(name) && (!methodOf(model, name) || (name === '_streamResponseChunks' && !streams)))
      continue;
    Object.defineProperty(wrapped, name, { value, writable: true, configurable: true });
  }
  Object.defineProperty(wrapped, COMPRESSING, { value: true });
}

/**
 * Wraps a LangChain chat model so every call through it is compressed: `invoke`, `stream`, `batch`, `streamEvents`,
 * and the models `bindTools` and `withStructuredOutput` return. The result is the same model (same class, name,
 * profile and tracing identity, `instanceof` holds) with compression in front of its calls; callbacks and traces see
 * the compressed messages. Per call: `{ configurable: { 'context-compression': { disable, force, namespace } } }`.
 * Fails at once when the model's context window is unknown (not in its profile, not given, not in our table).
 */
export function withContextCompression<T extends BaseChatModel>(
  model: T,
  options: LangChainCompressionOptions = {},
): T {
  if (!isChatModel(model))
    throw new InvalidOptionError({
      option: 'model',
      message: 'expected a LangChain chat model such as new ChatOpenAI()',
    });
  if (isCompressing(model))
    throw new InvalidOptionError({ option: 'model', message: 'this model already compresses its calls' });
  // the wrapped model as its own summarizer continues its cached prompts
  const engine = createEngine(options, options.summarizer === model ? model : undefined);
  const info = modelInfo(model);
  engine.budgetFor(info.modelId, info.contextWindow);
  const compression = {
    engine,
    converter: new TranscriptConverter(),
    copies: new WeakMap(),
    cacheBreakpoints: breakpointsOn(options),
    requests: new SentRequests(),
  };
  return compressingModel(model, compression, info);
}
