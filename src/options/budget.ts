import {
  type CompressionOptions,
  DEFAULT_COMPRESS_AT,
  DEFAULT_COMPRESS_TO,
  DEFAULT_HARD_LIMIT,
  DEFAULT_MAX_TOOL_RESULT_SHARE,
  DEFAULT_RECALL_SHARE,
} from './options.js';

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
  /** Not calibrated: a content-determined cut keeps the prompt byte-stable whatever the ratio does. */
  readonly maxToolResultTokens: number;
  /** A count of ours as a share of the budget, e.g. "72%", for decision details. */
  percent(tokens: number): string;
}

/** The limits for a budget and a calibration ratio. */
export function budgetLimits(budget: number, ratio: number, options: CompressionOptions): BudgetLimits {
  const limit = (share: number) => (share * budget) / ratio;
  return {
    budget,
    ratio,
    compressAt: limit(options.compressAt ?? DEFAULT_COMPRESS_AT),
    compressTo: limit(options.compressTo ?? DEFAULT_COMPRESS_TO),
    hardLimit: limit(options.hardLimit ?? DEFAULT_HARD_LIMIT),
    maxStateTokens: Math.floor(limit(STATE_SHARE_OF_BUDGET)),
    maxRecallTokens:
      options.recall === false ? 0 : Math.floor(limit(options.recall?.budgetShare ?? DEFAULT_RECALL_SHARE)),
    maxToolResultTokens: options.maxToolResultTokens ?? Math.floor(budget * DEFAULT_MAX_TOOL_RESULT_SHARE),
    percent: (tokens) => `${Math.round(((tokens * ratio) / budget) * 100)}%`,
  };
}
