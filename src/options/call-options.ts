import type { z } from 'zod';
import { flag, group, type StrictObject, text } from './option-fields.js';
import { parseOptions } from './option-issue-error.js';

/** The key under which every adapter reads per-call options (AI SDK `providerOptions`, LangChain `configurable`). */
export const CALL_OPTIONS_KEY = 'context-compression';

const callOptionsShape = {
  /** Separates stored state, e.g. per user or tenant; added to the engine's namespace. @default '' */
  namespace: text().default(''),
  /** Sends this call's prompt untouched. @default false */
  disable: flag().default(false),
  /** Folds all complete turns now, whatever the budget says. @default false */
  force: flag().default(false),
};

/** Per-call options, the same for every adapter. */
export const CallOptionsSchema: StrictObject<typeof callOptionsShape> = group(callOptionsShape);

/** Per-call options: `namespace`, `disable`, `force`. */
export type ContextCompressionCallOptions = z.input<typeof CallOptionsSchema>;

/** Per-call options with every default in place. */
export type ResolvedCallOptions = z.output<typeof CallOptionsSchema>;

/** The options of a call that gives none: checked once, shared by every such call. */
const NO_CALL_OPTIONS: Readonly<ResolvedCallOptions> = Object.freeze(parseOptions(CallOptionsSchema, undefined, ''));

/** Validates per-call options found at `where` (for the error message), defaults filled in; `undefined` means none. */
export function parseCallOptions(raw: unknown, where: string): ResolvedCallOptions {
  return raw === undefined ? NO_CALL_OPTIONS : parseOptions(CallOptionsSchema, raw, where);
}
