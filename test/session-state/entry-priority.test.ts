import { describe, expect, it } from 'vitest';
import { entryPriority, keepMostImportant } from '../../src/session-state/entry-priority.js';

describe('entryPriority', () => {
  it.each([
    ['user: the deploy key rotates on Fridays', 5],
    ['user: never touch src/auth/session.ts', 6],
    ['Caroline (user): I moved to Berlin in May 2023', 5],
    ['Melanie (assistant): We camped at Yosemite in June', 5],
    ['Use half-even rounding everywhere', 4],
    ['assistant: I will read invoice.ts next', 2],
    ['assistant: tests must pass before the edit', 3],
    ['tool read_file(src/a.ts) -> 120 lines', 1],
    ['assistant called bash(ls)', 1],
    ['tool read_file: 27 export class UsageError extends Error {', 0],
  ])('%s -> %i', (entry, priority) => {
    expect(entryPriority(entry)).toBe(priority);
  });
});

describe('keepMostImportant', () => {
  it('drops tool output lines first, the oldest first, and keeps the order of the rest', () => {
    const entries = ['user: a must rule', 'tool x: old line', 'assistant: a step', 'tool x: new line', 'user: a fact'];
    expect(keepMostImportant(entries, 3)).toEqual(['user: a must rule', 'assistant: a step', 'user: a fact']);
    expect(keepMostImportant(entries, 4)).toEqual([
      'user: a must rule',
      'assistant: a step',
      'tool x: new line',
      'user: a fact',
    ]);
  });

  it('among equals drops the least specific first, then the oldest', () => {
    const entries = [
      'Mel (user): I ran a charity race for mental health in Boston',
      'Mel (user): yes that sounds great',
      'Caroline (assistant): I adopted a greyhound named Oscar',
      'Caroline (assistant): that sounds great',
    ];
    expect(keepMostImportant(entries, 2)).toEqual([entries[0], entries[2]]);
  });

  it('returns a copy when nothing needs to go', () => {
    const entries = ['a', 'b'];
    const kept = keepMostImportant(entries, 5);
    expect(kept).toEqual(entries);
    expect(kept).not.toBe(entries);
  });
});
