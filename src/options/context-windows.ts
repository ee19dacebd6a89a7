/**
 * Context windows (input tokens) of common models, matched by the longest known prefix of the model id.
 * A small table for convenience; pass `contextWindow` for anything else. Each is the window every account has: GPT-5
 * takes 272k input tokens of its 400k (the rest is output), and Claude's 1M window needs a beta flag (see
 * `anthropicWindow`).
 */
export const KNOWN_CONTEXT_WINDOWS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['gpt-5', 272_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['gemini-1.5-pro', 2_097_152],
  ['gemini-1.5-flash', 1_048_576],
  ['gemini-2.0', 1_048_576],
  ['gemini-2.5', 1_048_576],
  ['gemini-3', 1_048_576],
  ['claude-3', 200_000],
  ['claude-sonnet-4', 200_000],
  ['claude-opus-4', 200_000],
  ['claude-haiku-4', 200_000],
  ['claude-', 200_000],
];

/** The context window of a model id from the built-in table, or undefined when unknown. */
export function lookupContextWindow(modelId: string): number | undefined {
  const id = modelId.toLowerCase().replace(/^(models\/|openai\/|google\/|anthropic\/)/, '');
  let best: readonly [string, number] | undefined;
  for (const entry of KNOWN_CONTEXT_WINDOWS) {
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** Anthropic's standard window: the one every Claude model takes without a flag. */
export const ANTHROPIC_STANDARD_WINDOW = 200_000;
/** The window Anthropic opens with its `context-1m` beta flag, on the models that have it. */
export const ANTHROPIC_LONG_WINDOW = 1_000_000;
/** Claude models with a 1M-token window behind the `context-1m` beta flag. */
const LONG_CONTEXT_MODELS = /claude-(?:sonnet-4|sonnet-5|opus-4-[6-9]|opus-5|fable-5|mythos)/i;

/** The beta flags of a call, from an `anthropic-beta` header value or lists of flags. */
export function betaFlags(...sources: unknown[]): string[] {
  const flags: string[] = [];
  for (const source of sources) {
    if (typeof source === 'string') flags.push(...source.split(',').map((flag) => flag.trim()));
    else if (Array.isArray(source)) flags.push(...source.filter((flag): flag is string => typeof flag === 'string'));
  }
  return flags;
}

/**
 * The window of a Claude model for a call with these beta flags: 1M when the flags hold `context-1m` and the model has
 * that window, else the standard 200k, whatever a model profile or table says (LangChain's profiles give the 1M
 * window, which the API refuses without the flag). `known` is the window read elsewhere (a profile): it is kept when it
 * is the standard one or less. Undefined for a model that is not Claude.
 */
export function anthropicWindow(modelId: string, flags: readonly string[], known?: number): number | undefined {
  if (!/claude/i.test(modelId)) return undefined;
  const long = LONG_CONTEXT_MODELS.test(modelId) && flags.some((flag) => flag.startsWith('context-1m'));
  if (long) return known !== undefined && known > ANTHROPIC_STANDARD_WINDOW ? known : ANTHROPIC_LONG_WINDOW;
  return known !== undefined && known <= ANTHROPIC_STANDARD_WINDOW ? known : ANTHROPIC_STANDARD_WINDOW;
}

/**
 * Whether a model's window holds its output as well as its input, so the output a call asks for must be kept free
 * in it: Claude's (Anthropic rejects input plus `max_tokens` over the window), OpenAI's chat models' and those of
 * OpenAI-compatible servers (vLLM, llama.cpp); not GPT-5's (the table gives its input limit) nor Gemini's (its window
 * is input alone).
 */
export function outputCountsAgainstWindow(family: string, modelId: string): boolean {
  if (family === 'google' || /gemini/i.test(modelId)) return false;
  return !/^(?:openai\/)?gpt-5/i.test(modelId);
}
