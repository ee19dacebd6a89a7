import { describe, expect, it } from 'vitest';
import { scopePrefix } from '../../src/persistence/state-records.js';
import type { ClosableStateStore } from '../../src/persistence/state-store.js';
import { branch, foldBranchesAtOnce, overTheNetwork } from './branch-folds.js';

/** What the shared suite needs of a store under test. */
export interface StoreUnderTest {
  readonly store: Omit<ClosableStateStore, 'close'>;
  /** Writes a value the store cannot read back (not its serialization), under `key`; none for a store that keeps objects. */
  corrupt?(key: string): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;
/** A key of its own for each test, so runs against a shared server do not meet. */
const keyOf = (name: string) => `cc-test:${process.pid}:${Date.now()}:${counter++}:${name}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The suite every store passes: round trip, TTL expiry, overwrite, a 2 MB value, unicode, concurrent writes of one key,
 * a missing key, deleting by prefix, and a corrupted value (the store rejects; the engine treats it as absent).
 * `make` is called once per test; `skip` names why the store cannot be tested here (the suite is then skipped).
 */
export function describeStoreSuite(
  name: string,
  make: () => Promise<StoreUnderTest>,
  {
    skip,
    serializes = true,
    atomic = true,
  }: {
    skip?: string | undefined;
    serializes?: boolean;
    /** Whether the store has an atomic `setIfAbsent` and `compareAndSet` (the fold lease, indexes across processes). */
    atomic?: boolean;
  } = {},
): void {
  const suite = skip ? describe.skip : describe;
  if (skip) console.log(`${name}: the shared store suite is skipped: ${skip}`);
  suite(`${name}: the shared store suite`, () => {
    const withStore = (test: (subject: StoreUnderTest) => Promise<void>) => async () => {
      const subject = await make();
      try {
        await test(subject);
      } finally {
        await subject.close();
      }
    };

    it(
      'gives back what was written, as an equal value',
      withStore(async ({ store }) => {
        const key = keyOf('round-trip');
        const value = { version: 3, masked: ['a', 'b#2'], state: { logos: ['x'], n: 1.5, nothing: null } };
        await store.set(key, value);
        expect(await store.get(key)).toEqual(value);
      }),
    );

    it(
      'forgets a value after its TTL, and keeps one without',
      withStore(async ({ store }) => {
        const short = keyOf('ttl');
        const lasting = keyOf('no-ttl');
        await store.set(short, { a: 1 }, { ttlMs: 150 });
        await store.set(lasting, { b: 2 });
        expect(await store.get(short)).toEqual({ a: 1 });
        await sleep(400);
        expect(await store.get(short)).toBeUndefined();
        expect(await store.get(lasting)).toEqual({ b: 2 });
      }),
    );

    it(
      'overwrites a value',
      withStore(async ({ store }) => {
        const key = keyOf('overwrite');
        await store.set(key, { first: true });
        await store.set(key, { second: true });
        expect(await store.get(key)).toEqual({ second: true });
      }),
    );

    it(
      'keeps a 2 MB value whole',
      withStore(async ({ store }) => {
        const key = keyOf('large');
        const value = { logos: Array.from({ length: 2_000 }, (_, index) => `${index}:${'x'.repeat(1_000)}`) };
        expect(JSON.stringify(value).length).toBeGreaterThan(2_000_000);
        await store.set(key, value);
        expect(await store.get(key)).toEqual(value);
      }),
    );

    it(
      'keeps unicode as it was written',
      withStore(async ({ store }) => {
        const key = keyOf('unicode-ключ-🔑');
        const value = { text: 'Zoë 東京 🚀 \u2028 \u0000 <session_state> "quotes" \\ back' };
        await store.set(key, value);
        expect(await store.get(key)).toEqual(value);
      }),
    );

    it(
      'ends with one of the values written concurrently to one key, whole',
      withStore(async ({ store }) => {
        const key = keyOf('concurrent');
        const values = Array.from({ length: 20 }, (_, index) => ({ writer: index, body: 'y'.repeat(10_000) }));
        await Promise.all(values.map((value) => store.set(key, value)));
        expect(values).toContainEqual(await store.get(key));
      }),
    );

    it(
      'answers undefined for a key never written',
      withStore(async ({ store }) => {
        expect(await store.get(keyOf('missing'))).toBeUndefined();
      }),
    );

    it(
      'deletes the keys with a prefix, and only those (a prefix with pattern characters too)',
      withStore(async ({ store }) => {
        const prefix = `${keyOf('prefix')}:[*?]:`;
        await store.set(`${prefix}a`, 1);
        await store.set(`${prefix}b`, 2);
        const other = `${prefix.slice(0, -1)}X`;
        await store.set(other, 3);
        expect(await store.deletePrefix(prefix)).toBe(2);
        expect(await store.get(`${prefix}a`)).toBeUndefined();
        expect(await store.get(other)).toBe(3);
      }),
    );

    it(
      'deletes one key',
      withStore(async ({ store }) => {
        const key = keyOf('delete');
        await store.set(key, { a: 1 });
        await store.delete(key);
        expect(await store.get(key)).toBeUndefined();
        await store.delete(keyOf('never-written'));
      }),
    );

    it.skipIf(!atomic)(
      'writes with setIfAbsent for exactly one of 20 concurrent callers, again after expiry or deletion',
      withStore(async ({ store }) => {
        const setIfAbsent = store.setIfAbsent;
        expect(setIfAbsent).toBeTypeOf('function');
        if (!setIfAbsent) return;
        const key = keyOf('lease');
        try {
          const won = await Promise.all(
            Array.from({ length: 20 }, (_, index) => setIfAbsent.call(store, key, { holder: index }, { ttlMs: 1_500 })),
          );
          expect(won.filter(Boolean)).toHaveLength(1);
          expect(await store.get(key)).toEqual({ holder: won.indexOf(true) });
          expect(await setIfAbsent.call(store, key, { holder: 'late' }, { ttlMs: 1_500 })).toBe(false);
          await sleep(1_700);
          expect(await setIfAbsent.call(store, key, { holder: 'after expiry' }, { ttlMs: 60_000 })).toBe(true);
          await store.delete(key);
          expect(await setIfAbsent.call(store, key, { holder: 'after delete' }, { ttlMs: 60_000 })).toBe(true);
          expect(await store.get(key)).toEqual({ holder: 'after delete' });
        } finally {
          await store.delete(key);
        }
      }),
    );

    it.skipIf(!atomic)(
      'writes with compareAndSet only over the value expected, for exactly one of 20 concurrent callers',
      withStore(async ({ store }) => {
        const compareAndSet = store.compareAndSet;
        expect(compareAndSet).toBeTypeOf('function');
        if (!compareAndSet) return;
        const key = keyOf('compare-and-set');
        expect(await compareAndSet.call(store, key, undefined, [{ through: 1 }])).toBe(true);
        expect(await compareAndSet.call(store, key, undefined, [{ through: 2 }])).toBe(false);
        const first = await store.get(key);
        expect(first).toEqual([{ through: 1 }]);
        expect(await compareAndSet.call(store, key, [{ through: 9 }], [{ through: 2 }])).toBe(false);
        const won = await Promise.all(
          Array.from({ length: 20 }, (_, index) => compareAndSet.call(store, key, first, [{ writer: index }])),
        );
        expect(won.filter(Boolean)).toHaveLength(1);
        expect(await store.get(key)).toEqual([{ writer: won.indexOf(true) }]);
        await store.set(key, { ttl: true }, { ttlMs: 150 });
        await sleep(400);
        expect(await compareAndSet.call(store, key, { ttl: true }, { late: true })).toBe(false);
        expect(await compareAndSet.call(store, key, undefined, { after: 'expiry' }, { ttlMs: 60_000 })).toBe(true);
        await store.delete(key);
      }),
    );

    const branchesFound = (separately: boolean) =>
      withStore(async ({ store }) => {
        const branches = ['a', 'b', 'c', 'd', 'e'].map((name) => branch(name));
        const namespace = keyOf('branches');
        const shared = overTheNetwork(store);
        const { folded, summarized, foldedAgain, summarizedAgain } = await foldBranchesAtOnce(
          separately ? () => overTheNetwork(store) : () => shared,
          branches,
          namespace,
        );
        expect(folded.every((count) => count > 0)).toBe(true);
        expect(summarized).toBe(branches.length);
        expect(foldedAgain).toEqual(branches.map(() => 0));
        expect(summarizedAgain).toBe(0);
        await store.deletePrefix(scopePrefix(namespace));
      });

    it(
      'keeps every branch of concurrent folds by engines sharing the store: new engines find each, summarize none',
      branchesFound(false),
    );

    // instances that share the backend only (processes, servers): what compareAndSet is for
    it.skipIf(!atomic)(
      'keeps every branch of concurrent folds by instances sharing the backend: new ones find each, summarize none',
      branchesFound(true),
    );

    it.skipIf(!serializes)(
      'rejects a value it cannot read, rather than giving back something else',
      withStore(async ({ store, corrupt }) => {
        const key = keyOf('corrupt');
        expect(corrupt).toBeDefined();
        await corrupt?.(key);
        await expect(store.get(key)).rejects.toThrow();
      }),
    );
  });
}
