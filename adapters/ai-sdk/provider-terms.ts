import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { providerFamily } from '../../src/counting/provider-family.js';
import {
  ANTHROPIC_LONG_WINDOW,
  anthropicWindow,
  betaFlags,
  outputCountsAgainstWindow,
} from '../../src/options/context-windows.js';

/**
 * The `max_tokens` `@ai-sdk/anthropic` sends for a model when the call gives no `maxOutputTokens`: its runtime rules
 * (`resolveRuntimeDefinition`, v4), first match wins. `known` is whether the package knows the model (it then caps a
 * call's ask, thinking budget included, at this maximum).
 */
const ANTHROPIC_DEFAULT_OUTPUT: ReadonlyArray<readonly [RegExp, number, boolean]> = [
  [/claude-(?:sonnet-5|opus-5|haiku-5-5|fable-5|opus-4-[678]|sonnet-4-6)/, 128_000, true],
  [/claude-(?:sonnet-4-5|opus-4-5|haiku-4-5)/, 64_000, true],
  [/claude-opus-4-1/, 32_000, true],
  [/claude-sonnet-4(?:-|@)/, 64_000, true],
  [/claude-opus-4(?:-|@)/, 32_000, true],
  [/claude-3-haiku/, 4_096, true],
  [/claude-(?:instant(?:-|$)|v?2(?=$|[-.:])|3(?=$|[-.]))/, 4_096, false],
  // any other Claude model: the package's newest defaults
  [/claude-/, 128_000, false],
];
/** The package's default for a model id that names no Claude model. */
const ANTHROPIC_FALLBACK_OUTPUT = 4_096;
/** The thinking budget the package sends when thinking is enabled without one. */
const DEFAULT_THINKING_BUDGET = 1_024;

/** `@ai-sdk/anthropic`'s default `max_tokens` for a model id, and whether it caps a call's ask at it. */
export function anthropicDefaultMaxTokens(modelId: string): { readonly tokens: number; readonly known: boolean } {
  const rule = ANTHROPIC_DEFAULT_OUTPUT.find(([pattern]) => pattern.test(modelId));
  return rule ? { tokens: rule[1], known: rule[2] } : { tokens: ANTHROPIC_FALLBACK_OUTPUT, known: false };
}

type Options = Record<string, unknown> | undefined;

/** Whether the model is served by Anthropic's Messages API through its AI SDK package (directly or on Vertex). */
function anthropicMessages(model: LanguageModelV4): boolean {
  return /(^|\.)anthropic(\.|$)/.test(model.provider);
}

/**
 * Output tokens a call asks for, when the model's window holds them (Anthropic; OpenAI's models but GPT-5, whose
 * window is its input alone; not Gemini, whose window is input): its `maxOutputTokens`, else, for Anthropic's
 * Messages API, the `max_tokens` the provider package sends, with the thinking budget it adds (capped, as the package
 * caps it, at the maximum of a model it knows).
 */
export function callOutputTokens(params: LanguageModelV4CallOptions, model: LanguageModelV4): number | undefined {
  if (!outputCountsAgainstWindow(providerFamily(model.provider, model.modelId), model.modelId)) return undefined;
  if (!anthropicMessages(model)) return params.maxOutputTokens;
  const { tokens, known } = anthropicDefaultMaxTokens(model.modelId);
  const thinking = (params.providerOptions?.anthropic as Options)?.thinking as Options;
  const budget =
    thinking?.type !== 'enabled'
      ? 0
      : typeof thinking.budgetTokens === 'number'
        ? thinking.budgetTokens
        : DEFAULT_THINKING_BUDGET;
  const asked = (params.maxOutputTokens ?? tokens) + budget;
  return known ? Math.min(asked, tokens) : asked;
}

/** The value of a header, whatever the case of its name, in a headers record. */
function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null || typeof (headers as PromiseLike<unknown>).then === 'function')
    return undefined;
  const key = Object.keys(headers).find((each) => each.toLowerCase() === name);
  const value = key === undefined ? undefined : (headers as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The window a call of a Claude model takes when a beta flag opens a larger one (`context-1m` in the call's
 * `anthropic-beta` header or `providerOptions.anthropic.anthropicBeta`); undefined otherwise, so the option or the
 * table (the standard window) decides. A header set on the provider (`createAnthropic({ headers })`) is not read: the
 * package keeps it behind a function that also resolves the API key or token, which is not called here.
 */
export function callContextWindow(params: LanguageModelV4CallOptions, model: LanguageModelV4): number | undefined {
  if (!anthropicMessages(model)) return undefined;
  const flags = betaFlags(
    header(params.headers, 'anthropic-beta'),
    (params.providerOptions?.anthropic as Options)?.anthropicBeta,
  );
  const window = anthropicWindow(model.modelId, flags);
  return window === ANTHROPIC_LONG_WINDOW ? window : undefined;
}
