import type { CompressionReport, ProviderUsage } from '../reports/compression-report.js';
import type { CallReport, CompressEvent, CompressionChange } from '../reports/events.js';
import { cleanUsage } from '../reports/usage.js';

export type { CompressionMetadata, CompressionReport, ProviderUsage } from '../reports/compression-report.js';

export { METADATA_KEY } from '../reports/read-report.js';

/**
 * A call's report as `CompressionReport`. Its token figures are read from the report when first read: a call sent
 * as it came (proven far below the thresholds without counting all of it) counts them only if somebody looks.
 */
export function callMetadata(report: CallReport): CompressionReport {
  const { event } = report;
  return {
    get historyTokens() {
      return report.historyTokens;
    },
    get promptTokens() {
      return report.promptTokens;
    },
    get cacheablePrefixTokens() {
      return report.cacheablePrefixTokens;
    },
    // read when read, as the token figures (undefined, and left out of JSON, for a call sent as it came)
    get price() {
      return report.price;
    },
    messagesOutOfPrompt: report.messagesOutOfPrompt,
    stateInPrompt: report.stateInPrompt,
    ...(event && { change: changeOf(event) }),
    ...(report.rejection && {
      rejection: {
        providerMessage: report.rejection.providerMessage,
        providerTokens: report.rejection.providerTokens,
        providerLimit: report.rejection.providerLimit,
        providerOutputTokens: report.rejection.providerOutputTokens,
        rejectedPromptTokens: report.rejection.estimatedTokens,
        learnedRatio: Math.round(report.rejection.learnedRatio * 100) / 100,
        learnedInputLimit: report.rejection.learnedInputLimit,
      },
    }),
  };
}

/** An event's change, as plain JSON (its decisions left out: `onCompress` has them). */
function changeOf({ decisions: _decisions, ...change }: CompressEvent): CompressionChange {
  return structuredClone(change);
}

/** The report with the provider's usage of the call, when it reported any. */
export function withProviderUsage(report: CompressionReport, usage: ProviderUsage | undefined): CompressionReport {
  const known = usage && cleanUsage(usage);
  if (!known) return report;
  // the token figures stay read when read (see `callMetadata`)
  return Object.defineProperties(
    {},
    {
      ...Object.getOwnPropertyDescriptors(report),
      providerUsage: { value: known, enumerable: true, writable: true, configurable: true },
    },
  ) as CompressionReport;
}
