import type { z } from 'zod';
import { mergeRules } from './merge-options.js';
import { group, whole } from './option-fields.js';

/** Options of `extractiveSummarizer`. */
export const ExtractiveSummarizerOptionsSchema = group({
  /** Most logos entries one fold adds; the highest-scoring sentences win. @default 40 */
  maxLogos: whole(0).default(40),
  /** Longest kept sentence or line, in characters; longer ones are cut and end with `…`. @default 300 */
  maxSentenceChars: whole(2, ' of characters').default(300),
  /** Most lines kept from one tool result, besides the line that names the call. @default 3 */
  maxToolLines: whole(0).default(3),
  /** Most characters of the whole merged state; the oldest entries are dropped first. @default 12000 */
  maxChars: whole(0, ' of characters').default(12_000),
  /** How the new state is merged into the previous one (similarity, entry limits). @default {} */
  merge: group(mergeRules).prefault({}),
});

/** Options of `extractiveSummarizer`. */
export type ExtractiveSummarizerOptions = z.input<typeof ExtractiveSummarizerOptionsSchema>;

/** Extractive summarizer options with every default in place. */
export type ExtractiveSummarizerSettings = z.output<typeof ExtractiveSummarizerOptionsSchema>;
