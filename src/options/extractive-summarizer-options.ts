import { z } from 'zod';
import { group, number, type StrictObject, whole } from './option-fields.js';

/*
 * The options of `extractiveSummarizer` and of `mergeSessionStates` in one file, each shape in a `const` of its own:
 * only so does TypeScript's declaration output keep the JSDoc of the nested merge options (see `StrictObject`).
 */

const maxEntriesShape = {
  /** Most facts kept. @default 200 */
  logos: whole(0).default(200),
  /** Most style notes kept. @default 30 */
  pathos: whole(0).default(30),
  /** Most defined terms kept. @default 50 */
  abstract: whole(0).default(50),
  /** Most verbatim quotes kept. @default 40 */
  salience: whole(0).default(40),
};

/** Most entries a list of the state may hold, per list. */
const MaxEntriesSchema: StrictObject<typeof maxEntriesShape> = group(maxEntriesShape);

const mergeRulesShape = {
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
  maxEntries: MaxEntriesSchema.prefault({}),
};

/** How a new state is merged into the previous one: when entries count as the same, and how many each list keeps. */
const MergeRulesSchema: StrictObject<typeof mergeRulesShape> = group(mergeRulesShape);

const mergeShape = {
  ...mergeRulesShape,
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
};

/** Options of `mergeSessionStates`. */
export const MergeSessionStateOptionsSchema: StrictObject<typeof mergeShape> = group(mergeShape);

/** Options of `mergeSessionStates`. */
export type MergeSessionStateOptions = z.input<typeof MergeSessionStateOptionsSchema>;

/** Merge options with every default in place. */
export type MergeSessionStateSettings = z.output<typeof MergeSessionStateOptionsSchema>;

const extractiveShape = {
  /** Most logos entries one fold adds; the highest-scoring sentences win. @default 40 */
  maxLogos: whole(0).default(40),
  /** Longest kept sentence or line, in characters; longer ones are cut and end with `…`. @default 300 */
  maxSentenceChars: whole(2, ' of characters').default(300),
  /** Most lines kept from one tool result, besides the line that names the call. @default 3 */
  maxToolLines: whole(0).default(3),
  /** Most characters of the whole merged state; the oldest entries are dropped first. @default 12000 */
  maxChars: whole(0, ' of characters').default(12_000),
  /** How the new state is merged into the previous one (similarity, entry limits). @default {} */
  merge: MergeRulesSchema.prefault({}),
};

/** Options of `extractiveSummarizer`. */
export const ExtractiveSummarizerOptionsSchema: StrictObject<typeof extractiveShape> = group(extractiveShape);

/** Options of `extractiveSummarizer`. */
export type ExtractiveSummarizerOptions = z.input<typeof ExtractiveSummarizerOptionsSchema>;

/** Extractive summarizer options with every default in place. */
export type ExtractiveSummarizerSettings = z.output<typeof ExtractiveSummarizerOptionsSchema>;
