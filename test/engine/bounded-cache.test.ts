import { describe, expect, it } from 'vitest';
import { boundedCache } from '../../src/bounded-cache.js';

describe('boundedCache', () => {
  it('keeps at most its entries, forgetting the least recently used first', () => {
    const cache = boundedCache<string, number>(3);
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      cache.set(key, value);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('d', 4);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(cache.size).toBe(3);
    cache.set('c', 30); // replacing an entry keeps the count
    expect(cache.size).toBe(3);
    expect(cache.get('c')).toBe(30);
  });
});
