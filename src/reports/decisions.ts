/** The semantic triggers: a finished segment of work, told apart by what ended it. */
export const SEMANTIC_TRIGGERS = [
  'subtask',
  'intent',
  'boundary:file',
  'boundary:module',
  'boundary:test',
  'boundary:api',
] as const;

/** Every trigger name. Semantic triggers come first, then staleness, then the budget fallbacks. */
export const TRIGGER_NAMES = [
  ...SEMANTIC_TRIGGERS,
  'staleness',
  'budget',
  'turns',
  'hard-limit',
  'oversized-result',
  'redaction',
  'recall',
  'forced',
] as const;

/** What caused a compression. */
export type TriggerName = (typeof TRIGGER_NAMES)[number];

/** Which part of the transcript a decision acts on: a message range (end exclusive) or tool calls by id. */
export type DecisionScope =
  | { readonly kind: 'messages'; readonly from: number; readonly to: number }
  | { readonly kind: 'observations'; readonly toolCallIds: readonly string[] };

/** One decision of the engine, with why it was taken; the decision log of a call is an array of them. */
export interface CompressionDecision {
  readonly trigger: TriggerName;
  readonly scope: DecisionScope;
  /** 0 to 1; budget rules are certain (1), heuristics less so. */
  readonly confidence: number;
  readonly details: string;
}
