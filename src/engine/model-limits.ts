import type { TokenCalibration } from '../counting/calibration.js';
import { ProviderOverflowError, UnknownContextWindowError } from '../errors.js';
import { type BudgetLimits, budgetLimits } from '../options/budget.js';
import { lookupContextWindow } from '../options/context-windows.js';
import { checkReserve, type ResolvedOptions } from '../options/options.js';
import type { CompressionErrorEvent } from '../reports/events.js';
import type { OverflowLearning } from './overflow-learning.js';

/**
 * Most of a context window the output a call asks for is kept free for: a call that asks for more (a model's default
 * output cap against a small `contextWindow` given for testing) keeps the configured reserve, and the provider's
 * figures teach the rest if it counts the output against its window.
 */
const MAX_OUTPUT_SHARE = 0.75;

/** A prompt the provider rejected, as an adapter tells of it (see `CompressionEngine.providerRejected`). */
export interface ProviderRejection {
  readonly modelId: string;
  readonly modelKey?: string;
  readonly contextWindow?: number;
  /** Output tokens the rejected call asked for (see `CompressInput.maxOutputTokens`). */
  readonly maxOutputTokens?: number;
  readonly estimatedTokens: number | (() => number);
  readonly error: unknown;
  readonly retry: boolean;
}

/**
 * What the engine knows of each model's limits: its context window (the option, else the adapter's, else the table's),
 * the reserve for its output (the configured one, or what the call asks for when more), and what its provider taught
 * (a smaller window, output counted against it, a bound on its prompts, a calibration ratio) by rejecting a prompt or
 * reporting its input tokens.
 */
export class ModelLimits {
  constructor(
    private readonly resolved: ResolvedOptions,
    private readonly calibration: TokenCalibration,
    private readonly overflows: OverflowLearning,
    private readonly onError: (event: CompressionErrorEvent) => void,
  ) {}

  /**
   * Context window minus reserved output (see `reserve`); throws when the window is unknown or the configured reserve
   * does not fit it.
   */
  budgetFor(modelId: string, known?: number, maxOutputTokens?: number): number {
    const contextWindow = this.windowFor(modelId, known);
    checkReserve(contextWindow, this.resolved.reserveFor(contextWindow));
    return contextWindow - this.reserve(contextWindow, maxOutputTokens);
  }

  /**
   * The input tokens one call of a model may send, in the provider's tokens: `budgetFor` with what the provider
   * taught (a smaller window, the input it takes beside its counted output, the bound a rejection without figures
   * set), never below 1.
   */
  private callBudget(modelId: string, modelKey: string, known?: number, maxOutputTokens?: number): number {
    const configured = this.windowFor(modelId, known);
    checkReserve(configured, this.resolved.reserveFor(configured));
    const learned = this.overflows.window(modelKey);
    const window = learned === undefined ? configured : Math.min(configured, learned);
    let budget = Math.min(
      window - this.reserve(window, maxOutputTokens),
      this.overflows.inputLimit(modelKey) ?? window,
    );
    const bound = this.overflows.bound(modelKey);
    if (bound !== undefined) budget = Math.min(budget, Math.floor(bound * this.calibration.ratio(modelKey)));
    return Math.max(1, budget);
  }

  /**
   * Output tokens kept free in a window: the configured reserve, or what the call asks for (its `maxOutputTokens`,
   * the provider's default) when more and at most 3/4 of the window. A larger ask keeps the configured reserve (a
   * small window set for a test): should the provider count it against its window, its rejection names the figures,
   * and the input it then takes is learned (`OverflowLearning.inputLimit`).
   */
  private reserve(window: number, maxOutputTokens: number | undefined): number {
    const configured = Math.min(this.resolved.reserveFor(window), Math.floor(window / 2));
    const asked = maxOutputTokens ?? 0;
    return asked > configured && asked <= window * MAX_OUTPUT_SHARE ? asked : configured;
  }

  /** The limits of one call of a model: its budget (see `callBudget`) shared out, in the model's calibrated tokens. */
  callLimits(modelId: string, modelKey: string, known?: number, maxOutputTokens?: number): BudgetLimits {
    return budgetLimits(
      this.callBudget(modelId, modelKey, known, maxOutputTokens),
      Math.round(this.calibration.ratio(modelKey) * 100) / 100,
      this.resolved,
      this.overflows.rejectionRatio(modelKey),
    );
  }

  /**
   * Learns from a rejection and reports it to `onError` with what was learned (see
   * `CompressionEngine.providerRejected`); undefined when the error is not a rejection for length.
   */
  rejected(rejection: ProviderRejection): ProviderOverflowError | undefined {
    const { modelId, modelKey = modelId, estimatedTokens, error, retry, maxOutputTokens } = rejection;
    const window = Math.min(
      this.windowFor(modelId, rejection.contextWindow),
      this.overflows.window(modelKey) ?? Number.POSITIVE_INFINITY,
    );
    const estimated = typeof estimatedTokens === 'function' ? estimatedTokens() : estimatedTokens;
    // the limit the rejected prompt was made for: over it, the stages had nothing left to fold
    const { hardLimit } = this.callLimits(modelId, modelKey, rejection.contextWindow, maxOutputTokens);
    const overHardLimit = estimated > hardLimit;
    const learned = this.overflows.learn({
      modelKey,
      contextWindow: window,
      estimatedTokens: estimated,
      error,
      overHardLimit,
    });
    if (!learned) return undefined;
    const { overflow, ratioBefore, learnedRatio } = learned;
    const named = new ProviderOverflowError({
      modelKey,
      providerTokens: overflow.providerTokens,
      providerLimit: overflow.providerLimit,
      providerOutputTokens: overflow.providerOutputTokens,
      estimatedTokens: Math.round(estimated * (Math.round(ratioBefore * 100) / 100)),
      learnedRatio,
      learnedInputLimit: this.callBudget(modelId, modelKey, rejection.contextWindow, maxOutputTokens),
      providerMessage: overflow.message,
      cause: error,
    });
    this.onError({ error: named, fallback: retry ? 'rethrown' : 'retried' });
    return named;
  }

  /** Learns the calibration ratio from the input tokens a provider reported for a prompt we estimated. */
  used(modelKey: string, estimatedTokens: number | (() => number), reportedInputTokens: number | undefined): void {
    if (!reportedInputTokens || reportedInputTokens <= 0) return;
    const estimated = typeof estimatedTokens === 'function' ? estimatedTokens() : estimatedTokens;
    this.calibration.record(modelKey, estimated, reportedInputTokens);
    this.overflows.took(modelKey, reportedInputTokens);
  }

  /** The context window a model's calls are compressed for: the option, else the adapter's, else the table's. */
  private windowFor(modelId: string, known?: number): number {
    const contextWindow = this.resolved.contextWindow ?? known ?? lookupContextWindow(modelId);
    if (contextWindow === undefined) throw new UnknownContextWindowError({ modelId });
    return contextWindow;
  }
}
