import type { LanguageModelV4Usage } from '@ai-sdk/provider';
import type { CompressionReport, ProviderUsage } from '../../src/reports/compression-report.js';
import { METADATA_KEY, reportIn } from '../../src/reports/read-report.js';

/** Anything that carries a call's `providerMetadata`: a result, a step, a stream's finish part or event. */
type WithMetadata = { readonly providerMetadata?: unknown };

/** A `streamText` result, whose `providerMetadata` is a promise of the last step's. */
type WithPendingMetadata = { readonly providerMetadata: PromiseLike<unknown> };

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/**
 * The compression report of a call, typed: from a `generateText` result (its last step), a step (`result.steps[i]`,
 * `onStepFinish`), an `onFinish` event or a stream's `finish` part, or a `providerMetadata` record itself. A
 * `streamText` result gives a promise of it, once the stream finished. Undefined for a call this package did not
 * compress (another model, or `disable`).
 */
export function compressionReport(source: WithPendingMetadata): Promise<CompressionReport | undefined>;
export function compressionReport(
  source: WithMetadata | Record<string, unknown> | undefined,
): CompressionReport | undefined;
export function compressionReport(
  source: WithMetadata | WithPendingMetadata | Record<string, unknown> | undefined,
): CompressionReport | undefined | Promise<CompressionReport | undefined> {
  if (typeof source !== 'object' || source === null) return undefined;
  if (METADATA_KEY in source) return reportIn(source);
  const metadata = (source as WithMetadata).providerMetadata;
  if (isPromiseLike(metadata)) return Promise.resolve(metadata).then(reportIn);
  return reportIn(metadata);
}

/** What the provider reported of a call's tokens, as the report gives it (fields it did not report left out). */
export function providerUsageOf(usage: LanguageModelV4Usage | undefined): ProviderUsage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: usage.inputTokens?.total,
    cacheReadTokens: usage.inputTokens?.cacheRead,
    cacheWriteTokens: usage.inputTokens?.cacheWrite,
    outputTokens: usage.outputTokens?.total,
  } as ProviderUsage;
}
