import { describe, expect, it } from 'vitest';
import { blockIdentity, extendsMark, type SentPrompt, SentPrompts } from '../../src/engine/sent-prompts.js';

/** The memory of the last prompt per conversation, and of the recall blocks its prompts took out. */

const hashes = [10, 11, 12, 13, 14, 15];
const sent = (length: number, blocks: string[], covered = 0): Omit<SentPrompt, 'left'> => {
  const point = {
    coveredCount: covered,
    state: undefined,
    droppedCount: 0,
    masked: new Set<string>(),
    maskReasons: new Map<string, string>(),
    staleThrough: 0,
    minThrough: 0,
    recalls: new Map<number, readonly string[]>(),
  };
  return {
    history: { length, hash: hashes[length] as number },
    hashes: [1, 2, 3],
    decided: { point, lasting: point },
    record: undefined,
    partial: false,
    blocks: new Set(blocks),
  };
};

describe('extendsMark', () => {
  it('holds for the same history and a longer one with the same messages, not for a shorter or another', () => {
    expect(extendsMark(hashes, { length: 3, hash: 13 })).toBe(true);
    expect(extendsMark(hashes, { length: 5, hash: 15 })).toBe(true);
    expect(extendsMark(hashes.slice(0, 3), { length: 3, hash: 13 })).toBe(false);
    expect(extendsMark(hashes, { length: 3, hash: 99 })).toBe(false);
  });
});

describe('blockIdentity', () => {
  it('names a block by its user message, the history up to it and what it quotes', () => {
    expect(blockIdentity(2, hashes, ['0:0', '1:2'])).toBe('2:13:0:0,1:2');
    expect(blockIdentity(2, hashes, ['0:0'])).not.toBe(blockIdentity(3, hashes, ['0:0']));
  });
});

describe('SentPrompts', () => {
  it('remembers the last prompt of each conversation', () => {
    const prompts = new SentPrompts();
    expect(prompts.previous('a')).toBeUndefined();
    prompts.remember('a', sent(3, []), hashes);
    prompts.remember('b', sent(2, []), hashes);
    expect(prompts.previous('a')?.history.length).toBe(3);
    expect(prompts.previous('b')?.history.length).toBe(2);
  });

  it('marks the blocks a prompt of a history that extends the last one took out, with where they left', () => {
    const prompts = new SentPrompts();
    prompts.remember('a', sent(3, ['1:12:x', '2:13:y']), hashes);
    prompts.remember('a', sent(5, ['2:13:y']), hashes);
    expect([...(prompts.previous('a')?.left ?? [])]).toEqual([['1:12:x', { length: 5, hash: 15 }]]);
    // kept: a later prompt without any blocks adds the other one
    prompts.remember('a', sent(5, []), hashes);
    expect([...(prompts.previous('a')?.left.keys() ?? [])]).toEqual(['1:12:x', '2:13:y']);
  });

  it('does not mark blocks that left with their message (a fold) or with a branch (a shorter resend, an edit)', () => {
    const folded = new SentPrompts();
    folded.remember('a', sent(3, ['1:12:x']), hashes);
    folded.remember('a', sent(5, [], 2), hashes);
    expect(folded.previous('a')?.left.size).toBe(0);
    const resent = new SentPrompts();
    resent.remember('a', sent(5, ['1:12:x']), hashes);
    resent.remember('a', sent(3, []), hashes.slice(0, 4));
    expect(resent.previous('a')?.left.size).toBe(0);
  });
});
