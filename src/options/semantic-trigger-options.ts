import { z } from 'zod';
import { INTENT_ORDER } from '../signals/intent.js';
import type { Intent } from '../signals/step-signals.js';
import { DEFAULT_INTENT_TRANSITIONS } from '../signals/transcript-signals.js';
import { flag, group, whole } from './option-fields.js';

const intents = INTENT_ORDER.join(', ');
const transitionsAllowed = `an array of [from, to] pairs of intents (${intents})`;
const intent = z.enum(INTENT_ORDER as [Intent, ...Intent[]], { error: `an intent: ${intents}` });

/** Which semantic detectors run, and how much a semantic fold must free. */
export const SemanticTriggerOptionsSchema = group({
  /** Edit -> test -> pass sequences and explicit completion statements. @default true */
  subtask: flag().default(true),
  /** Transitions of the assistant's intent, e.g. EXPLORE -> IMPLEMENT. @default true */
  intent: flag().default(true),
  /** A switch of working file after edits. @default true */
  file: flag().default(true),
  /** A switch of module (leading directories) after edits. @default true */
  module: flag().default(true),
  /** A test that passes after it failed. @default true */
  test: flag().default(true),
  /** A successful state-changing API call of a function-calling agent (update_, book_, cancel_, ...). @default true */
  api: flag().default(true),
  /** Intent transitions that end a segment. @default DEFAULT_INTENT_TRANSITIONS */
  transitions: z
    .array(z.tuple([intent, intent], { error: 'a [from, to] pair of intents' }).readonly(), {
      error: transitionsAllowed,
    })
    .readonly()
    .meta({ allowed: transitionsAllowed })
    .default(DEFAULT_INTENT_TRANSITIONS),
  /** A semantic fold below the budget threshold must free at least this many tokens. @default 2000 */
  minTokens: whole(0, ' of tokens').default(2_000),
  /**
   * Put off a fold while the work after the segment still quotes the segment's tool results: a path, a name or a
   * value from a result that the assistant wrote again in a later step (see `findResultsInUse`). Hiding what the
   * agent works from is the likeliest way to make it fetch it again; the fold comes once the work moved on, or when
   * the budget asks. @default true
   */
  deferWhileQuoted: flag().default(true),
});

/** Which semantic detectors run, and how much a semantic fold must free. */
export type SemanticTriggerOptions = z.input<typeof SemanticTriggerOptionsSchema>;

/** Semantic trigger options with every default in place. */
export type SemanticTriggerSettings = z.output<typeof SemanticTriggerOptionsSchema>;

/** Defaults of the semantic triggers. */
export const DEFAULT_SEMANTIC_TRIGGER_OPTIONS: Readonly<SemanticTriggerSettings> = Object.freeze(
  SemanticTriggerOptionsSchema.parse({}),
);
