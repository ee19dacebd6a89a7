import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatModelStream } from '@langchain/core/language_models/stream';
import { type BaseMessage, type BaseMessageLike, coerceMessageLikeToMessage } from '@langchain/core/messages';
import type { ChatGeneration, LLMResult } from '@langchain/core/outputs';
import { RunnableBinding } from '@langchain/core/runnables';
import type { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError } from '../../src/errors.js';
import { readCallOptions } from './call-options.js';
import { compressBaseMessages, inputMessages } from './compress-base-messages.js';
import { createEngine, type LangChainCompressionOptions } from './create-engine.js';
import { isChatModel, type ModelInfo, modelInfo, reportedInputTokens } from './model-info.js';

/** Chat models made by this module (and the copies LangChain binds), so none is wrapped twice. */
const compressing = new WeakSet<object>();

// Members reached through `any`: protected in LangChain's types, public at run time.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Loose = any;

/** The object in a prototype chain that defines `key`. */
function ownerOf(object: object, key: string): object | null {
  let current: object | null = object;
  while (current && !Object.hasOwn(current, key)) current = Object.getPrototypeOf(current);
  return current;
}

/**
 * True when the model streams natively: LangChain's own test, made without comparing to its class (a second copy of
 * @langchain/core would have another). `model` is the wrapped model, `instance` the object the call runs on.
 */
function streamsNatively(model: object, instance: object): boolean {
  if ((instance as Loose).disableStreaming) return false;
  return ownerOf(model, '_streamResponseChunks') !== ownerOf(model, '_streamIterator');
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

/** Compressing copies by engine and model, so a model handed out again (a per-call instance) is wrapped once. */
const copies = new WeakMap<CompressionEngine, WeakMap<object, unknown>>();

/**
 * Keeps compression on whatever a binder returns (`bindTools`, `withConfig`, `withStructuredOutput`, the per-call
 * model of langchain's `initChatModel`): a binding of a copy, or a new model.
 */
function keepCompressing(result: unknown, engine: CompressionEngine, info: ModelInfo): unknown {
  if (compressing.has(result as object)) return result;
  if (isChatModel(result)) {
    const byModel = copies.get(engine) ?? new WeakMap<object, unknown>();
    copies.set(engine, byModel);
    const known = byModel.get(result);
    if (known) return known;
    const wrapped = compressingModel(result, engine, infoFor(result, engine, info));
    byModel.set(result, wrapped);
    return wrapped;
  }
  if (RunnableBinding.isRunnableBinding(result) && isChatModel(result.bound) && !compressing.has(result.bound)) {
    return new RunnableBinding({
      bound: keepCompressing(result.bound, engine, info) as BaseChatModel,
      kwargs: result.kwargs,
      config: result.config,
      configFactories: result.configFactories,
    });
  }
  return result;
}

function compressingModel<T extends BaseChatModel>(model: T, engine: CompressionEngine, info: ModelInfo): T {
  const base = model as Loose;
  const wrapped = Object.create(model) as T;
  const compress = (messages: readonly BaseMessage[], options: unknown) => {
    const callOptions = readCallOptions(options);
    if (callOptions.disable) return undefined;
    const tools = (options as { tools?: unknown[] } | undefined)?.tools;
    return compressBaseMessages(engine, { messages, tools, model: info, callOptions, awareness: 'system' });
  };
  const methods = {
    async generate(this: T, messages: BaseMessageLike[][], options?: unknown, callbacks?: unknown): Promise<LLMResult> {
      const parsed = Array.isArray(options) ? { stop: options } : options;
      const lists = messages.map((list) => list.map(coerceMessageLikeToMessage));
      const compressed = await Promise.all(lists.map((list) => compress(list, parsed)));
      const prompts = lists.map((list, index) => compressed[index]?.messages ?? list);
      const result: LLMResult = await base.generate.call(this, prompts, options, callbacks);
      result.generations.forEach((generation, index) => {
        const estimate = compressed[index]?.estimatedTokens;
        const message = (generation[0] as ChatGeneration | undefined)?.message;
        if (estimate !== undefined) engine.recordUsage(info.modelKey, estimate, reportedInputTokens(message));
      });
      return result;
    },
    async *_streamIterator(this: T, input: BaseLanguageModelInput, options?: unknown) {
      if (!streamsNatively(model, this)) {
        // LangChain falls back to `invoke`, which compresses in `generate`.
        yield* base._streamIterator.call(this, input, options);
        return;
      }
      const compressed = await compress(inputMessages(input), options);
      let reported: number | undefined;
      for await (const chunk of base._streamIterator.call(this, compressed?.messages ?? input, options)) {
        const tokens = reportedInputTokens(chunk);
        if (tokens !== undefined) reported = (reported ?? 0) + tokens;
        yield chunk;
      }
      if (compressed) engine.recordUsage(info.modelKey, compressed.estimatedTokens, reported);
    },
    streamEvents(this: T, input: BaseLanguageModelInput, options?: Loose, streamOptions?: unknown) {
      if (options?.version === 'v1' || options?.version === 'v2')
        return base.streamEvents.call(this, input, options, streamOptions);
      const self = this as Loose;
      const [, callOptions] = self._separateRunnableConfigFromCallOptionsCompat(options);
      async function* events() {
        const messages = inputMessages(input);
        const compressed = await compress(messages, options);
        yield* self._streamChatModelEvents(compressed?.messages ?? messages, callOptions);
      }
      return new ChatModelStream(events());
    },
    bindTools(this: T, ...args: unknown[]) {
      return keepCompressing(base.bindTools.apply(this, args), engine, info);
    },
    withConfig(this: T, ...args: unknown[]) {
      return keepCompressing(base.withConfig.apply(this, args), engine, info);
    },
    withStructuredOutput(this: T, ...args: unknown[]) {
      return keepCompressing(base.withStructuredOutput.apply(this, args), engine, info);
    },
    // langchain's initChatModel (ConfigurableModel) hands every call to a model it makes per call: wrap that one
    async _getModelInstance(this: T, ...args: unknown[]) {
      return keepCompressing(await base._getModelInstance.apply(this, args), engine, info);
    },
  };
  for (const [name, value] of Object.entries(methods))
    Object.defineProperty(wrapped, name, { value, writable: true, configurable: true });
  for (const name of ['bindTools', '_getModelInstance'])
    if (typeof base[name] !== 'function') delete (wrapped as Loose)[name];
  compressing.add(wrapped);
  return wrapped;
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
  if (compressing.has(model))
    throw new InvalidOptionError({ option: 'model', message: 'this model already compresses its calls' });
  const engine = createEngine(options);
  const info = modelInfo(model);
  engine.budgetFor(info.modelId, info.contextWindow);
  return compressingModel(model, engine, info);
}
