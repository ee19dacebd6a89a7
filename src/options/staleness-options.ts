import type { z } from 'zod';
import { callback, group, number, whole } from './option-fields.js';

const weight = () => number('a number of at least 0', (schema) => schema.min(0));

/** Options of the staleness detector (seed formula: 0.3 age + 0.4 references + 0.3 relevance, threshold 0.7). */
export const StalenessOptionsSchema = group({
  /** Weights of age, missing recent references and missing relevance. @default { age: 0.3, references: 0.4, relevance: 0.3 } */
  weights: group({
    /** Weight of the observation's age. */
    age: weight(),
    /** Weight of the missing references to it in the recent steps. */
    references: weight(),
    /** Weight of its missing relevance to the recent steps. */
    relevance: weight(),
  }).default({ age: 0.3, references: 0.4, relevance: 0.3 }),
  /** Steps after which an observation counts as fully aged. @default 20 */
  maxAge: whole(1, ' of steps').default(20),
  /** References in the recent window that make an observation fully referenced. @default 3 */
  maxReferences: whole(1).default(3),
  /** Recent steps read for references and relevance. @default 5 */
  window: whole(1, ' of steps').default(5),
  /** Score from which an observation is stale. @default 0.7 */
  threshold: weight().default(0.7),
  /**
   * Relevance (0 to 1) of an observation to the recent context; plug in embeddings here.
   * @default lexical TF-IDF cosine
   */
  relevance: callback<(observation: string, context: string) => number>().optional(),
});

/** Options of the staleness detector. */
export type StalenessOptions = z.input<typeof StalenessOptionsSchema>;

/** Staleness options with every default in place. */
export type StalenessSettings = z.output<typeof StalenessOptionsSchema>;

/** Defaults of the staleness detector (seed formula: 0.3 age + 0.4 references + 0.3 relevance, threshold 0.7). */
export const DEFAULT_STALENESS_OPTIONS: Readonly<StalenessSettings> = Object.freeze(StalenessOptionsSchema.parse({}));
