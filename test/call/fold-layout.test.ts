import { describe, expect, it } from 'vitest';
import { FoldLayout } from '../../src/call/fold-layout.js';
import type { CutPoints } from '../../src/transcript/cut-point-index.js';
import type { Message } from '../../src/transcript/transcript.js';
import { deepFreeze, text } from '../helpers/fixtures.js';

/** FoldLayout on hand-built histories with hand-picked token counts: no counter, so every sum is exact. */

const callOf = (...ids: string[]): Message => ({
  role: 'assistant',
  parts: ids.map((id) => ({ type: 'tool-call' as const, id, name: 'read_file', args: { path: `src/${id}.ts` } })),
});
const resultOf = (id: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name: 'read_file', output: `contents of src/${id}.ts` }],
});

/** Two turns of an agent and a new user message: index 7 answers the second of two parallel calls. */
const HISTORY: readonly Message[] = [
  text('user', 'Fix the failing test.'), // 0
  callOf('c1'), // 1
  resultOf('c1'), // 2
  text('assistant', 'The test reads a stale fixture.'), // 3
  text('user', 'Now update the fixture too.'), // 4
  callOf('c2', 'c3'), // 5
  resultOf('c2'), // 6
  resultOf('c3'), // 7
  text('assistant', 'Updated.'), // 8
  text('user', 'Thanks. Anything else?'), // 9
];
const TOKENS = [10, 20, 100, 30, 10, 20, 100, 50, 30, 10];
const FIXED = 200;
/** `total` of HISTORY without a state or recall block: the fixed part and every message from the cut on. */
const suffix = (cut: number) => TOKENS.slice(cut).reduce((sum, tokens) => sum + tokens, 0);

const layout = (before?: ReadonlyMap<number, number>) => new FoldLayout(HISTORY, TOKENS, FIXED, before);

describe('FoldLayout cut points', () => {
  it('cuts before every message that starts outside an open tool call, never at 0 or at a tool message', () => {
    expect(layout().cuts).toEqual([1, 3, 4, 5, 8, 9]);
  });

  it.each([
    [0, false],
    [1, true],
    [2, false], // would part c1 from its result
    [6, false], // would part c2 and c3 from their results
    [7, false], // c3 still waits for its result
    [8, true],
    [9, true],
    [10, false], // past the last message
  ])('isCut(%i) is %s', (index, expected) => {
    expect(layout().isCut(index)).toBe(expected);
  });

  it('never parts a call from a result that arrives after other messages', () => {
    const history = [
      text('user', 'Read src/c1.ts.'),
      callOf('c1'),
      text('assistant', 'Still reading.'),
      text('user', 'Hurry up.'),
      resultOf('c1'),
      text('assistant', 'Done.'),
    ];
    const late = new FoldLayout(history, [1, 1, 1, 1, 1, 1], 0);
    expect(late.cuts).toEqual([1, 5]);
    expect(late.isCut(2)).toBe(false);
    expect(late.isCut(3)).toBe(false);
  });

  it('takes the cut points the call read already instead of reading them again', () => {
    const points: CutPoints = { list: [4], has: (index) => index === 4 };
    const given = new FoldLayout(HISTORY, TOKENS, FIXED, new Map(), points);
    expect(given.cuts).toEqual([4]);
    expect(given.isCut(3)).toBe(false);
    expect(given.isCut(4)).toBe(true);
  });

  it('has no cut point in a history of one message or none', () => {
    expect(new FoldLayout([text('user', 'Hi')], [5], 0).cuts).toEqual([]);
    expect(new FoldLayout([], [], 0).cuts).toEqual([]);
  });
});

