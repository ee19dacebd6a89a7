/**
 * Leave-one-source-out: a setting is chosen on the runs of the other sources only and judged on the held-out one, so
 * a setting that fits one agent's tool format cannot pass for a general one.
 */
import type { AgentSource } from './fixture-source.js';
import type { RunFigures } from './run-figures.js';
import { aggregate, type Figures } from './source-figures.js';

/** The most tokens a chosen setting may send on the training sources, as a multiple of the baseline's. */
export const TOKEN_LIMIT = 1.25;

/** One setting of the grid and its runs (every source). */
export interface Candidate {
  readonly name: string;
  readonly runs: readonly RunFigures[];
}

/** The setting chosen with `heldOut` left out, its figures on the training sources and on the held-out one. */
export interface Choice {
  readonly heldOut: AgentSource;
  readonly setting: string;
  /** Whether it met the token limit on the training sources; false when no setting did (then: the fewest tokens). */
  readonly withinLimit: boolean;
  readonly training: Figures;
  /** Training tokens as a multiple of the baseline's on the same runs. */
  readonly trainingTokenRatio: number;
  readonly heldOutRuns: readonly RunFigures[];
  readonly heldOutFigures: Figures;
}

/**
 * Chooses, among `candidates`, the setting with the lowest needed-later rate on the runs not of `heldOut`, subject to
 * its tokens there being at most `limit` times the `baseline` runs' tokens there. Ties go to fewer tokens, then to
 * the earlier candidate. When no candidate meets the limit, the one with the fewest training tokens is chosen and
 * `withinLimit` is false.
 */
export function chooseSetting(
  heldOut: AgentSource,
  candidates: readonly Candidate[],
  baseline: readonly RunFigures[],
  limit = TOKEN_LIMIT,
): Choice {
  const baselineTokens = aggregate(baseline.filter((run) => run.source !== heldOut)).sentTokens;
  const scored = candidates.map((candidate) => {
    const training = aggregate(candidate.runs.filter((run) => run.source !== heldOut));
    const ratio = baselineTokens > 0 ? training.sentTokens / baselineTokens : Number.POSITIVE_INFINITY;
    return { candidate, training, ratio };
  });
  const eligible = scored.filter((each) => each.ratio <= limit);
  const pool = eligible.length > 0 ? eligible : scored;
  const best = pool.reduce((chosen, each) => {
    if (eligible.length === 0) return each.ratio < chosen.ratio ? each : chosen;
    if (each.training.rate !== chosen.training.rate) return each.training.rate < chosen.training.rate ? each : chosen;
    return each.training.sentTokens < chosen.training.sentTokens ? each : chosen;
  });
  const heldOutRuns = best.candidate.runs.filter((run) => run.source === heldOut);
  return {
    heldOut,
    setting: best.candidate.name,
    withinLimit: eligible.length > 0,
    training: best.training,
    trainingTokenRatio: best.ratio,
    heldOutRuns,
    heldOutFigures: aggregate(heldOutRuns),
  };
}
