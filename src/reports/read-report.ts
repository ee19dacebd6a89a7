import type { CompressionReport } from './compression-report.js';

/** The key under which the adapters put a call's report in the framework's own metadata. */
export const METADATA_KEY = 'context-compression';

/**
 * The report under `context-compression` of a framework's metadata record, when it holds one of this package's:
 * undefined for a call the package did not compress (another model, `disable`) or a record that holds something else.
 */
export function reportIn(metadata: unknown): CompressionReport | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const report = (metadata as Record<string, unknown>)[METADATA_KEY] as Record<string, unknown> | undefined;
  const looksRight =
    typeof report === 'object' &&
    report !== null &&
    typeof report.promptTokens === 'number' &&
    typeof report.historyTokens === 'number' &&
    typeof report.stateInPrompt === 'boolean';
  return looksRight ? (report as CompressionReport) : undefined;
}
