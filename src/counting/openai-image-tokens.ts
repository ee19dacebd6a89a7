/**
 * OpenAI's image counts, from "Images and vision: calculating costs"
 * (https://platform.openai.com/docs/guides/images-vision#calculating-costs). Two rules by model:
 * - tiles: `detail: "low"` is the base tokens; `"high"` (and `"auto"`, counted as high) fits the image within
 *   2048x2048, scales it down so its shortest side is at most 768, and adds the tile tokens per 512-px tile;
 * - patches: the 32-px patches covering the image, at most 1536 (a larger image is scaled down to fit), times the
 *   model's multiplier.
 */

/** How one OpenAI model counts an image. */
export type OpenAIImageRule =
  | { readonly kind: 'tiles'; readonly base: number; readonly tile: number }
  | { readonly kind: 'patches'; readonly multiplier: number };

/** gpt-4o, gpt-4.1, gpt-4.5 and models not in the table. */
const GPT_4O: OpenAIImageRule = { kind: 'tiles', base: 85, tile: 170 };

/** The published table, most specific id first (matched as a prefix of the model id). */
const RULES: readonly (readonly [string, OpenAIImageRule])[] = [
  ['gpt-4.1-mini', { kind: 'patches', multiplier: 1.62 }],
  ['gpt-4.1-nano', { kind: 'patches', multiplier: 2.46 }],
  ['gpt-5-mini', { kind: 'patches', multiplier: 1.62 }],
  ['gpt-5-nano', { kind: 'patches', multiplier: 2.46 }],
  ['o4-mini', { kind: 'patches', multiplier: 1.72 }],
  ['gpt-4o-mini', { kind: 'tiles', base: 2833, tile: 5667 }],
  ['gpt-5', { kind: 'tiles', base: 70, tile: 140 }],
  ['o1', { kind: 'tiles', base: 75, tile: 150 }],
  ['o3', { kind: 'tiles', base: 75, tile: 150 }],
  ['computer-use-preview', { kind: 'tiles', base: 65, tile: 129 }],
];

/** The rule of a model id (`gpt-4o`, `openai/gpt-4.1-mini`, `gpt-4o-mini-2024-07-18`); gpt-4o's for others. */
export function openAIImageRule(modelId: string): OpenAIImageRule {
  const id = modelId.toLowerCase().slice(modelId.lastIndexOf('/') + 1);
  return RULES.find(([prefix]) => id.startsWith(prefix))?.[1] ?? GPT_4O;
}

/** Most 32-px patches an image takes on a patch model. */
const MAX_PATCHES = 1536;

/** Tokens of a `width` x `height` image under `rule`; `detail` is the part's `low`, `high` or `auto`. */
export function openAIImageTokens(
  rule: OpenAIImageRule,
  { width, height }: { width: number; height: number },
  detail?: string,
): number {
  if (rule.kind === 'patches') return Math.ceil(patches(width, height) * rule.multiplier);
  if (detail === 'low') return rule.base;
  let scale = Math.min(1, 2048 / Math.max(width, height));
  scale *= Math.min(1, 768 / (Math.min(width, height) * scale));
  const tiles = cover(width * scale, 512) * cover(height * scale, 512);
  return rule.base + rule.tile * tiles;
}

/** Squares of `side` px covering `length` px; a length off a multiple by rounding alone is that multiple. */
const cover = (length: number, side: number) => Math.max(1, Math.ceil(length / side - 1e-9));

/** The 32-px patches of an image, scaled down as the guide shows when they are more than 1536. */
function patches(width: number, height: number): number {
  const raw = Math.ceil(width / 32) * Math.ceil(height / 32);
  if (raw <= MAX_PATCHES) return raw;
  let scale = Math.sqrt((32 * 32 * MAX_PATCHES) / (width * height));
  const across = (width * scale) / 32;
  const down = (height * scale) / 32;
  // shrunk further so that a whole number of patches fits the side that would cross a patch boundary
  scale *= Math.min(Math.floor(across) / across, Math.floor(down) / down);
  return Math.min(MAX_PATCHES, cover(width * scale, 32) * cover(height * scale, 32));
}
