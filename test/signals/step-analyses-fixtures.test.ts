import { describe, expect, it } from 'vitest';
import { hash53, hashChain } from '../../src/counting/hash.js';
import { StepAnalyses } from '../../src/signals/step-analyses.js';
import { analyzeSteps } from '../../src/signals/transcript-signals.js';
import { type Message, stableStringify } from '../../src/transcript/transcript.js';
import { fixtureTrajectories } from '../helpers/fixture-transcripts.js';

const trajectories = fixtureTrajectories();

function prefixHashes(messages: readonly Message[]): number[] {
  const hashes = [hash53('')];
  for (const message of messages) hashes.push(hashChain(hashes.at(-1) as number, hash53(stableStringify(message))));
  return hashes;
}

/** A fixed-seed generator (mulberry32), so a failing order can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.skipIf(!trajectories)('StepAnalyses on every prefix of every fixture trajectory', () => {
  const runs = trajectories ?? [];

  it.each(runs.map((run) => [run.id, run] as const))('%s, prefixes in order', (_id, run) => {
    const analyses = new StepAnalyses();
    const hashes = prefixHashes(run.messages);
    for (let count = 0; count <= run.messages.length; count++) {
      const prefix = run.messages.slice(0, count);
      expect(analyses.analyze(run.id, prefix, hashes.slice(0, count + 1)), `prefix of ${count}`).toEqual(
        analyzeSteps(prefix),
      );
    }
  });

  it.each(runs.filter((_run, index) => index % 6 === 0).map((run) => [run.id, run] as const))(
    '%s, prefixes in a random order and a fork',
    (_id, run) => {
      const analyses = new StepAnalyses();
      const hashes = prefixHashes(run.messages);
      const next = random(run.messages.length);
      for (let draw = 0; draw < 40; draw++) {
        const count = Math.floor(next() * (run.messages.length + 1));
        const prefix = run.messages.slice(0, count);
        expect(analyses.analyze(run.id, prefix, hashes.slice(0, count + 1)), `prefix of ${count}`).toEqual(
          analyzeSteps(prefix),
        );
      }
      analyses.analyze(run.id, run.messages, hashes);
      const middle = run.messages.findIndex((m, index) => index > run.messages.length / 3 && m.role === 'assistant');
      const fork: Message[] = [
        ...run.messages.slice(0, middle),
        { role: 'assistant', parts: [{ type: 'tool-call', id: 'fork', name: 'bash', args: { command: 'ls' } }] },
        { role: 'tool', parts: [{ type: 'tool-result', callId: 'fork', name: 'bash', output: 'src' }] },
        ...run.messages.slice(middle + 2),
      ];
      expect(middle).toBeGreaterThan(0);
      expect(analyses.analyze(run.id, fork, prefixHashes(fork))).toEqual(analyzeSteps(fork));
    },
  );
});
