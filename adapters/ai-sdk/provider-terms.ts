import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { providerFamily } from '../../src/counting/provider-family.js';
import { ANTHROPIC_LONG_WINDOW, anthropicWindow, betaFlags } from '../../src/options/context-windows.js';

/**
 * The `max_tokens` `@ai-sdk/anthropic` sends for a model when the call gives no `maxOutputTokens`: its runtime rules
 * (`getAnthropicModelCapabilities`, v4), first match wins; 4096 for a model they do not name. Anthropic counts it
 * against the window with the input, so the budget must keep it free.
 */
const ANTHROPIC_DEFAULT_OUTPUT: ReadonlyArray<readonly [RegExp, number]> = [
  [/claude-(?:sonnet-5|opus-5|haiku-5-5|fable-5|opus-4-[678]|sonnet-4-6|opus-4-6)/, 128_000],
  [/claude-(?:sonnet-4-5|opus-4-5|haiku-4-5)/, 64_000],
  [/claude-opus-4-1/, 32_000],
  [/claude-sonnet-4(?:-|@)/, 64_000],
  [/claude-opus-4(?:-|@)/, 32_000],
];
const ANTHROPIC_FALLBACK_OUTPUT = 4_096;

/** `@ai-sdk/anthropic`'s default `max_tokens` for a model id (see `ANTHROPIC_DEFAULT_OUTPUT`). */
export function anthropicDefaultMaxTokens(modelId: string): number {
  return ANTHROPIC_DEFAULT_OUTPUT.find(([pattern]) => pattern.test(modelId))?.[1] ?? ANTHROPIC_FALLBACK_OUTPUT;
}

type Options = Record<string, unknown> | undefined;

/** The provider options of a call for Anthropic (`anthropic`, or the key a provider made with another name uses). */
function anthropicOptions(params: LanguageModelV4CallOptions): Options {
  return params.providerOptions?.anthropic as Options;
}

/**
 * Output tokens a call asks for: its `maxOutputTokens`, else, for Anthropic's Messages API, the default the provider
 * package sends, with the thinking budget it adds (capped, as the package caps it, at the model's default).
 */
export function callOutputTokens(params: LanguageModelV4CallOptions, model: LanguageModelV4): number | undefined {
  if (providerFamily(model.provider, model.modelId) !== 'anthropic') return params.maxOutputTokens;
  const modelMax = anthropicDefaultMaxTokens(model.modelId);
  const thinking = anthropicOptions(params)?.thinking as { type?: unknown; budgetTokens?: unknown } | undefined;
  const budget = thinking?.type === 'enabled' && typeof thinking.budgetTokens === 'number' ? thinking.budgetTokens : 0;
  return params.maxOutputTokens === undefined ? modelMax : Math.min(params.maxOutputTokens + budget, modelMax);
}

/** A header of the call or of the model's own settings (`createAnthropic({ headers })`), when it can be read. */
function headerOf(params: LanguageModelV4CallOptions, model: LanguageModelV4, name: string): string[] {
  const config = (model as { config?: { headers?: unknown } }).config;
  const modelHeaders = typeof config?.headers === 'object' && config.headers !== null ? config.headers : undefined;
  return [params.headers?.[name], (modelHeaders as Record<string, unknown> | undefined)?.[name]].filter(
    (value): value is string => typeof value === 'string',
  );
}

/**
 * The window a call of a Claude model takes when a beta flag opens a larger one (`context-1m` in the call's or the
 * model's `anthropic-beta` header, or `providerOptions.anthropic.anthropicBeta`); undefined otherwise, so the option
 * or the table (the standard window) decides.
 */
export function callContextWindow(params: LanguageModelV4CallOptions, model: LanguageModelV4): number | undefined {
  if (providerFamily(model.provider, model.modelId) !== 'anthropic') return undefined;
  const flags = betaFlags(...headerOf(params, model, 'anthropic-beta'), anthropicOptions(params)?.anthropicBeta);
  const window = anthropicWindow(model.modelId, flags);
  return window === ANTHROPIC_LONG_WINDOW ? window : undefined;
}
