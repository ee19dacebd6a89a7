import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hash53, hashChain } from '../../src/counting/hash.js';
import { MAX_INDEX_ATTEMPTS } from '../../src/persistence/index-writes.js';
import { StateRecords } from '../../src/persistence/state-records.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';

const SCOPE = ['ns', ''] as const;

/** Prefix hashes of a branch: the shared first message, then messages of its own. */
function branchHashes(name: string, length: number): number[] {
  const out = [hash53('ns')];
  for (let index = 0; index < length; index++) {
    out.push(hashChain(out.at(-1) as number, hash53(index === 0 ? 'shared' : `${name}:${index}`)));
  }
  return out;
}

const recordOf = (hashes: readonly number[], through: number) => ({
  version: 3 as const,
  through,
  coveredCount: through,
  prefixHash: (hashes[through] as number).toString(36),
  state: { logos: [`${through}`], pathos: [], abstract: [], conversationSummary: '' },
  droppedCount: 0,
  masked: [],
});

/** The store over a network: each operation waits `delays()` turns of the event loop first. */
function delayed(store: StateStore, delays: () => number, withCompareAndSet: boolean): StateStore {
  const later = async () => {
    for (let turn = delays(); turn > 0; turn--) await new Promise((resolve) => setImmediate(resolve));
  };
  const wrapped: StateStore = {
    get: (key) => later().then(() => store.get(key)),
    set: (key, value, options) => later().then(() => store.set(key, value, options)),
  };
  const { compareAndSet } = store;
  if (withCompareAndSet && compareAndSet) {
    wrapped.compareAndSet = (...args) => later().then(() => compareAndSet.apply(store, args));
  }
  return wrapped;
}

describe('concurrent writers of one index', () => {
  it('lose no entry: instances with compareAndSet, or engines of one process sharing a store without it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          branches: fc.integer({ min: 2, max: 6 }),
          depth: fc.integer({ min: 2, max: 12 }),
          delays: fc.array(fc.nat(3), { minLength: 1, maxLength: 40 }),
          separately: fc.boolean(),
        }),
        async ({ branches, depth, delays, separately }) => {
          const backend = memoryStateStore();
          let next = 0;
          const delay = () => delays[next++ % delays.length] as number;
          // separate instances need compareAndSet; engines of one process share one store object (and its queue)
          const shared = delayed(backend, delay, false);
          const writers = Array.from({ length: branches }, (_, index) => {
            const store = separately ? delayed(backend, delay, true) : shared;
            return { records: new StateRecords(store, undefined), hashes: branchHashes(`b${index}`, depth + 1) };
          });
          await Promise.all(
            writers.map(({ records, hashes }) =>
              records.save({ scope: SCOPE, anchor: 'a', record: recordOf(hashes, depth) }),
            ),
          );
          const fresh = new StateRecords(backend, undefined);
          for (const { hashes } of writers) {
            const found = await fresh.find({ scope: SCOPE, anchor: 'a', prefixHashes: hashes, maxThrough: depth + 1 });
            expect(found?.prefixHash).toBe((hashes[depth] as number).toString(36));
          }
        },
      ),
      { numRuns: 60, seed: 7 },
    );
  });

  it('a store whose compareAndSet never matches still gets its index, by a set after the last attempt', async () => {
    const inner = memoryStateStore();
    let attempts = 0;
    const store: StateStore = {
      get: (key) => inner.get(key),
      set: (key, value, options) => inner.set(key, value, options),
      compareAndSet: async () => {
        attempts++;
        return false;
      },
    };
    const hashes = branchHashes('x', 4);
    const records = new StateRecords(store, undefined);
    await records.save({ scope: SCOPE, anchor: 'a', record: recordOf(hashes, 3) });
    expect(attempts).toBe(MAX_INDEX_ATTEMPTS - 1);
    expect((await records.find({ scope: SCOPE, anchor: 'a', prefixHashes: hashes, maxThrough: 4 }))?.through).toBe(3);
  });

  it('makes the index again from the newer value when another instance wrote between the read and the write', async () => {
    const inner = memoryStateStore();
    const other = branchHashes('other', 4);
    let interfered = false;
    const store: StateStore = {
      get: (key) => inner.get(key),
      set: (key, value, options) => inner.set(key, value, options),
      compareAndSet: async (key, expected, value, options) => {
        if (!interfered) {
          interfered = true;
          // another instance's save lands first
          await new StateRecords(inner, undefined).save({ scope: SCOPE, anchor: 'a', record: recordOf(other, 2) });
        }
        return inner.compareAndSet(key, expected, value, options);
      },
    };
    const mine = branchHashes('mine', 4);
    await new StateRecords(store, undefined).save({ scope: SCOPE, anchor: 'a', record: recordOf(mine, 3) });
    const fresh = new StateRecords(inner, undefined);
    expect((await fresh.find({ scope: SCOPE, anchor: 'a', prefixHashes: mine, maxThrough: 4 }))?.through).toBe(3);
    expect((await fresh.find({ scope: SCOPE, anchor: 'a', prefixHashes: other, maxThrough: 4 }))?.through).toBe(2);
  });
});
