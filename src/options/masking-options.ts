import type { z } from 'zod';
import { group, toolNames, whole } from './option-fields.js';

/** Options of observation masking: old tool results become short placeholders, their calls stay. */
export const MaskingOptionsSchema = group({
  /** Tool results kept verbatim, counted from the newest. @default 10 */
  keepRecent: whole(0).default(10),
  /** A masking step must free at least this many tokens, so the masked boundary moves in batches. @default 2000 */
  clearAtLeast: whole(0, ' of tokens').default(2_000),
  /** Tools whose results are never masked or redacted. @default [] */
  excludeTools: toolNames().default([]),
});

/** Options of observation masking: old tool results become short placeholders, their calls stay. */
export type MaskingOptions = z.input<typeof MaskingOptionsSchema>;

/** Masking options with every default in place. */
export type MaskingSettings = z.output<typeof MaskingOptionsSchema>;

/** Defaults of observation masking. */
export const DEFAULT_MASKING_OPTIONS: Readonly<MaskingSettings> = Object.freeze(MaskingOptionsSchema.parse({}));
