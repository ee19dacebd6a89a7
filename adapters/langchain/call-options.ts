import {
  CALL_OPTIONS_KEY,
  type ContextCompressionCallOptions,
  parseCallOptions,
  type ResolvedCallOptions,
} from '../../src/options/call-options.js';

export { CALL_OPTIONS_KEY, type ContextCompressionCallOptions };

/**
 * Reads this package's per-call options from a LangChain config: `{ configurable: { 'context-compression': {...} } }`.
 * They travel with the config into nested runs, like any `configurable` value.
 */
export function readCallOptions(config: unknown): ResolvedCallOptions {
  const configurable = (config as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  return parseCallOptions(configurable?.[CALL_OPTIONS_KEY], `configurable['${CALL_OPTIONS_KEY}']`);
}
