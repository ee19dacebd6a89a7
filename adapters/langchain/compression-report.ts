import type { BaseMessage } from '@langchain/core/messages';
import { withProviderUsage } from '../../src/engine/call-metadata.js';
import type { CompressionReport, ProviderUsage } from '../../src/reports/compression-report.js';
import { reportIn } from '../../src/reports/read-report.js';
import { reportedInputTokens } from './model-info.js';

type UsageDetails = { cache_read?: number; cache_creation?: number };

/** What the provider reported of a call's tokens in an answer's `usage_metadata` (fields it did not report left out). */
export function providerUsageOf(message: BaseMessage | undefined): ProviderUsage | undefined {
  const usage = (
    message as { usage_metadata?: { output_tokens?: number; input_token_details?: UsageDetails } } | undefined
  )?.usage_metadata;
  if (!usage) return undefined;
  return {
    inputTokens: reportedInputTokens(message),
    cacheReadTokens: usage.input_token_details?.cache_read,
    cacheWriteTokens: usage.input_token_details?.cache_creation,
    outputTokens: usage.output_tokens,
  } as ProviderUsage;
}

/** Two parts of a streamed answer's usage added up, as LangChain adds up the chunks' `usage_metadata`. */
export function addedUsage(a: ProviderUsage | undefined, b: ProviderUsage | undefined): ProviderUsage | undefined {
  if (!a || !b) return a ?? b;
  const sum = (x: number | undefined, y: number | undefined) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  return {
    inputTokens: sum(a.inputTokens, b.inputTokens),
    cacheReadTokens: sum(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: sum(a.cacheWriteTokens, b.cacheWriteTokens),
    outputTokens: sum(a.outputTokens, b.outputTokens),
  } as ProviderUsage;
}

/**
 * The compression report of a call, typed: from its answer (`invoke`'s message, the message a stream's chunks add up
 * to, an agent's last AIMessage), with what the provider's `usage_metadata` said of the call. Undefined for an answer
 * this package did not compress (another model, or `disable`).
 */
export function compressionReport(
  message: BaseMessage | { response_metadata?: unknown } | undefined,
): CompressionReport | undefined {
  const report = reportIn((message as { response_metadata?: unknown } | undefined)?.response_metadata);
  if (!report || report.providerUsage) return report;
  return withProviderUsage(report, providerUsageOf(message as BaseMessage));
}
