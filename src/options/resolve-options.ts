import type { z } from 'zod';
import {
  type CompressionOptions,
  CompressionOptionsSchema,
  DEFAULT_MAX_TOOL_RESULT_SHARE,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
} from './compression-options.js';
import { checkReserve, checkShareOrder, readOptions } from './option-checks.js';
import { optionIssueError } from './option-issue-error.js';

type Parsed = z.output<typeof CompressionOptionsSchema>;

/**
 * The engine's options with every default in place, nested ones too. Two defaults depend on the model, so they are
 * rules: `reserveFor` a context window and `maxToolResultTokensFor` a budget.
 */
export interface ResolvedOptions extends Omit<Parsed, 'reserveOutputTokens' | 'maxToolResultTokens' | 'redaction'> {
  /** Tokens kept free for the answer in a context window of `contextWindow` tokens. */
  reserveFor(contextWindow: number): number;
  /** Tokens a tool result may take before it is shortened, in a budget of `budget` tokens. */
  maxToolResultTokensFor(budget: number): number;
  /** `excludeTools` filled from `masking.excludeTools` when not given. */
  readonly redaction: false | { readonly toolName: string; readonly excludeTools: readonly string[] };
}

/**
 * Checks the options and fills in every default: the one place defaults are applied. Mistakes fail here, when a
 * factory is called, with the option's path, the value given and the values allowed; unknown keys fail too, naming
 * the closest option.
 */
export function resolveOptions(options: CompressionOptions | undefined): ResolvedOptions {
  const given = readOptions(options);
  const parsed = CompressionOptionsSchema.safeParse(given);
  if (!parsed.success) throw optionIssueError(CompressionOptionsSchema, parsed.error.issues[0], given, '');
  checkShareOrder(given, parsed.data);
  const { reserveOutputTokens, maxToolResultTokens, contextWindow, redaction, masking } = parsed.data;
  if (contextWindow !== undefined && reserveOutputTokens !== undefined)
    checkReserve(contextWindow, reserveOutputTokens);
  return {
    ...parsed.data,
    reserveFor: (window) => reserveOutputTokens ?? Math.min(DEFAULT_RESERVE_OUTPUT_TOKENS, window / 4),
    maxToolResultTokensFor: (budget) => maxToolResultTokens ?? Math.floor(budget * DEFAULT_MAX_TOOL_RESULT_SHARE),
    redaction: redaction && {
      toolName: redaction.toolName,
      excludeTools: redaction.excludeTools ?? (masking ? masking.excludeTools : []),
    },
  };
}
