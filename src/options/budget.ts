import type { ResolvedOptions } from './resolve-options.js';

/** Largest share of the budget the session state may take. */
export const STATE_SHARE_OF_BUDGET = 0.25;

/**
 * The token limits of one call, in our own (uncalibrated) counting: the configured shares of the budget divided by
 * the learned calibration ratio, so comparisons with our counts hold for the provider's tokenizer.
 */
export interface BudgetLimits {
  /** Context window minus reserved output, in the provider's tokens. */
  readonly budget: number;
  /** Provider tokens per token of ours, learned from usage; 1 until a response was seen. */
  readonly ratio: number;
  readonly compressAt: number;
  readonly compressTo: number;
  readonly hardLimit: number;
  readonly maxStateTokens: number;
  /** Most tokens of the recall block made for one user message; 0 when recall is off. */
  readonly maxRecallTokens: number;
  /**
   * Not calibrated by the running ratio: a content-determined cut keeps the prompt byte-stable whatever that ratio
   * does. Only a provider's rejection for length (see `OverflowLearning`) scales the default, once, by the ratio it
   * showed: the rejected prompt was not sent, so no cached prefix is lost by it.
   */
  readonly maxToolResultTokens: number;
  /** A count of ours as a share of the budget, e.g. "72%" (or "70.3%" with `digits` 1), for decision details. */
  percent(tokens: number, digits?: number): string;
}

/**
 * The limits for a budget and a calibration ratio; `rejectionRatio` is the ratio the model's last rejection for length
 * showed (1 when none), which scales the default tool-result cap.
 */
export function budgetLimits(
  budget: number,
  ratio: number,
  options: Pick<ResolvedOptions, 'compressAt' | 'compressTo' | 'hardLimit' | 'recall' | 'maxToolResultTokensFor'>,
  rejectionRatio = 1,
): BudgetLimits {
  const limit = (share: number) => (share * budget) / ratio;
  return {
    budget,
    ratio,
    compressAt: limit(options.compressAt),
    compressTo: limit(options.compressTo),
    hardLimit: limit(options.hardLimit),
    maxStateTokens: Math.floor(limit(STATE_SHARE_OF_BUDGET)),
    maxRecallTokens: options.recall ? Math.floor(limit(options.recall.budgetShare)) : 0,
    maxToolResultTokens: options.maxToolResultTokensFor(Math.floor(budget / Math.max(1, rejectionRatio))),
    percent: (tokens, digits = 0) => `${(((tokens * ratio) / budget) * 100).toFixed(digits)}%`,
  };
}
