import { z } from 'zod';
import { optionIssueError } from './option-issue-error.js';

/** The key under which every adapter reads per-call options (AI SDK `providerOptions`, LangChain `configurable`). */
export const CALL_OPTIONS_KEY = 'context-compression';

/** Per-call options, the same for every adapter. */
export const CallOptionsSchema = z.strictObject(
  {
    /** Separates stored state, e.g. per user or tenant; added to the engine's namespace. */
    namespace: z.string({ error: 'a string' }).optional(),
    /** Sends this call's prompt untouched. */
    disable: z.boolean({ error: 'true or false' }).optional(),
    /** Folds all complete turns now, whatever the budget says. */
    force: z.boolean({ error: 'true or false' }).optional(),
  },
  { error: 'an object { namespace?, disable?, force? }' },
);

/** Per-call options: `namespace`, `disable`, `force`. */
export type ContextCompressionCallOptions = z.infer<typeof CallOptionsSchema>;

/** Validates per-call options found at `where` (for the error message); `undefined` means none. */
export function parseCallOptions(raw: unknown, where: string): ContextCompressionCallOptions {
  if (raw === undefined) return {};
  const parsed = CallOptionsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw optionIssueError(CallOptionsSchema, parsed.error.issues[0], raw, where);
}
