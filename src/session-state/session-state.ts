import { z } from 'zod';

/** Schema of the compressed memory of a conversation; summarizers with structured output return it. */
export const SessionStateSchema = z.object({
  /** Hard facts, decisions, constraints, names, values, paths: kept without loss. */
  logos: z.array(z.string()).describe('Hard facts, decisions, constraints, names, values, identifiers, file paths.'),
  /** Tone, style, running metaphors, implicit needs. */
  pathos: z.array(z.string()).describe('Tone, communication style, running metaphors, implicit needs.'),
  /** Concepts the user already understands: not to be explained again. */
  abstract: z.array(z.string()).describe('Concepts and frameworks the user already understands.'),
  /**
   * Verbatim quotes judged critical to the user's goal (the task, hard constraints, key decisions, exact values),
   * each a substring of the messages it came from; quotes that are not are discarded when the state is made.
   */
  salience: z
    .array(z.string())
    .optional()
    .describe("Exact quotes, character for character, of what is most critical to the user's goal."),
  /**
   * Kept by the engine, not by summarizers: one entry per folded span (`#13-40 · 8 May 2023 · Caroline, Melanie:
   * key, terms`), its detail by its relevance to the conversation when it was folded, every span present.
   */
  timeline: z
    .array(z.string())
    .optional()
    .describe('Which messages were condensed, when, who spoke, and their key terms (kept by the engine).'),
  /**
   * Kept by the engine, not by summarizers, when the call carries the retrieval tool: the tool calls folded into the
   * state (`<call id> <tool>(<arguments>)`), so their results can be asked for by id; the newest kept within a share.
   */
  toolCalls: z
    .array(z.string())
    .optional()
    .describe('The folded tool calls by id, whose results the retrieval tool gives back (kept by the engine).'),
  /**
   * Kept by the engine, not by summarizers: the files and images of folded messages (`#12 user: image/png
   * "photo.png", about 1,600 tokens`), so the model knows they were there and does not guess what they showed.
   */
  files: z
    .array(z.string())
    .optional()
    .describe('The files and images of condensed messages: where, kind, name, size (kept by the engine).'),
  /** A two to three sentence bridge: what happened and where things stand. */
  conversationSummary: z.string().describe('Two or three sentences: what happened and where things stand.'),
});

/**
 * Compressed memory of the folded part of a conversation. The first three fields are named as in rhetoric: `logos`
 * what was reasoned and settled (facts, decisions), `pathos` how it was said and felt (tone, needs), `abstract` the
 * ideas the user already holds; then exact quotes, the timeline, folded tool calls and a short summary.
 */
export type SessionState = z.infer<typeof SessionStateSchema>;

/**
 * What a model summarizer is asked to return: the state with `salience` required, since structured-output modes
 * (OpenAI's strict JSON schema) need every field. Its answer is read with `SessionStateSchema`, so a model that
 * leaves the quotes out still folds.
 */
export const SummarizerOutputSchema = SessionStateSchema.omit({ timeline: true, toolCalls: true, files: true }).extend({
  salience: z
    .array(z.string())
    .describe(
      "A few exact quotes, copied character for character from the messages, of what is most critical to the user's goal: the task, hard constraints, key decisions, exact values.",
    ),
});

/** A state with nothing in it. */
export const EMPTY_SESSION_STATE: SessionState = Object.freeze({
  logos: [],
  pathos: [],
  abstract: [],
  conversationSummary: '',
}) as SessionState;

/** `SummarizerOutputSchema` as a JSON schema (draft-07), for structured-output calls. */
export function summarizerOutputJsonSchema(): Record<string, unknown> {
  // strict structured output (OpenAI) needs additionalProperties: false on every object
  return {
    ...(z.toJSONSchema(SummarizerOutputSchema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>),
    additionalProperties: false,
  };
}
