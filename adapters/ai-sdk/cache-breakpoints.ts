import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';

/**
 * Prompt-cache breakpoints for providers that cache only where the request says so (Anthropic, also through Vertex):
 * without them a compressed prompt is billed in full on every call, and the savings the cost model counts never
 * happen. OpenAI and Gemini cache a prompt's prefix on their own and get nothing.
 */

/** Breakpoints Anthropic allows in one request (tools, system and messages together). */
export const MAX_ANTHROPIC_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Whether a model's provider caches only at explicit breakpoints (`anthropic.messages`, `vertex.anthropic...`). */
export function cachesAtBreakpoints(provider: string): boolean {
  return /(^|\.)anthropic(\.|$)/.test(provider);
}

function hasBreakpoint(options: SharedV4ProviderOptions | undefined): boolean {
  const anthropic = options?.anthropic as Record<string, unknown> | undefined;
  return anthropic?.cacheControl !== undefined || anthropic?.cache_control !== undefined;
}

/** The caller's breakpoints: on tools, messages and parts. */
export function countBreakpoints(prompt: LanguageModelV4Prompt, tools: LanguageModelV4CallOptions['tools']): number {
  let count = (tools ?? []).filter((tool) =>
    hasBreakpoint((tool as { providerOptions?: SharedV4ProviderOptions }).providerOptions),
  ).length;
  for (const message of prompt) {
    if (hasBreakpoint(message.providerOptions)) count++;
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (hasBreakpoint((part as { providerOptions?: SharedV4ProviderOptions }).providerOptions)) count++;
    }
  }
  return count;
}

/**
 * The prompt with breakpoints where this package's prompts stay the same from call to call, in this order while the
 * provider's limit leaves room beside the caller's own: the end of the prompt (the next call extends it, and reads
 * it all), the end of the session-state pair (read again after a mask changes a later message), the end of the system
 * prompt and awareness block (read again after a fold changes the state). Messages that get one are copies: the
 * caller's objects are never changed, and a message that carries a breakpoint already gets no second one.
 */
export function withCacheBreakpoints(
  prompt: LanguageModelV4Prompt,
  tools: LanguageModelV4CallOptions['tools'],
  { systemEnd, stateEnd }: { systemEnd: number; stateEnd: number | undefined },
): LanguageModelV4Prompt {
  let room = MAX_ANTHROPIC_BREAKPOINTS - countBreakpoints(prompt, tools);
  if (room <= 0) return prompt;
  const positions = [prompt.length - 1, stateEnd, systemEnd].filter(
    (index, at, all): index is number =>
      index !== undefined && index >= 0 && index < prompt.length && all.indexOf(index) === at,
  );
  const marked = [...prompt];
  for (const index of positions) {
    if (room <= 0) break;
    const message = marked[index] as LanguageModelV4Message;
    if (hasBreakpoint(message.providerOptions) || hasPartBreakpoint(message)) continue;
    marked[index] = {
      ...message,
      providerOptions: {
        ...message.providerOptions,
        anthropic: { ...message.providerOptions?.anthropic, cacheControl: EPHEMERAL },
      },
    } as LanguageModelV4Message;
    room--;
  }
  return marked;
}

function hasPartBreakpoint(message: LanguageModelV4Message): boolean {
  return (
    typeof message.content !== 'string' &&
    message.content.some((part) =>
      hasBreakpoint((part as { providerOptions?: SharedV4ProviderOptions }).providerOptions),
    )
  );
}
