import type { TokenCalibration } from '../counting/calibration.js';
import { type ProviderOverflowError, UnknownContextWindowError } from '../errors.js';
import { type BudgetLimits, budgetLimits } from '../options/budget.js';
import { lookupContextWindow } from '../options/context-windows.js';
import { checkReserve, type ResolvedOptions } from '../options/options.js';
import type { OverflowLearning } from './overflow-learning.js';

/** A prompt the provider rejected, as an adapter tells of it (see `CompressionEngine.providerRejected`). */
export interface ProviderRejection {
  readonly modelId: string;
  readonly modelKey?: string;
  readonly contextWindow?: number;
  readonly estimatedTokens: number | (() => number);
  readonly error: unknown;
  readonly retry: boolean;
}

/**
 * What the engine knows of each model's limits: its context window (the option, else the adapter's, else the table's),
 * the reserve for its output, and what its provider taught (a smaller window, a calibration ratio) by rejecting a
 * prompt or reporting its input tokens.
 */
export class ModelLimits {
  constructor(
    private readonly resolved: ResolvedOptions,
    private readonly calibration: TokenCalibration,
    private readonly overflows: OverflowLearning,
  ) {}

  /** Context window minus reserved output; throws when the window is unknown or the reserve does not fit it. */
  budgetFor(modelId: string, known?: number): number {
    const contextWindow = this.windowFor(modelId, known);
    const reserve = this.resolved.reserveFor(contextWindow);
    checkReserve(contextWindow, reserve);
    return contextWindow - reserve;
  }

  /** The budget of one call: `budgetFor`, or less when the provider showed a smaller window than the configured one. */
  private callBudget(modelId: string, modelKey: string, known?: number): number {
    const budget = this.budgetFor(modelId, known);
    const learned = this.overflows.window(modelKey);
    if (learned === undefined) return budget;
    return Math.max(1, Math.min(budget, learned - this.resolved.reserveFor(learned)));
  }

  /** The limits of one call of a model: its budget (see `callBudget`) shared out, in the model's calibrated tokens. */
  callLimits(modelId: string, modelKey: string, known?: number): BudgetLimits {
    return budgetLimits(
      this.callBudget(modelId, modelKey, known),
      Math.round(this.calibration.ratio(modelKey) * 100) / 100,
      this.resolved,
      this.overflows.rejectionRatio(modelKey),
    );
  }

  /** Learns from a rejection (see `CompressionEngine.providerRejected`). */
  rejected(rejection: ProviderRejection): ProviderOverflowError | undefined {
    const { modelId, modelKey = modelId, estimatedTokens, error, retry } = rejection;
    const window = Math.min(
      this.windowFor(modelId, rejection.contextWindow),
      this.overflows.window(modelKey) ?? Number.POSITIVE_INFINITY,
    );
    return this.overflows.learn({
      modelKey,
      contextWindow: window,
      estimatedTokens: typeof estimatedTokens === 'function' ? estimatedTokens() : estimatedTokens,
      error,
      retry,
    });
  }

  /** Learns the calibration ratio from the input tokens a provider reported for a prompt we estimated. */
  used(modelKey: string, estimatedTokens: number | (() => number), reportedInputTokens: number | undefined): void {
    if (!reportedInputTokens || reportedInputTokens <= 0) return;
    const estimated = typeof estimatedTokens === 'function' ? estimatedTokens() : estimatedTokens;
    this.calibration.record(modelKey, estimated, reportedInputTokens);
  }

  /** The context window a model's calls are compressed for: the option, else the adapter's, else the table's. */
  private windowFor(modelId: string, known?: number): number {
    const contextWindow = this.resolved.contextWindow ?? known ?? lookupContextWindow(modelId);
    if (contextWindow === undefined) throw new UnknownContextWindowError({ modelId });
    return contextWindow;
  }
}
