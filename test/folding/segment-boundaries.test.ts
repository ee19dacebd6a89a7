import { describe, expect, it } from 'vitest';
import { hash53, hashChain } from '../../src/counting/hash.js';
import { SegmentBoundaries } from '../../src/folding/segment-boundaries.js';
import { DEFAULT_SEMANTIC_TRIGGER_OPTIONS, findBoundaries } from '../../src/folding/semantic-triggers.js';
import { analyzeSteps } from '../../src/signals/transcript-signals.js';
import { type Message, stableStringify } from '../../src/transcript/transcript.js';
import { fixtureTrajectories } from '../helpers/fixture-transcripts.js';
import { bash, edit, read } from '../helpers/steps.js';

const trajectories = fixtureTrajectories();
const options = DEFAULT_SEMANTIC_TRIGGER_OPTIONS;

function prefixHashes(messages: readonly Message[]): number[] {
  const hashes = [hash53('')];
  for (const message of messages) hashes.push(hashChain(hashes.at(-1) as number, hash53(stableStringify(message))));
  return hashes;
}

/** Asks one instance for the boundaries of each prefix in `order`, each checked against a full scan. */
function expectIncrementalEqualsFull(
  messages: readonly Message[],
  order: readonly number[],
  segments = new SegmentBoundaries(),
): number {
  const hashes = prefixHashes(messages);
  let found = 0;
  for (const count of order) {
    const prefix = messages.slice(0, count);
    const steps = analyzeSteps(prefix);
    const full = findBoundaries(prefix, steps, options);
    const incremental = segments.find({
      conversation: 'c',
      messages: prefix,
      steps,
      prefixHashes: hashes.slice(0, count + 1),
      options,
    });
    expect(incremental, `prefix of ${count}`).toEqual(full);
    found += full.length;
  }
  return found;
}

const task: Message = { role: 'user', parts: [{ type: 'text', text: 'Fix the parser, then the docs.' }] };
const session: Message[] = [
  task,
  ...read('r1', 'src/parser.ts'),
  ...edit('e1', 'src/parser.ts'),
  ...bash('t1', 'npm test -- parser', 'FAIL parser.test.ts\n1 failed'),
  ...edit('e2', 'src/parser.ts'),
  ...bash('t2', 'npm test -- parser', 'PASS parser.test.ts\n1 passed'),
  ...read('r2', 'docs/guide.md'),
  ...edit('e3', 'docs/guide.md'),
  ...read('r3', 'lib/other/index.ts'),
];

describe('SegmentBoundaries', () => {
  it('equals a full scan on every prefix of a growing history, then on retries and a fork', () => {
    const segments = new SegmentBoundaries();
    const order = [...Array.from({ length: session.length + 1 }, (_, count) => count), 7, session.length, 4];
    expect(expectIncrementalEqualsFull(session, order, segments)).toBeGreaterThan(0);
    expectIncrementalEqualsFull(session, [session.length], segments);
    const fork = [
      ...session.slice(0, 9),
      ...bash('x', 'npm test -- parser', 'PASS parser.test.ts'),
      ...session.slice(11),
    ];
    expectIncrementalEqualsFull(fork, [fork.length], segments);
  });
});

describe('SegmentBoundaries after a late result', () => {
  it('scans again when a result of a step it stored arrives after it', () => {
    const booking: Message[] = [
      task,
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'b', name: 'update_booking', args: { id: 7 } }] },
      ...read('r1', 'docs/a.md'),
      ...read('r2', 'docs/b.md'),
      { role: 'assistant', parts: [{ type: 'text', text: 'Waiting for the booking service.' }] },
    ];
    const late: Message[] = [
      ...booking,
      {
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'b', name: 'update_booking', output: 'error: no seats' }],
      },
      ...read('r3', 'docs/c.md'),
      ...read('r4', 'docs/d.md'),
    ];
    const segments = new SegmentBoundaries();
    expectIncrementalEqualsFull(booking, [booking.length], segments);
    expectIncrementalEqualsFull(late, [late.length - 2, late.length], segments);
  });
});

describe.skipIf(!trajectories)('SegmentBoundaries on every prefix of every fixture trajectory', () => {
  it.each((trajectories ?? []).map((run) => [run.id, run] as const))('%s', (_id, run) => {
    const order = Array.from({ length: run.messages.length + 1 }, (_, count) => count);
    expectIncrementalEqualsFull(run.messages, [...order, Math.floor(run.messages.length / 2), run.messages.length]);
  });
});