describe('FoldLayout.pinned', () => {
  it.each([
    [0, -1, 'nothing folded'],
    [1, 0, 'cut inside the first turn: its user message'],
    [3, 0, 'cut inside the first turn, later'],
    [4, -1, 'cut at a user message: the kept part starts with it'],
    [5, 4, 'cut inside the second turn: its user message'],
    [8, 4, 'cut after the second turn steps'],
    [9, -1, 'cut at the latest user message'],
    [10, -1, 'everything folded'],
    [12, -1, 'past the end'],
  ])('pins %i -> %i (%s)', (covered, expected) => {
    expect(layout().pinned(covered)).toBe(expected);
  });

  it('pins nothing when no user message comes before the cut', () => {
    const history = [text('assistant', 'Hello, how can I help?'), callOf('c1'), resultOf('c1'), text('user', 'Hi')];
    expect(new FoldLayout(history, [1, 1, 1, 1], 0).pinned(1)).toBe(-1);
  });
});

describe('FoldLayout.total', () => {
  it('is the fixed tokens and the whole history when nothing is folded', () => {
    expect(layout().total(0, 0)).toBe(FIXED + 380);
  });

  it.each([
    // covered, state, expected: fixed + state + pinned user message + messages from the cut on
    [1, 0, FIXED + 10 + suffix(1)],
    [3, 40, FIXED + 40 + 10 + suffix(3)],
    [4, 40, FIXED + 40 + suffix(4)],
    [5, 40, FIXED + 40 + 10 + suffix(5)],
    [8, 25, FIXED + 25 + 10 + suffix(8)],
    [9, 25, FIXED + 25 + 10],
    [10, 25, FIXED + 25],
  ])('total(%i, %i) is %i', (covered, stateTokens, expected) => {
    expect(layout().total(covered, stateTokens)).toBe(expected);
  });

  it('counts a pinned user message once, so folding its turn up to the next step frees only that step', () => {
    // the user message at 4 is kept either way: sent in place at cut 4, pinned at cut 5
    expect(layout().total(5, 40)).toBe(layout().total(4, 40));
    expect(layout().total(8, 40)).toBe(layout().total(5, 40) - 20 - 100 - 50);
  });

  it('counts a recall block with the user message it precedes, and lets it leave with that message', () => {
    const withBlock = layout(new Map([[4, 25]]));
    expect(withBlock.total(0, 0)).toBe(FIXED + 380 + 25);
    expect(withBlock.total(4, 0)).toBe(FIXED + suffix(4) + 25);
    // the user message stays pinned after the cut, its block does not
    expect(withBlock.total(5, 0)).toBe(FIXED + 10 + suffix(5));
  });

  it('counts a block before the latest user message until everything is folded', () => {
    const withBlock = layout(new Map([[9, 15]]));
    expect(withBlock.total(9, 0)).toBe(FIXED + 10 + 15);
    expect(withBlock.total(10, 0)).toBe(FIXED);
  });
});

describe('FoldLayout.growthPerCall', () => {
  // spans from one assistant message to the next: 1->3 = 120, 3->5 = 40, 5->8 = 170
  it('is the median of the latest spans between assistant messages', () => {
    expect(layout().growthPerCall()).toBe(120);
  });

  it('averages the two middle spans of an even count, and reads only the latest `calls` spans', () => {
    expect(layout().growthPerCall(2)).toBe((170 + 40) / 2);
    expect(layout().growthPerCall(1)).toBe(170);
  });

  it('gives the largest span when asked for it', () => {
    expect(layout().growthPerCall(5, true)).toBe(170);
    expect(layout().growthPerCall(2, true)).toBe(170);
  });

  it('counts a recall block in the span that holds its user message', () => {
    expect(layout(new Map([[4, 60]])).growthPerCall(5, true)).toBe(170);
    expect(layout(new Map([[4, 200]])).growthPerCall(5, true)).toBe(240);
  });

  it('is 0 with fewer than two assistant messages', () => {
    expect(new FoldLayout([text('user', 'Hi'), text('assistant', 'Hello')], [5, 5], 0).growthPerCall()).toBe(0);
    expect(new FoldLayout([], [], 0).growthPerCall(5, true)).toBe(0);
  });
});

