/**
 * Context windows (input tokens) of common models, matched by the longest known prefix of the model id.
 * A small table for convenience; pass `contextWindow` for anything else.
 */
export const KNOWN_CONTEXT_WINDOWS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['gpt-5', 400_000],
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
