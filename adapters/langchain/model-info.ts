import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { type FileCounting, type ProviderFamily, providerFamily } from '../../src/counting/provider-family.js';
import { anthropicWindow, betaFlags, outputCountsAgainstWindow } from '../../src/options/context-windows.js';

/** What the engine needs to know of a LangChain chat model. */
export interface ModelInfo {
  /** The model's name for the context-window table, e.g. `gpt-4o`. */
  readonly modelId: string;
  /** Key of the per-model calibration: `llmType:modelId`. */
  readonly modelKey: string;
  /**
   * The window from the model's profile (`maxInputTokens`), when it has one; for Claude, the standard 200k unless
   * the model's beta flags open the long window (a profile gives the long one, which the API takes only with it).
   */
  readonly contextWindow: number | undefined;
  /** A larger window a call's own beta flags open (`betas` in its options): Claude's `context-1m`. */
  readonly flaggedWindow?: number | undefined;
  /**
   * Output tokens every call asks for, when the model's window holds them (see `outputCountsAgainstWindow`): the
   * model's `maxTokens` (ChatAnthropic always has one, its default for the model), `maxOutputTokens` or `max_tokens`
   * in its kwargs; undefined when it sets none.
   */
  readonly maxOutputTokens: number | undefined;
  /** The provider and model its files and images are counted for. */
  readonly files: FileCounting;
  /**
   * Whether the model's provider caches a prompt only up to the `cache_control` marks it is sent (`ChatAnthropic`,
   * whose `_llmType()` is `anthropic`): it gets breakpoints where the prompt stays the same.
   */
  readonly cachesAtBreakpoints: boolean;
}

/** True for a LangChain chat model (duck-typed, so a second copy of @langchain/core is recognized too). */
export function isChatModel(value: unknown): value is BaseChatModel {
  const model = value as Record<string, unknown> | null;
  return (
    typeof model === 'object' &&
    model !== null &&
    typeof model.generate === 'function' &&
    typeof model.invoke === 'function' &&
    typeof model._generate === 'function'
  );
}

const NAME_FIELDS = ['model', 'modelName', 'model_name', 'modelId'] as const;

/**
 * The model of langchain's initChatModel (a ConfigurableModel), kept in its default config as `model` or
 * `provider:model`; the provider prefix (lowercase letters, no model provider given) is left out.
 */
function configuredModel(model: object): string | undefined {
  const config = fieldOf(model, '_defaultConfig') as { model?: unknown; modelProvider?: unknown } | undefined;
  if (typeof config?.model !== 'string' || config.model === '') return undefined;
  const prefixed = config.modelProvider === undefined && /^[a-z][a-z-]*:/.test(config.model);
  return prefixed ? config.model.slice(config.model.indexOf(':') + 1) : config.model;
}

/** A field of a model read by name: models keep their name under different fields, some only on one class. */
function fieldOf(model: object, name: string): unknown {
  return Reflect.get(model, name);
}

/** The model's `_llmType()`, or `chat` when it has none or it throws. */
function llmType(model: object): string {
  const method = fieldOf(model, '_llmType');
  try {
    const type: unknown = typeof method === 'function' ? Reflect.apply(method, model, []) : undefined;
    return typeof type === 'string' ? type : 'chat';
  } catch {
    return 'chat';
  }
}

/**
 * The provider family of a model from the names that tell it: `_llmType()`, the class name, the provider of an
 * initChatModel's default config and, only when these name none (it runs code of the model), `getLsParams`'s
 * `ls_provider`; else from the model id.
 */
function familyOf(model: object, type: string, modelId: string): ProviderFamily {
  const config = fieldOf(model, '_defaultConfig') as { model?: unknown; modelProvider?: unknown } | undefined;
  const names: unknown[] = [
    type,
    (model as { constructor?: { name?: unknown } }).constructor?.name,
    config?.modelProvider,
    typeof config?.model === 'string' ? config.model.split(':')[0] : undefined,
  ];
  const named = providerFamily(names.filter((name) => typeof name === 'string').join(' '));
  if (named !== 'unknown') return named;
  let provider: unknown;
  try {
    const method = fieldOf(model, 'getLsParams');
    if (typeof method === 'function')
      provider = (Reflect.apply(method, model, [{}]) as { ls_provider?: unknown })?.ls_provider;
  } catch {}
  return providerFamily(typeof provider === 'string' ? provider : '', modelId);
}

