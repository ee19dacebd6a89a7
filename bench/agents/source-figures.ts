/** Run figures pooled per fixture source and overall. */
import { AGENT_SOURCES, type AgentSource } from './fixture-source.js';
import type { RunFigures } from './run-figures.js';

/** Pooled figures of some runs under one system. */
export interface Figures {
  readonly runs: number;
  readonly calls: number;
  readonly sentTokens: number;
  readonly cost: number;
  readonly floor: number;
  /** cost / floor: the cache-priced cost as a multiple of the write-once floor. */
  readonly costRatio: number;
  readonly hidden: number;
  readonly neededLater: number;
  /** neededLater / hidden, 0 when nothing was hidden. */
  readonly rate: number;
  readonly compressions: number;
  /** Calls from one compression to the next within a run (see {@link callsBetween}), over all runs. */
  readonly callsBetween: readonly number[];
  /** Their minimum and median; undefined when no run compressed twice. */
  readonly minCallsBetween: number | undefined;
  readonly medianCallsBetween: number | undefined;
}

/** A row label: a source, or all runs. */
export type Scope = AgentSource | 'overall';

/**
 * Calls from each compression to the next in one run: the length of each cache epoch that a compression opened and
 * the next one closed (the compressing call counted, the next one not). A system that compresses on every call gives
 * 1s; a run that compressed fewer than twice gives none.
 */
export function callsBetween(compressions: readonly number[]): number[] {
  return compressions.slice(1).map((call, index) => call - (compressions[index] as number));
}

/** The middle value (the mean of the two middle ones for an even count), undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Pools runs: sums of tokens, cost, floor and counts; rates and ratios of the sums; epochs of every run. */
export function aggregate(runs: readonly RunFigures[]): Figures {
  const sum = (pick: (run: RunFigures) => number) => runs.reduce((total, run) => total + pick(run), 0);
  const cost = sum((run) => run.cost);
  const floor = sum((run) => run.floor);
  const hidden = sum((run) => run.hidden);
  const neededLater = sum((run) => run.neededLater);
  const gaps = runs.flatMap((run) => callsBetween(run.compressions));
  return {
    runs: runs.length,
    calls: sum((run) => run.calls),
    sentTokens: sum((run) => run.sentTokens),
    cost,
    floor,
    costRatio: floor > 0 ? cost / floor : 0,
    hidden,
    neededLater,
    rate: hidden > 0 ? neededLater / hidden : 0,
    compressions: sum((run) => run.compressions.length),
    callsBetween: gaps,
    minCallsBetween: gaps.length > 0 ? Math.min(...gaps) : undefined,
    medianCallsBetween: median(gaps),
  };
}

/** Figures of each source present in `runs` (in AGENT_SOURCES order), then of all of them. */
export function figuresBySource(runs: readonly RunFigures[]): Map<Scope, Figures> {
  const figures = new Map<Scope, Figures>();
  for (const source of AGENT_SOURCES) {
    const ofSource = runs.filter((run) => run.source === source);
    if (ofSource.length > 0) figures.set(source, aggregate(ofSource));
  }
  figures.set('overall', aggregate(runs));
  return figures;
}
