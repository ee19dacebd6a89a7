import { boundedCache } from '../bounded-cache.js';
import type { TokenCalibration } from '../counting/calibration.js';
import { ProviderOverflowError } from '../errors.js';
import type { CompressionErrorEvent } from '../reports/events.js';
import { readProviderOverflow } from './provider-overflow.js';

/** Margin over the ratio a rejection shows, so the retry is not rejected again by a rounding of the provider's. */
const RATIO_MARGIN = 1.05;
/** How much the ratio grows after a rejection that gave no figure to learn from. */
const BLIND_GROWTH = 1.5;

/** One sent prompt the provider rejected. */
export interface Rejection {
  readonly modelKey: string;
  /** Our count of the sent prompt before calibration. */
  readonly estimatedTokens: number;
  /** The context window the call was compressed for. */
  readonly contextWindow: number;
  /** What the provider threw. */
  readonly error: unknown;
  /** Whether the rejected call was already the retry (its error then goes to the caller). */
  readonly retry: boolean;
}

/**
 * What the engine learns when a provider rejects a prompt as too long: the ratio of its count to ours (into the
 * model's calibration, so later calls fit too), and its window when smaller than the configured one.
 */
export class OverflowLearning {
  private readonly windows = boundedCache<string, number>(1_000);
  private readonly rejectionRatios = boundedCache<string, number>(1_000);

  constructor(
    private readonly calibration: TokenCalibration,
    private readonly onError: (event: CompressionErrorEvent) => void,
  ) {}

  /** The window a provider's rejection showed for a model, when smaller than the one its calls were made for. */
  window(modelKey: string): number | undefined {
    return this.windows.get(modelKey);
  }

  /** The ratio a model's last rejection for length set (undefined before any): it scales the tool-result cap. */
  rejectionRatio(modelKey: string): number | undefined {
    return this.rejectionRatios.get(modelKey);
  }

  /**
   * Learns from a provider's error and reports it; undefined (nothing learned, nothing reported) when the error is
   * not a rejection for length, which is never retried.
   */
  learn({ modelKey, estimatedTokens, contextWindow, error, retry }: Rejection): ProviderOverflowError | undefined {
    const overflow = readProviderOverflow(error);
    if (!overflow) return undefined;
    const { providerTokens, providerLimit } = overflow;
    const before = this.calibration.ratio(modelKey);
    const smallerWindow = providerLimit !== undefined && providerLimit < contextWindow;
    if (smallerWindow) this.windows.set(modelKey, Math.min(providerLimit, this.windows.get(modelKey) ?? providerLimit));
    // the provider's count over ours, or at least its limit over ours (the prompt was over it)
    const shown = providerTokens ?? (smallerWindow ? undefined : providerLimit) ?? 0;
    const observed = estimatedTokens > 0 ? shown / estimatedTokens : 0;
    const target = observed > before ? observed * RATIO_MARGIN : smallerWindow ? before : before * BLIND_GROWTH;
    const learnedRatio = this.calibration.raise(modelKey, target);
    this.rejectionRatios.set(modelKey, learnedRatio);
    const named = new ProviderOverflowError({
      modelKey,
      providerTokens,
      providerLimit,
      estimatedTokens: Math.round(estimatedTokens * (Math.round(before * 100) / 100)),
      learnedRatio,
      providerMessage: overflow.message,
      cause: error,
    });
    this.onError({ error: named, fallback: retry ? 'rethrown' : 'retried' });
    return named;
  }
}
