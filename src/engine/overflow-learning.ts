import { boundedCache } from '../bounded-cache.js';
import type { TokenCalibration } from '../counting/calibration.js';
import { OVERFLOW_RATIO_MARGIN, type ProviderOverflow, readProviderOverflow } from '../counting/provider-overflow.js';

/**
 * Share of a prompt rejected without figures that later prompts of the model may take, unless the provider took a
 * larger one before: the rejected prompt is the one figure there is, and the window is somewhere below its count.
 */
export const REJECTED_PROMPT_MARGIN = 0.75;

/**
 * How much a rejection of a prompt the engine could not bring below its own hard limit shrinks the default tool-result
 * cap (each time): what could not be folded is the current turn, and its tool results are what can still be cut.
 */
const CAP_SHRINK = 1.5;

/** One sent prompt the provider rejected. */
export interface Rejection {
  readonly modelKey: string;
  /** Our count of the sent prompt before calibration. */
  readonly estimatedTokens: number;
  /**
   * Whether the prompt was over the call's hard limit as we counted it: nothing was left to fold (the current turn,
   * the pinned user message, the state), so no bound would change what is sent.
   */
  readonly overHardLimit?: boolean;
  /** The context window the call was compressed for. */
  readonly contextWindow: number;
  /** What the provider threw. */
  readonly error: unknown;
}

/** What one rejection for length taught. */
export interface Learned {
  readonly overflow: ProviderOverflow;
  /** The model's calibration ratio before the rejection. */
  readonly ratioBefore: number;
  /** The model's calibration ratio after it (the same when the figures did not show a larger one). */
  readonly learnedRatio: number;
  /** Whether the rejection bounded the model's prompts by the rejected one (it showed nothing else to learn). */
  readonly bounded: boolean;
  /** Whether it shrank the tool-result cap instead: the prompt was over our own hard limit, nothing left to fold. */
  readonly shrankResults: boolean;
}

/**
 * What the engine learns when a provider rejects a prompt as too long, for each model:
 * - the ratio of its count to ours, when its error names its count (into the model's calibration, so later calls fit);
 * - its window, when its error names one smaller than the configured window;
 * - the input it takes beside the output it counts against the window, when its error names both (the window less
 *   the call's `max_tokens`): later calls of the model send no more;
 * - when its error names nothing that explains the rejection (OpenAI's Responses API names no figure at all): a bound
 *   on the model's input: 3/4 of our count of the rejected prompt, or the largest prompt the provider took before
 *   when that lies between the two (the window lies between what was taken and what was rejected). It is kept in our
 *   own tokens and calibrated by the ratio of the time it is used: when the provider's usage reports later show that
 *   it counts more than we do, that explains part of the rejection and the bound follows in the provider's tokens;
 *   until then it holds whatever the ratio;
 * - when that prompt was over our own hard limit already (nothing left to fold: the current turn, the pinned user
 *   message, the state), no bound would change it: the tool-result cap shrinks instead, by half as much again each
 *   time, as what can still be cut is the current turn's tool results.
 */
export class OverflowLearning {
  private readonly windows = boundedCache<string, number>(1_000);
  private readonly inputLimits = boundedCache<string, number>(1_000);
  private readonly bounds = boundedCache<string, number>(1_000);
  private readonly taken = boundedCache<string, number>(1_000);
  private readonly rejectionRatios = boundedCache<string, number>(1_000);

  constructor(private readonly calibration: TokenCalibration) {}

  /** The window a provider's rejection showed for a model, when smaller than the one its calls were made for. */
  window(modelKey: string): number | undefined {
    return this.windows.get(modelKey);
  }

  /**
   * The most input tokens (the provider's) a model's provider showed it takes beside the output it counts against its
   * window (the smallest seen), if any.
   */
  inputLimit(modelKey: string): number | undefined {
    return this.inputLimits.get(modelKey);
  }

  /**
   * The most input tokens of ours (uncalibrated) a model's calls send after a rejection that explained nothing, if
   * any: see the class comment.
   */
  bound(modelKey: string): number | undefined {
    return this.bounds.get(modelKey);
  }

  /** Notes the input tokens a provider reported for a prompt it took: the largest shows where its window is not. */
  took(modelKey: string, providerTokens: number): void {
    if (providerTokens > (this.taken.get(modelKey) ?? 0)) this.taken.set(modelKey, providerTokens);
  }

  /** The ratio a model's last rejection for length set (undefined before any): it scales the tool-result cap. */
  rejectionRatio(modelKey: string): number | undefined {
    return this.rejectionRatios.get(modelKey);
  }

  /** Learns from a provider's error; undefined (nothing learned) when it is not a rejection for length. */
  learn({ modelKey, estimatedTokens, contextWindow, error, overHardLimit = false }: Rejection): Learned | undefined {
    const overflow = readProviderOverflow(error);
    if (!overflow) return undefined;
    const { providerTokens, providerLimit, providerOutputTokens } = overflow;
    const ratioBefore = this.calibration.ratio(modelKey);
    const smallerWindow = providerLimit !== undefined && providerLimit < contextWindow;
    if (smallerWindow) this.windows.set(modelKey, Math.min(providerLimit, this.windows.get(modelKey) ?? providerLimit));
    const countsOutput = providerOutputTokens !== undefined && providerOutputTokens > 0;
    if (countsOutput && providerLimit !== undefined && providerLimit > providerOutputTokens) {
      const input = providerLimit - providerOutputTokens;
      this.inputLimits.set(modelKey, Math.min(input, this.inputLimits.get(modelKey) ?? input));
    }
    // the provider's count, or at least its limit when that is all it named (the prompt was over it)
    const shown = providerTokens ?? (smallerWindow || countsOutput ? undefined : providerLimit);
    const observed = shown !== undefined && estimatedTokens > 0 ? shown / estimatedTokens : 0;
    const learnedRatio =
      observed > ratioBefore ? this.calibration.raise(modelKey, observed * OVERFLOW_RATIO_MARGIN) : ratioBefore;
    // nothing above explains the rejection: the prompt sent is the one figure there is
    const unexplained = !smallerWindow && !countsOutput && learnedRatio === ratioBefore && estimatedTokens > 0;
    const shrankResults = unexplained && overHardLimit;
    const bounded = unexplained && !overHardLimit;
    if (bounded) {
      // in our tokens: what the provider took, in its own, as we count it
      const taken = (this.taken.get(modelKey) ?? 0) / ratioBefore;
      const margin = estimatedTokens * REJECTED_PROMPT_MARGIN;
      const bound = Math.floor(taken < estimatedTokens ? Math.max(margin, taken) : margin);
      this.bounds.set(modelKey, Math.min(bound, this.bounds.get(modelKey) ?? bound));
    }
    const previous = this.rejectionRatios.get(modelKey) ?? ratioBefore;
    this.rejectionRatios.set(modelKey, shrankResults ? Math.max(previous, ratioBefore) * CAP_SHRINK : learnedRatio);
    return { overflow, ratioBefore, learnedRatio, bounded, shrankResults };
  }
}
