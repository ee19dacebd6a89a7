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

type WithOptions = { providerOptions?: SharedV4ProviderOptions };

/** Breakpoints inside a part: on the part, and on a tool result's output and the parts of its content. */
function partBreakpoints(part: unknown): number {
  const withOptions = part as WithOptions & { output?: WithOptions & { value?: unknown } };
  let count = hasBreakpoint(withOptions.providerOptions) ? 1 : 0;
  const output = withOptions.output;
  if (output) {
    if (hasBreakpoint(output.providerOptions)) count++;
    if (Array.isArray(output.value)) {
      for (const inner of output.value) if (hasBreakpoint((inner as WithOptions).providerOptions)) count++;
    }
  }
  return count;
}

/**
 * The caller's breakpoints, as the provider counts them: on tools, on parts (and tool outputs), and on a message
 * only when its last part has none (the provider reads a message's breakpoint for its last part, in place of the
 * part's own).
 */
export function countBreakpoints(prompt: LanguageModelV4Prompt, tools: LanguageModelV4CallOptions['tools']): number {
  let count = (tools ?? []).filter((definition) => hasBreakpoint((definition as WithOptions).providerOptions)).length;
  for (const message of prompt) {
    if (typeof message.content === 'string') {
      if (hasBreakpoint(message.providerOptions)) count++;
      continue;
    }
    for (const part of message.content) count += partBreakpoints(part);
    const last = message.content.at(-1) as WithOptions | undefined;
    if (hasBreakpoint(message.providerOptions) && !hasBreakpoint(last?.providerOptions)) count++;
  }
  return count;
}

/**
 * The prompt with breakpoints where this package's prompts stay the same from call to call, in this order while the
 * provider's limit leaves room beside the caller's own: the end of the prompt (the next call extends it, and reads
 * it all), the message before a recall pair (a chat turn's recall block leaves with the next user message: what comes
 * before it is read again), the end of the session-state pair (read again after a mask changes a later message), the
 * end of the system prompt and awareness block (read again after a fold changes the state). Messages that get one are
 * copies: the caller's objects are never changed, and a message that carries a breakpoint already gets no second one.
 */
export function withCacheBreakpoints(
  prompt: LanguageModelV4Prompt,
  tools: LanguageModelV4CallOptions['tools'],
  {
    systemEnd,
    stateEnd,
    beforeRecall,
  }: { systemEnd: number; stateEnd: number | undefined; beforeRecall?: number | undefined },
): LanguageModelV4Prompt {
  let room = MAX_ANTHROPIC_BREAKPOINTS - countBreakpoints(prompt, tools);
  if (room <= 0) return prompt;
  const positions = [prompt.length - 1, beforeRecall, stateEnd, systemEnd].filter(
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
  return typeof message.content !== 'string' && message.content.some((part) => partBreakpoints(part) > 0);
}
