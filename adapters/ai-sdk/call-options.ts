import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import {
  CALL_OPTIONS_KEY,
  type ContextCompressionCallOptions,
  parseCallOptions,
  type ResolvedCallOptions,
} from '../../src/options/call-options.js';

export { CALL_OPTIONS_KEY, type ContextCompressionCallOptions };

/** Reads this package's per-call options and returns the provider options without them. */
export function readCallOptions(providerOptions: SharedV4ProviderOptions | undefined): {
  callOptions: ResolvedCallOptions;
  providerOptions: SharedV4ProviderOptions | undefined;
} {
  if (!providerOptions || !(CALL_OPTIONS_KEY in providerOptions)) {
    return { callOptions: parseCallOptions(undefined, ''), providerOptions };
  }
  const { [CALL_OPTIONS_KEY]: raw, ...rest } = providerOptions;
  return {
    callOptions: parseCallOptions(raw, `providerOptions['${CALL_OPTIONS_KEY}']`),
    providerOptions: Object.keys(rest).length > 0 ? rest : undefined,
  };
}
