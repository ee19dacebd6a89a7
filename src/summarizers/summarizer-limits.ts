import { OVERFLOW_RATIO_MARGIN, readProviderOverflow } from '../counting/provider-overflow.js';
import { ProviderOverflowError } from '../errors.js';
import type { SummarizerWindow } from './summarizer-chunks.js';

/**
 * Share of a rejected call a summarizer's calls may send after a rejection that explains nothing (no figure, as
 * OpenAI's Responses API): chunks are cheap to cut smaller, and half holds for a provider that counts up to twice ours.
 */
const REJECTED_CALL_SHARE = 0.5;

/**
 * What a summarizer's provider taught by rejecting one of its calls as too long: the ratio of its count to ours, a
 * window smaller than the one configured, or a bound below the rejected call. Folds are cut into chunks by the window
 * this gives (see `chunkBudget`), so a fold after a rejection fits; one instance per engine, for its summarizer.
 */
export class SummarizerLimits {
  private ratio = 1;
  private limit: number | undefined;
  private bound: number | undefined;

  constructor(
    private readonly name: string,
    private readonly configured: SummarizerWindow | undefined,
  ) {}

  /** The window folds are cut by now: the configured one with what rejections taught; undefined for no limit yet. */
  window(): SummarizerWindow | undefined {
    const contextWindow = Math.min(
      this.configured?.contextWindow ?? Number.POSITIVE_INFINITY,
      this.limit ?? Number.POSITIVE_INFINITY,
    );
    if (!Number.isFinite(contextWindow) && this.bound === undefined) return undefined;
    return {
      contextWindow: Number.isFinite(contextWindow) ? contextWindow : Math.ceil(this.bound as number),
      fixedPrompt: this.configured?.fixedPrompt ?? '',
      ratio: this.ratio,
      ...(this.bound !== undefined && { bound: this.bound }),
    };
  }

  /**
   * Learns from a summarizer call's error; the rejection, named (a `ProviderOverflowError` whose `modelKey` is the
   * summarizer's name), when it was one for length, else undefined. `sentTokens` is our count of what the call sent.
   */
  learn(error: unknown, sentTokens: number): ProviderOverflowError | undefined {
    const overflow = readProviderOverflow(error);
    if (!overflow) return undefined;
    const { providerTokens, providerLimit, providerOutputTokens } = overflow;
    const before = this.ratio;
    const window = this.window()?.contextWindow ?? Number.POSITIVE_INFINITY;
    const limit = providerLimit === undefined ? undefined : providerLimit - (providerOutputTokens ?? 0);
    const smaller = limit !== undefined && limit > 0 && limit < window;
    if (smaller) this.limit = limit;
    if (providerTokens !== undefined && sentTokens > 0 && providerTokens / sentTokens > this.ratio)
      this.ratio = (providerTokens / sentTokens) * OVERFLOW_RATIO_MARGIN;
    if (!smaller && this.ratio === before) {
      const bound = Math.floor(sentTokens * REJECTED_CALL_SHARE);
      this.bound = Math.min(bound, this.bound ?? bound);
    }
    const learned = this.window();
    return new ProviderOverflowError({
      modelKey: this.name,
      providerTokens,
      providerLimit,
      providerOutputTokens,
      estimatedTokens: Math.round(sentTokens * before),
      learnedRatio: this.ratio,
      learnedInputLimit: learned ? callLimit(learned) : sentTokens,
      providerMessage: overflow.message,
      cause: error,
    });
  }
}

/** The most of the provider's tokens one call of a summarizer may send within a window (see `chunkBudget`). */
export function callLimit(window: SummarizerWindow): number {
  const bound = window.bound === undefined ? Number.POSITIVE_INFINITY : Math.round(window.bound * (window.ratio ?? 1));
  return Math.min(window.contextWindow, bound);
}
