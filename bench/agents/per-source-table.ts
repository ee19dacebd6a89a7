/** The rows of the per-source table (bench section 6) and the targets each figure is judged against. */
import { format } from '../stats.js';
import type { Figures, Scope } from './source-figures.js';

/** What the policy should reach against the sliding window, on every source and overall. */
export const TARGETS = Object.freeze({
  /** The overall needed-later rate at least this share below the sliding window's. */
  overallRateCut: 0.4,
  /** Cost as a multiple of the write-once floor, at most this, per context window. */
  costRatio: Object.freeze({ 200000: 2.34, 16000: 2.55 }) as Readonly<Record<number, number>>,
  /** Median calls from one compression to the next, at least this. */
  medianCallsBetween: 4,
  /** Leave-one-source-out: tokens on the held-out source at most this multiple of the sliding window's. */
  tokenRatio: 1.25,
});

/** One judged figure: the target in words, whether it was met, and the figures that decided it. */
export interface Verdict {
  readonly target: string;
  readonly met: boolean;
  readonly detail: string;
}

const mark = (met: boolean) => (met ? 'ok' : 'MISS');
const rate = (figures: Figures) => figures.rate.toFixed(3);
const calls = (value: number | undefined) => (value === undefined ? '-' : String(value));

/** Whether a rate meets its target: below the baseline's for a source, `overallRateCut` below it overall. */
function rateMet(scope: Scope, figures: Figures, baseline: Figures): boolean {
  return scope === 'overall'
    ? figures.rate <= baseline.rate * (1 - TARGETS.overallRateCut)
    : figures.rate < baseline.rate;
}

/** A median of calls between compressions meets the target; none (no run compressed twice) meets it too. */
const epochsMet = (figures: Figures) =>
  (figures.medianCallsBetween ?? Number.POSITIVE_INFINITY) >= TARGETS.medianCallsBetween;

/** A right-aligned figure of `width` characters and, when judged, its mark (ok / MISS) in 4 more. */
const cell = (text: string, width: number, met?: boolean) =>
  `${text.padStart(width)} ${met === undefined ? '    ' : mark(met).padEnd(4)}`;

/** Widths of the columns of {@link formatRow}, marks excluded. */
const WIDTH = {
  window: 6,
  scope: 14,
  system: 31,
  tokens: 12,
  ratio: 6,
  hidden: 6,
  needed: 16,
  compressions: 6,
  between: 10,
};

/** The column header of {@link formatRow}. */
export const HEADER =
  `   ${'window'.padEnd(WIDTH.window)} ${'source'.padEnd(WIDTH.scope)} ${'system'.padEnd(WIDTH.system)} ${'input tokens'.padStart(WIDTH.tokens)} ${cell('vs SW', WIDTH.ratio)} ${cell('x floor', WIDTH.ratio + 1)} ${'hidden'.padStart(WIDTH.hidden)} ${cell('needed later', WIDTH.needed)} ${'compr.'.padStart(WIDTH.compressions)} ${cell('between', WIDTH.between)}`.trimEnd();

/**
 * One line of the table. With `judge`, marks (ok / MISS) follow the cost, the needed-later rate and the calls between
 * compressions, and with `judge.tokenTarget` the tokens vs SW too.
 */
