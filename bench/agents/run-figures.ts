/**
 * The figures of one recorded agent run replayed through a system: tokens, cache-priced cost, the observations it
 * hid and how many of those the agent needed later, and the calls at which it compressed.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { MockLanguageModelV4 } from 'ai/test';
import { type ReplayStep, replaySession } from '../../examples/lib/replay.js';
import type { SessionFile } from '../../examples/lib/session-file.js';
import { neededLater } from '../needed-later.js';
import { type AgentSource, agentSource } from './fixture-source.js';

/** One run's figures under one system. */
export interface RunFigures {
  readonly id: string;
  readonly source: AgentSource;
  /** Model calls replayed: one per assistant turn. */
  readonly calls: number;
  /** Input tokens sent to the model over all calls. */
  readonly sentTokens: number;
  /** Cache-priced cost in input-token units (cache read 0.1x, write 1.25x; `totals` in examples/lib/replay.ts). */
  readonly cost: number;
  /** The write-once floor: every token of the final history written to the cache once. */
  readonly floor: number;
  /** Observations (tool results) hidden at some call, and those of them the agent used again later. */
  readonly hidden: number;
  readonly neededLater: number;
  /** Indexes of the calls that compressed (see {@link compressionCalls}). */
  readonly compressions: readonly number[];
}

/**
 * The calls whose prompt does not start with the whole previous prompt: the system rewrote or removed something the
 * previous call sent (a mask, a fold, a drop) instead of only appending, so the provider's prompt cache misses from
 * there on. The first call is never one. Read from the replay's prefix measure: `cachedTokens` (leading tokens
 * identical to the previous prompt) short of the previous call's `sentTokens`.
 */
export function compressionCalls(steps: readonly Pick<ReplayStep, 'sentTokens' | 'cachedTokens'>[]): number[] {
  const calls: number[] = [];
  for (let index = 1; index < steps.length; index++) {
    if ((steps[index]?.cachedTokens ?? 0) < (steps[index - 1]?.sentTokens ?? 0)) calls.push(index);
  }
  return calls;
}

/**
 * Replays `session` call by call through the system `wrap` builds around the recording mock and measures it.
 * Throws when the run's source cannot be told (see `agentSource`).
 */
export async function measureRun(
  session: SessionFile,
  wrap: (mock: MockLanguageModelV4) => LanguageModelV4,
): Promise<RunFigures> {
  const source = agentSource(session);
  if (!source) throw new Error(`measureRun: cannot tell the source of ${session.id} (no source field, no tool calls)`);
  let recording: MockLanguageModelV4 | undefined;
  const result = await replaySession(session, (mock) => {
    recording = mock;
    return wrap(mock);
  });
  const rate = neededLater(session, recording?.doGenerateCalls.map((call) => call.prompt) ?? []);
  return {
    id: session.id,
    source,
    calls: result.steps.length,
    sentTokens: result.sentTokens,
    cost: result.cost,
    floor: result.floor,
    hidden: rate.hidden,
    neededLater: rate.neededLater,
    compressions: compressionCalls(result.steps),
  };
}
