import { describe, expect, it } from 'vitest';
import { hash53, hashChain } from '../../src/counting/hash.js';
import { MAX_INDEXED_CUTS, type StateRecord, StateRecords } from '../../src/persistence/state-records.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { SessionState } from '../../src/session-state/session-state.js';

describe('memoryStateStore', () => {
  it('evicts the least recently written entry past maxEntries', async () => {
    const store = memoryStateStore({ maxEntries: 2 });
    await store.set('a', 1);
    await store.set('b', 2);
    await store.set('c', 3);
    expect(store.size).toBe(2);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBe(2);
    expect(await store.get('c')).toBe(3);
  });

  it('get refreshes recency, so the untouched entry goes first', async () => {
    const store = memoryStateStore({ maxEntries: 2 });
    await store.set('a', 1);
    await store.set('b', 2);
    expect(await store.get('a')).toBe(1);
    await store.set('c', 3);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe(1);
    expect(await store.get('c')).toBe(3);
  });

  it('overwriting a key refreshes it and does not grow the store', async () => {
    const store = memoryStateStore({ maxEntries: 2 });
    await store.set('a', 1);
    await store.set('b', 2);
    await store.set('a', 10);
    await store.set('c', 3);
    expect(store.size).toBe(2);
    expect(await store.get('a')).toBe(10);
    expect(await store.get('b')).toBeUndefined();
  });

  it('expires entries at their TTL with an injected clock', async () => {
    let time = 1_000;
    const store = memoryStateStore({ now: () => time });
    await store.set('short', 'x', { ttlMs: 100 });
    await store.set('forever', 'y');
    time = 1_099;
    expect(await store.get('short')).toBe('x');
    time = 1_100;
    expect(await store.get('short')).toBeUndefined();
    expect(store.size).toBe(1);
    time = Number.MAX_SAFE_INTEGER;
    expect(await store.get('forever')).toBe('y');
  });

  it('a get does not extend the TTL; a set does', async () => {
    let time = 0;
    const store = memoryStateStore({ now: () => time });
    await store.set('k', 'v', { ttlMs: 100 });
    time = 90;
    expect(await store.get('k')).toBe('v');
    time = 150;
    expect(await store.get('k')).toBeUndefined();
    await store.set('k', 'v2', { ttlMs: 100 });
    time = 240;
    expect(await store.get('k')).toBe('v2');
  });

  it('clear empties the store', async () => {
    const store = memoryStateStore();
    await store.set('a', 1);
    store.clear();
    expect(store.size).toBe(0);
    expect(await store.get('a')).toBeUndefined();
  });
});

const state = (fact: string): SessionState => ({ logos: [fact], pathos: [], abstract: [], conversationSummary: fact });

/** Prefix hashes of a list of message hashes, as the engine builds them: [namespace, m0, m0+m1, ...]. */
const NS = ['ns', ''] as const;

function prefixes(namespace: string, messages: readonly string[]): number[] {
  const out = [hash53(namespace)];
  for (const message of messages) out.push(hashChain(out.at(-1) as number, hash53(message)));
  return out;
}

/** A memory store that remembers the keys written, to find the index and record keys without rebuilding them. */
function recordingStore() {
  const inner = memoryStateStore();
  const keys = new Set<string>();
  const store: StateStore = {
    get: (key) => inner.get(key),
    set: async (key, value, options) => {
      keys.add(key);
      await inner.set(key, value, options);
    },
  };
  const key = (part: string) => [...keys].find((candidate) => candidate.includes(part)) as string;
  return { store, key };
}

const record = (hashes: readonly number[], coveredCount: number, fact: string): StateRecord => ({
  version: 3,
  through: coveredCount,
  coveredCount,
  prefixHash: (hashes[coveredCount] as number).toString(36),
  state: state(fact),
  droppedCount: 0,
  masked: [],
});

