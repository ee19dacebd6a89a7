import { z } from 'zod';
import { group, number, whole } from './option-fields.js';

/** How a new state is merged into the previous one: when entries count as the same, and how many each list keeps. */
export const mergeRules = {
  /**
   * Token Jaccard similarity (0 to 1) at or above which two entries are merged into one; 1 merges only entries that
   * are equal once whitespace, case and surrounding punctuation are ignored.
   * @default 0.85
   */
  similarity: number('a number greater than 0 and at most 1', (schema) => schema.gt(0).lte(1)).default(0.85),
  /**
   * Most entries kept per list; the oldest entries beyond it are dropped.
   * @default { logos: 200, pathos: 30, abstract: 50, salience: 40 }
   */
  maxEntries: group({
    /** Most facts kept. @default 200 */
    logos: whole(0).default(200),
    /** Most style notes kept. @default 30 */
    pathos: whole(0).default(30),
    /** Most defined terms kept. @default 50 */
    abstract: whole(0).default(50),
    /** Most verbatim quotes kept. @default 40 */
    salience: whole(0).default(40),
  }).prefault({}),
};

/** Options of `mergeSessionStates`. */
export const MergeSessionStateOptionsSchema = group({
  ...mergeRules,
  /**
   * Most characters of the whole state (see `sessionStateSize`); beyond it the oldest logos go first, then the
   * oldest pathos and abstract entries, and last the summary is cut.
   * @default Infinity
   */
  maxChars: z
    .union([number('a number of at least 0', (schema) => schema.min(0)), z.literal(Number.POSITIVE_INFINITY)], {
      error: 'a number of at least 0',
    })
    .default(Number.POSITIVE_INFINITY),
});

/** Options of `mergeSessionStates`. */
export type MergeSessionStateOptions = z.input<typeof MergeSessionStateOptionsSchema>;

/** Merge options with every default in place. */
export type MergeSessionStateSettings = z.output<typeof MergeSessionStateOptionsSchema>;