describe('FoldLayout.chooseCut', () => {
  /** HISTORY without its latest user message: an agent loop between two user messages. */
  const loop = () => new FoldLayout(HISTORY.slice(0, 9), TOKENS.slice(0, 9), FIXED);
  // with a state of 40: cut 1 -> 610, 3 -> 490, 4 -> 450, 5 -> 450, 8 -> 280

  it('prefers the first user message whose prompt fits, over an earlier cut that fits too', () => {
    expect(loop().chooseCut({ covered: 0, stateTokens: 40, targetTokens: 490 })).toBe(4);
  });

  it('takes the first cut that fits when no user message does', () => {
    expect(loop().chooseCut({ covered: 0, stateTokens: 40, targetTokens: 300 })).toBe(8);
  });

  it('takes the deepest cut when none fits', () => {
    expect(loop().chooseCut({ covered: 0, stateTokens: 40, targetTokens: 100 })).toBe(8);
  });

  it('looks only beyond what is folded already', () => {
    expect(loop().chooseCut({ covered: 4, stateTokens: 40, targetTokens: 10_000 })).toBe(5);
    expect(loop().chooseCut({ covered: 8, stateTokens: 40, targetTokens: 100 })).toBeUndefined();
  });

  it('weighs the state: a larger state needs a deeper cut', () => {
    expect(loop().chooseCut({ covered: 0, stateTokens: 40, targetTokens: 460 })).toBe(4);
    expect(loop().chooseCut({ covered: 0, stateTokens: 60, targetTokens: 460 })).toBe(8);
  });

  describe('forced', () => {
    it('folds everything up to the latest user message', () => {
      expect(layout().chooseCut({ covered: 0, stateTokens: 0, targetTokens: 0, force: true })).toBe(9);
      expect(loop().chooseCut({ covered: 0, stateTokens: 0, targetTokens: 0, force: true })).toBe(4);
    });

    it('folds once: the latest user message folded already, its turn stays', () => {
      expect(loop().chooseCut({ covered: 4, stateTokens: 0, targetTokens: 0, force: true })).toBeUndefined();
      expect(loop().chooseCut({ covered: 5, stateTokens: 0, targetTokens: 0, force: true })).toBeUndefined();
    });

    it('folds every step of the turn when the history starts with its user message', () => {
      const history = [
        text('user', 'Fix the failing test.'),
        callOf('c1'),
        resultOf('c1'),
        callOf('c2'),
        resultOf('c2'),
        text('assistant', 'Fixed.'),
      ];
      expect(
        new FoldLayout(history, [1, 1, 1, 1, 1, 1], 0).chooseCut({
          covered: 0,
          stateTokens: 0,
          targetTokens: 0,
          force: true,
        }),
      ).toBe(5);
    });

    it('never folds just the user message it would then pin again', () => {
      const history = [text('user', 'Fix the failing test.'), callOf('c1'), resultOf('c1')];
      const single = new FoldLayout(history, [1, 1, 1], 0);
      expect(single.cuts).toEqual([1]);
      expect(single.chooseCut({ covered: 0, stateTokens: 0, targetTokens: 0, force: true })).toBeUndefined();
    });
  });

  it('is undefined when the history has no cut point', () => {
    const single = new FoldLayout([text('user', 'Hi')], [5], 0);
    expect(single.chooseCut({ covered: 0, stateTokens: 0, targetTokens: 0 })).toBeUndefined();
    expect(single.chooseCut({ covered: 0, stateTokens: 0, targetTokens: 0, force: true })).toBeUndefined();
  });
});

describe('FoldLayout inputs', () => {
  it('does not mutate its inputs', () => {
    const messages = deepFreeze(structuredClone([...HISTORY]));
    const tokens = deepFreeze([...TOKENS]);
    const before = new Map([[4, 25]]);
    const frozen = new FoldLayout(messages, tokens, FIXED, before);
    expect(frozen.total(5, 40)).toBe(layout().total(5, 40));
    expect(frozen.chooseCut({ covered: 0, stateTokens: 40, targetTokens: 490 })).toBe(4);
    expect(frozen.growthPerCall(5, true)).toBe(170);
    expect([...before]).toEqual([[4, 25]]);
    expect(tokens).toEqual(TOKENS);
  });
});