export function formatRow(row: {
  window: string;
  scope: Scope | '';
  system: string;
  figures: Figures;
  baseline: Figures;
  judge?: { contextWindow: number; tokenTarget: boolean; scope: Scope };
}): string {
  const { figures, baseline, judge } = row;
  const tokenRatio = baseline.sentTokens > 0 ? figures.sentTokens / baseline.sentTokens : 0;
  const costTarget = judge ? TARGETS.costRatio[judge.contextWindow] : undefined;
  const tokens = cell(
    `${tokenRatio.toFixed(2)}x`,
    WIDTH.ratio,
    judge?.tokenTarget ? tokenRatio <= TARGETS.tokenRatio : undefined,
  );
  const cost = cell(
    `${figures.costRatio.toFixed(2)}x`,
    WIDTH.ratio + 1,
    costTarget === undefined ? undefined : figures.costRatio <= costTarget,
  );
  const needed = cell(
    `${figures.neededLater}/${figures.hidden} = ${rate(figures)}`,
    WIDTH.needed,
    judge ? rateMet(judge.scope, figures, baseline) : undefined,
  );
  const between = cell(
    `${calls(figures.minCallsBetween)} / ${calls(figures.medianCallsBetween)}`,
    WIDTH.between,
    judge ? epochsMet(figures) : undefined,
  );
  return `   ${row.window.padEnd(WIDTH.window)} ${row.scope.padEnd(WIDTH.scope)} ${row.system.padEnd(WIDTH.system)} ${format(figures.sentTokens).padStart(WIDTH.tokens)} ${tokens} ${cost} ${String(figures.hidden).padStart(WIDTH.hidden)} ${needed} ${String(figures.compressions).padStart(WIDTH.compressions)} ${between}`.trimEnd();
}

/**
 * The targets of one system at one window, judged against the sliding window's figures of the same runs: needed
 * later below it on every source, at least `overallRateCut` below it overall, cost within the window's limit, median
 * calls between compressions, and (`tokenTarget`) tokens within `tokenRatio` of its tokens on every source.
 */
export function judge(
  figures: ReadonlyMap<Scope, Figures>,
  baseline: ReadonlyMap<Scope, Figures>,
  contextWindow: number,
  tokenTarget: boolean,
): Verdict[] {
  const sources = [...figures.keys()].filter((scope) => scope !== 'overall');
  const pairs = sources.flatMap((scope) => {
    const own = figures.get(scope);
    const base = baseline.get(scope);
    return own && base ? [{ scope, own, base }] : [];
  });
  const overall = figures.get('overall');
  const overallBase = baseline.get('overall');
  const verdicts: Verdict[] = [];
  const below = pairs.filter(({ scope, own, base }) => !rateMet(scope, own, base));
  verdicts.push({
    target: 'needed later below SW on every source',
    met: below.length === 0,
    detail: pairs
      .map(
        ({ scope, own, base }) =>
          `${scope} ${rate(own)} vs ${rate(base)}${base.rate === 0 ? ' (SW hid none needed: not beatable)' : ''}`,
      )
      .join(', '),
  });
  if (tokenTarget) {
    const ratios = pairs.map(({ scope, own, base }) => ({ scope, ratio: own.sentTokens / base.sentTokens }));
    verdicts.push({
      target: `tokens <= ${TARGETS.tokenRatio}x SW on every source`,
      met: ratios.every(({ ratio }) => ratio <= TARGETS.tokenRatio),
      detail: ratios.map(({ scope, ratio }) => `${scope} ${ratio.toFixed(2)}x`).join(', '),
    });
  }
  if (overall && overallBase) {
    const cut = overallBase.rate > 0 ? 1 - overall.rate / overallBase.rate : 0;
    verdicts.push({
      target: `overall needed later >= ${TARGETS.overallRateCut * 100}% below SW`,
      met: rateMet('overall', overall, overallBase),
      detail: `${rate(overall)} vs ${rate(overallBase)}: ${Math.round(cut * 100)}% below`,
    });
    const costTarget = TARGETS.costRatio[contextWindow];
    if (costTarget !== undefined) {
      verdicts.push({
        target: `cost <= ${costTarget}x floor`,
        met: overall.costRatio <= costTarget,
        detail: `${overall.costRatio.toFixed(2)}x overall`,
      });
    }
    verdicts.push({
      target: `median calls between compressions >= ${TARGETS.medianCallsBetween}`,
      met: epochsMet(overall),
      detail: `${calls(overall.medianCallsBetween)} overall`,
    });
  }
  return verdicts;
}

/** Verdicts as indented lines: `ok` or `MISS`, the target, the figures. */
export function formatVerdicts(verdicts: readonly Verdict[], indent: string): string[] {
  return verdicts.map((verdict) => `${indent}${mark(verdict.met).padEnd(4)} ${verdict.target}: ${verdict.detail}`);
}
