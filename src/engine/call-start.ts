import type { CallFacts } from '../call/call-facts.js';
import { type CompressionPoint, startingPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { StateRecord } from '../persistence/state-records.js';
import type { LoadedRecord } from './call-records.js';
import type { PromptAssembly } from './prompt-assembly.js';

/** Where a call starts: the record it uses, its point and projection, and the prompt's tokens before any change. */
export interface CallStart {
  readonly stored: StateRecord | undefined;
  /** The stored state was cut to this call's cap: a change the call reports. */
  readonly refitted: boolean;
  readonly start: CompressionPoint;
  readonly startProjection: Projection;
  /** The prompt from the record as stored, before a cut: what the call's report counts from. */
  readonly tokensBefore: number;
}

/**
 * The point a call starts from. A stored state over this call's cap (made when the cap was larger: the calibration
 * ratio was lower, another budget, a store shared with other options) is sent as it was, so the cached prefix holds,
 * unless the prompt would go over the hard limit with it: then the state is cut to the cap, a change the call
 * reports, counted from the prompt before the cut. A fold cuts it anyway (its new state is fitted to the cap).
 */
export function startOf(
  facts: CallFacts,
  loaded: Pick<LoadedRecord, 'stored' | 'fitted'>,
  choices: ReadonlyMap<number, readonly string[]>,
  assembly: Pick<PromptAssembly, 'project' | 'total'>,
): CallStart {
  const { stored } = loaded;
  const start = startingPoint(facts, stored, choices);
  const startProjection = assembly.project(facts, start);
  const tokensBefore = assembly.total(startProjection, start);
  // the fitted record is made only for a prompt over the hard limit
  const fitted = tokensBefore > facts.limits.hardLimit ? loaded.fitted : stored;
  if (fitted === stored) return { stored, refitted: false, start, startProjection, tokensBefore };
  const cut = startingPoint(facts, fitted, choices);
  return { stored: fitted, refitted: true, start: cut, startProjection: assembly.project(facts, cut), tokensBefore };
}
