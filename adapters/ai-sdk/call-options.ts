import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import { InvalidOptionError } from '../../src/errors.js';

/** The `providerOptions` key that carries per-call options for this package. */
export const CALL_OPTIONS_KEY = 'context-compression';

const CallOptionsSchema = z
  .object({
    /** Separates stored state, e.g. per user or tenant; added to the middleware's namespace. */
    namespace: z.string().optional(),
    /** Sends this call's prompt untouched. */
    disable: z.boolean().optional(),
    /** Folds all complete turns now, whatever the budget says. */
    force: z.boolean().optional(),
  })
  .strict();

/** Per-call options, given as `providerOptions: { 'context-compression': { ... } }`. */
export type ContextCompressionCallOptions = z.infer<typeof CallOptionsSchema>;

/** Reads this package's per-call options and returns the provider options without them. */
export function readCallOptions(providerOptions: SharedV4ProviderOptions | undefined): {
  callOptions: ContextCompressionCallOptions;
  providerOptions: SharedV4ProviderOptions | undefined;
} {
  if (!providerOptions || !(CALL_OPTIONS_KEY in providerOptions)) return { callOptions: {}, providerOptions };
  const { [CALL_OPTIONS_KEY]: raw, ...rest } = providerOptions;
  const parsed = CallOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidOptionError({
      option: `providerOptions['${CALL_OPTIONS_KEY}']${issue?.path.length ? `.${issue.path.join('.')}` : ''}`,
      message: issue?.message ?? 'invalid',
    });
  }
  return { callOptions: parsed.data, providerOptions: Object.keys(rest).length > 0 ? rest : undefined };
}
