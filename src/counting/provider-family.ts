import { openAIImageRule } from './openai-image-tokens.js';

/** The providers whose published rules count files and images; `unknown` counts them as the largest of the three. */
export type ProviderFamily = 'anthropic' | 'openai' | 'google' | 'unknown';

/** What counting a file needs to know of the model it goes to. */
export interface FileCounting {
  readonly family: ProviderFamily;
  /** The model id, which picks OpenAI's rule (gpt-4o, gpt-4o-mini, the patch models). */
  readonly modelId?: string;
}

/** Counting for a model we know nothing of: the conservative defaults. */
export const UNKNOWN_FILE_COUNTING: FileCounting = { family: 'unknown' };

/**
 * The provider family of a model from its provider's name (the AI SDK's `anthropic.messages`, `openai.responses`,
 * `google.vertex.chat`; LangChain's `ls_provider`, `_llmType()` or class name) and, when that names none (a gateway,
 * Bedrock, an OpenAI-compatible proxy), from the model id (`claude-*`, `gpt-*`, `o3`, `gemini-*`).
 */
export function providerFamily(provider: string, modelId = ''): ProviderFamily {
  const name = provider.toLowerCase();
  if (name.includes('anthropic')) return 'anthropic';
  if (name.includes('openai') || name.includes('azure')) return 'openai';
  if (name.includes('google') || name.includes('vertex') || name.includes('gemini')) return 'google';
  const id = modelId.toLowerCase();
  if (id.includes('claude') || id.includes('anthropic')) return 'anthropic';
  if (/(^|[/.:])(gpt-|chatgpt|o[1-9]\b|o[1-9]-|computer-use)/.test(id)) return 'openai';
  if (id.includes('gemini')) return 'google';
  return 'unknown';
}

/**
 * A key naming how files are counted for `counting`: two models with the same key count every file alike, so a
 * conversion made for one serves the other.
 */
export function fileCountingKey(counting: FileCounting): string {
  if (counting.family !== 'openai') return counting.family;
  const rule = openAIImageRule(counting.modelId ?? '');
  return rule.kind === 'tiles' ? `openai:tiles:${rule.base}:${rule.tile}` : `openai:patches:${rule.multiplier}`;
}
