/**
 * What the provider said of a call in its usage, beside our own figures: its count of the prompt, what its prompt
 * cache read and wrote, and the answer's tokens. Each field is there when the provider reported it.
 */
export type ProviderUsage = {
  /** The prompt's tokens, cache reads and writes included. */
  inputTokens?: number;
  /** Prompt tokens read from the provider's cache (Anthropic's `cache_read_input_tokens`, OpenAI's `cached_tokens`). */
  cacheReadTokens?: number;
  /** Prompt tokens written to the provider's cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  outputTokens?: number;
};

/**
 * What a model summarizer's provider reported of its calls for one fold, summed over them (a fold in chunks makes
 * several), with the model that answered.
 */
export type SummarizerUsage = ProviderUsage & {
  /** The model (or models, joined by `, `) that answered. */
  readonly model?: string;
};

const FIELDS = ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens'] as const;

/** Two usages summed; undefined when neither is there. Only finite numbers count. */
export function addSummarizerUsage(
  a: SummarizerUsage | undefined,
  b: SummarizerUsage | undefined,
): SummarizerUsage | undefined {
  if (!a) return b && cleanUsage(b);
  if (!b) return cleanUsage(a);
  const sum: Record<string, number | string> = {};
  for (const field of FIELDS) {
    const values = [a[field], b[field]].filter((value): value is number => Number.isFinite(value));
    if (values.length > 0) sum[field] = values.reduce((total, value) => total + value, 0);
  }
  const models = [...new Set([a.model, b.model].flatMap((model) => (model ? model.split(', ') : [])))];
  if (models.length > 0) sum.model = models.join(', ');
  return sum as SummarizerUsage;
}

/** The usage with only its finite figures and a non-empty model; undefined when nothing is left. */
export function cleanUsage(usage: SummarizerUsage): SummarizerUsage | undefined {
  const clean: Record<string, number | string> = {};
  for (const field of FIELDS) {
    const value = usage[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) clean[field] = value;
  }
  if (typeof usage.model === 'string' && usage.model !== '') clean.model = usage.model;
  return Object.keys(clean).length > 0 ? (clean as SummarizerUsage) : undefined;
}