/** Reads a chat model's name, type, provider and profile window without calling it. */
export function modelInfo(model: object): ModelInfo {
  const type = llmType(model);
  const named = NAME_FIELDS.map((field) => fieldOf(model, field)).find(
    (value) => typeof value === 'string' && value !== '',
  );
  const modelId = typeof named === 'string' ? named : (configuredModel(model) ?? type);
  let contextWindow: number | undefined;
  try {
    const window = (fieldOf(model, 'profile') as BaseChatModel['profile'] | undefined)?.maxInputTokens;
    if (typeof window === 'number' && Number.isInteger(window) && window > 0) contextWindow = window;
  } catch {}
  const files = { family: familyOf(model, type, modelId), modelId };
  const windows = files.family === 'anthropic' ? claudeWindows(model, modelId, contextWindow) : undefined;
  return {
    modelId,
    modelKey: `${type}:${modelId}`,
    contextWindow: windows?.window ?? contextWindow,
    flaggedWindow: windows?.flagged,
    maxOutputTokens: outputCountsAgainstWindow(files.family, modelId) ? outputTokensOf(model) : undefined,
    files,
    cachesAtBreakpoints: type === 'anthropic',
  };
}

const positive = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;

/**
 * The output tokens a model asks for on every call (see `ModelInfo.maxOutputTokens`): what its request kwargs set
 * (ChatAnthropic's `invocationKwargs`, ChatOpenAI's `modelKwargs`), else its `maxTokens` or `maxOutputTokens`.
 */
function outputTokensOf(model: object): number | undefined {
  const kwargs = [fieldOf(model, 'invocationKwargs'), fieldOf(model, 'modelKwargs')] as (
    | Record<string, unknown>
    | undefined
  )[];
  const fromKwargs = kwargs.map((each) => positive(each?.max_tokens) ?? positive(each?.max_completion_tokens));
  return (
    fromKwargs.find((value) => value !== undefined) ??
    positive(fieldOf(model, 'maxTokens')) ??
    positive(fieldOf(model, 'maxOutputTokens'))
  );
}

/**
 * A Claude model's window with the beta flags it was made with (`betas`, an `anthropic-beta` default header), and the
 * larger one a call's own flags may open; undefined for a model id that is not Claude's.
 */
function claudeWindows(model: object, modelId: string, profile: number | undefined) {
  const clientOptions = fieldOf(model, 'clientOptions') as { defaultHeaders?: Record<string, unknown> } | undefined;
  const flags = betaFlags(fieldOf(model, 'betas'), clientOptions?.defaultHeaders?.['anthropic-beta']);
  const window = anthropicWindow(modelId, flags, profile);
  if (window === undefined) return undefined;
  const long = anthropicWindow(modelId, [...flags, 'context-1m'], profile);
  return { window, flagged: long !== undefined && long > window ? long : undefined };
}

/** The window of one call of a model: its info's, or the larger one the call's own beta flags open. */
export function callWindow(info: ModelInfo, options: unknown): number | undefined {
  if (info.flaggedWindow === undefined) return info.contextWindow;
  const flags = betaFlags((options as { betas?: unknown } | undefined)?.betas);
  return flags.some((flag) => flag.startsWith('context-1m')) ? info.flaggedWindow : info.contextWindow;
}

/**
 * Input tokens a provider reported for a call, from `usage_metadata`. LangChain counts cache reads and cache
 * writes inside `input_tokens`; where a provider reports them beside it instead, they are added.
 */
export function reportedInputTokens(message: BaseMessage | undefined): number | undefined {
  const usage = (message as { usage_metadata?: UsageLike } | undefined)?.usage_metadata;
  if (!usage || typeof usage.input_tokens !== 'number') return undefined;
  const details = usage.input_token_details ?? {};
  const cached = (details.cache_read ?? 0) + (details.cache_creation ?? 0);
  return cached > usage.input_tokens ? usage.input_tokens + cached : usage.input_tokens;
}

interface UsageLike {
  input_tokens?: number;
  input_token_details?: { cache_read?: number; cache_creation?: number };
}