describe('StateRecords', () => {
  const messages = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'];
  const hashes = prefixes('ns', messages);

  async function seeded() {
    const records = new StateRecords(memoryStateStore(), undefined);
    await records.save({ scope: NS, anchor: 'm0', record: record(hashes, 2, 'two') });
    await records.save({ scope: NS, anchor: 'm0', record: record(hashes, 4, 'four') });
    return records;
  }

  it('finds the deepest cut whose prefix matches', async () => {
    const records = await seeded();
    const found = await records.find({ scope: NS, anchor: 'm0', prefixHashes: hashes, maxThrough: 5 });
    expect(found?.coveredCount).toBe(4);
    expect(found?.state?.logos).toEqual(['four']);
  });

  it('ignores cuts whose prefix changed (an edited message before the cut)', async () => {
    const records = await seeded();
    const edited = prefixes('ns', ['m0', 'm1', 'm2', 'EDITED', 'm4', 'm5']);
    const found = await records.find({ scope: NS, anchor: 'm0', prefixHashes: edited, maxThrough: 5 });
    expect(found?.coveredCount).toBe(2);
    const early = prefixes('ns', ['m0', 'EDITED', 'm2', 'm3', 'm4', 'm5']);
    expect(await records.find({ scope: NS, anchor: 'm0', prefixHashes: early, maxThrough: 5 })).toBeUndefined();
  });

  it('ignores records about more messages than maxThrough', async () => {
    const records = await seeded();
    const found = await records.find({ scope: NS, anchor: 'm0', prefixHashes: hashes, maxThrough: 3 });
    expect(found?.coveredCount).toBe(2);
  });

  it('keeps namespaces and anchors apart', async () => {
    const records = await seeded();
    const other = prefixes('other', messages);
    expect(
      await records.find({ scope: ['other', ''] as const, anchor: 'm0', prefixHashes: other, maxThrough: 5 }),
    ).toBeUndefined();
    expect(await records.find({ scope: NS, anchor: 'x0', prefixHashes: hashes, maxThrough: 5 })).toBeUndefined();
  });

  it('falls back to a shallower cut when the deeper record is gone or corrupt', async () => {
    const { store, key } = recordingStore();
    const records = new StateRecords(store, undefined);
    await records.save({ scope: NS, anchor: 'm0', record: record(hashes, 2, 'two') });
    await records.save({ scope: NS, anchor: 'm0', record: record(hashes, 4, 'four') });
    await store.set(key(':state:4:'), { garbage: true });
    const found = await records.find({ scope: NS, anchor: 'm0', prefixHashes: hashes, maxThrough: 5 });
    expect(found?.coveredCount).toBe(2);
  });

  it('returns undefined for a corrupt index', async () => {
    const { store, key } = recordingStore();
    const records = new StateRecords(store, undefined);
    await records.save({ scope: NS, anchor: 'm0', record: record(hashes, 2, 'two') });
    await store.set(key(':index:'), 'not an index');
    expect(await records.find({ scope: NS, anchor: 'm0', prefixHashes: hashes, maxThrough: 5 })).toBeUndefined();
  });

  it('passes its TTL to the store on every write', async () => {
    const calls: Array<[string, unknown, unknown]> = [];
    const inner = memoryStateStore();
    const store: StateStore = {
      get: (key) => inner.get(key),
      set: async (key, value, options) => {
        calls.push([key, value, options]);
        await inner.set(key, value, options);
      },
    };
    await new StateRecords(store, 60_000).save({ scope: NS, anchor: 'm0', record: record(hashes, 2, 'two') });
    expect(calls).toHaveLength(2);
    for (const [, , options] of calls) expect(options).toEqual({ ttlMs: 60_000 });
  });

  it('saving the same cut twice keeps one index entry; the index is bounded', async () => {
    const { store, key } = recordingStore();
    const records = new StateRecords(store, undefined);
    await records.save({ scope: NS, anchor: 'm0', record: record(hashes, 2, 'two') });
    await records.save({ scope: NS, anchor: 'm0', record: record(hashes, 2, 'two again') });
    const indexKey = key(':index:');
    expect(await store.get(indexKey)).toEqual([{ through: 2, prefixHash: record(hashes, 2, '').prefixHash }]);
    expect(
      (await records.find({ scope: NS, anchor: 'm0', prefixHashes: hashes, maxThrough: 5 }))?.state?.logos,
    ).toEqual(['two again']);
    const long = prefixes(
      'ns',
      Array.from({ length: MAX_INDEXED_CUTS + 10 }, (_, index) => `m${index}`),
    );
    for (let cut = 1; cut <= MAX_INDEXED_CUTS + 10; cut++) {
      await records.save({ scope: NS, anchor: 'm0', record: record(long, cut, `${cut}`) });
    }
    expect((await store.get(indexKey)) as unknown[]).toHaveLength(MAX_INDEXED_CUTS);
  });
});
