import type { ImageSize } from './image-size.js';
import { openAIImageRule, openAIImageTokens } from './openai-image-tokens.js';
import type { FileCounting } from './provider-family.js';

/**
 * The size an image of unknown size (a URL, bytes that are not a PNG, JPEG, GIF or WebP) is counted at: 2048x2048,
 * the largest OpenAI reads before scaling, larger than what Claude keeps; each provider's rule then applies.
 */
export const DEFAULT_IMAGE_SIZE = { width: 2048, height: 2048 } as const;

/** Most tokens Claude gives one image: about 1.15 megapixels at 750 pixels a token. */
const ANTHROPIC_MAX_IMAGE_TOKENS = 1_600;

/**
 * Claude's count (https://docs.anthropic.com/en/docs/build-with-claude/vision#evaluate-image-size): an image whose
 * long edge exceeds 1568 px is scaled down to it, and one of more than ~1,600 tokens (~1.15 megapixels) down to
 * that; then tokens = width * height / 750 (1000x1000 is ~1,334).
 */
export function anthropicImageTokens({ width, height }: { width: number; height: number }): number {
  const scale = Math.min(1, 1568 / Math.max(width, height));
  return Math.min(ANTHROPIC_MAX_IMAGE_TOKENS, Math.ceil((width * scale * (height * scale)) / 750));
}

/**
 * Gemini's count (https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens): an image with both sides at most
 * 384 px is 258 tokens; a larger one is cropped and scaled into 768x768 tiles of 258 tokens each.
 */
export function geminiImageTokens({ width, height }: { width: number; height: number }): number {
  if (width <= 384 && height <= 384) return 258;
  return Math.ceil(width / 768) * Math.ceil(height / 768) * 258;
}

/**
 * Tokens of an image of `size` (unknown: `DEFAULT_IMAGE_SIZE`) for the provider of `counting`; `detail` is OpenAI's
 * `low`, `high` or `auto`. An unknown provider counts the largest of Claude's, gpt-4o's and Gemini's counts.
 */
export function imageTokens(size: ImageSize | undefined, counting: FileCounting, detail?: string): number {
  const pixels = size ?? DEFAULT_IMAGE_SIZE;
  switch (counting.family) {
    case 'anthropic':
      return anthropicImageTokens(pixels);
    case 'openai':
      return openAIImageTokens(openAIImageRule(counting.modelId ?? ''), pixels, detail);
    case 'google':
      return geminiImageTokens(pixels);
    default:
      return Math.max(
        anthropicImageTokens(pixels),
        openAIImageTokens(openAIImageRule('gpt-4o'), pixels, detail),
        geminiImageTokens(pixels),
      );
  }
}
