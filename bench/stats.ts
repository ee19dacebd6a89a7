/** The value below which `share` of the values fall (nearest rank, rounded down). */
export const percentile = (values: readonly number[], share: number): number =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * share)] ?? 0;

/** Milliseconds with two decimals. */
export const ms = (value: number): string => `${value.toFixed(2)} ms`;

/** A ratio with two decimals. */
export const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}x`;

/** A count with thousands separators. */
export const format = (value: number): string => Math.round(value).toLocaleString('en-US');
