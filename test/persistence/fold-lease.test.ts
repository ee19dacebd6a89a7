import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FOLD_LEASE_MARGIN_MS,
  FOLD_LEASE_POLL_MS,
  FOLD_RESULT_TTL_MS,
  foldLease,
  foldLeaseKeys,
  isLease,
  leaseState,
  newLease,
  readSharedFold,
  type SharedFold,
  sharedFoldValue,
} from '../../src/persistence/fold-lease.js';
import { UNREAD } from '../../src/persistence/guarded-store.js';
import { STATE_FORMAT_VERSION, scopePrefix } from '../../src/persistence/state-records.js';
import type { StateStore, StateStoreSetOptions } from '../../src/persistence/state-store.js';
import type { SessionState } from '../../src/session-state/session-state.js';

/**
 * The lease's rules on their own: keys, lease values, their state at a given time, shared results, and the lease an
 * engine takes for a store. The loop that takes, waits for and gives up a lease is FoldRunner's (private); here its
 * steps are replayed with these functions on a small in-memory store whose clock the test moves.
 */

const SCOPE = ['engine-namespace', 'call-namespace'] as const;
const LEASE_MS = 30_000;
const START = 1_700_000_000_000;

const STATE: SessionState = {
  logos: ['The cache layer lives in src/cache.ts.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'The user asked for a review of the cache layer.',
};

/** A store with `get`, `set`, `setIfAbsent` and `delete`, on a clock the test sets; TTLs kept unless `keepsTtl` is off. */
function testStore({ keepsTtl = true } = {}) {
  let now = START;
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now) entries.delete(key);
    return entries.get(key);
  };
  const write = (key: string, value: unknown, options?: StateStoreSetOptions) => {
    entries.set(key, {
      value,
      expiresAt: keepsTtl && options?.ttlMs !== undefined ? now + options.ttlMs : Number.POSITIVE_INFINITY,
    });
  };
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    keys: () => [...entries.keys()],
    async get(key: string) {
      return live(key)?.value;
    },
    async set(key: string, value: unknown, options?: StateStoreSetOptions) {
      write(key, value, options);
    },
    async setIfAbsent(key: string, value: unknown, options?: StateStoreSetOptions) {
      if (live(key)) return false;
      write(key, value, options);
      return true;
    },
    async delete(key: string) {
      entries.delete(key);
    },
  };
}

const TIMES = { stateTtlMs: 3_600_000, summarizerTimeoutMs: 20_000, embedderTimeoutMs: 5_000, storeTimeoutMs: 1_000 };

afterEach(() => {
  vi.useRealTimers();
});

describe('foldLeaseKeys', () => {
  it("puts a fold's lease and result keys under the call's scope, apart, with the same id", () => {
    const keys = foldLeaseKeys(SCOPE, 'fold:0-12');
    const prefix = scopePrefix(...SCOPE);
    expect(keys.lease.startsWith(`${prefix}lease:`)).toBe(true);
    expect(keys.result.startsWith(`${prefix}fold:`)).toBe(true);
    expect(keys.lease.slice(`${prefix}lease:`.length)).toBe(keys.result.slice(`${prefix}fold:`.length));
    expect(keys.lease).not.toBe(keys.result);
  });

  it('gives the same keys for the same fold, other keys for another fold or scope', () => {
    const keys = foldLeaseKeys(SCOPE, 'fold:0-12');
    expect(foldLeaseKeys(['engine-namespace', 'call-namespace'], 'fold:0-12')).toEqual(keys);
    expect(foldLeaseKeys(SCOPE, 'fold:0-14').lease).not.toBe(keys.lease);
    expect(foldLeaseKeys(SCOPE, 'fold:0-14').result).not.toBe(keys.result);
    expect(foldLeaseKeys(['engine-namespace', 'other-tenant'], 'fold:0-12').lease).not.toBe(keys.lease);
  });

  it('hashes the fold key: its text never appears in a store key', () => {
    const keys = foldLeaseKeys(SCOPE, 'the user said: my password is hunter2');
    expect(keys.lease).not.toContain('hunter2');
    expect(keys.result).not.toContain('hunter2');
  });
});

describe('newLease', () => {
  it('holds for leaseMs from the time given, under an owner of its own', () => {
    const first = newLease(LEASE_MS, START);
    const second = newLease(LEASE_MS, START);
    expect(first.until).toBe(START + LEASE_MS);
    expect(first.owner).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.owner).not.toBe(first.owner);
  });

  it('counts from the clock when no time is given', () => {
    vi.useFakeTimers({ now: START });
    expect(newLease(LEASE_MS).until).toBe(START + LEASE_MS);
  });
});

describe('leaseState', () => {
  it.each([
    ['nothing', undefined, 'free'],
    ['null', null, 'free'],
    ['a store that could not be read', UNREAD, 'unread'],
    ['a lease within its time', { owner: 'a', until: START + 1 }, 'held'],
    ['a lease just past its time, within the margin', { owner: 'a', until: START - FOLD_LEASE_MARGIN_MS + 1 }, 'held'],
    ['a lease past its time by the margin', { owner: 'a', until: START - FOLD_LEASE_MARGIN_MS }, 'free'],
    ['a lease long past its time', { owner: 'a', until: 0 }, 'free'],
    ['a value without a time', { owner: 'a' }, 'free'],
    ['a value with an owner that is no string', { owner: 7, until: START + 1 }, 'free'],
    ['a string', 'leased', 'free'],
  ])('reads %s as %s', (_what, value, expected) => {
    expect(leaseState(value, START)).toBe(expected);
  });

  it('reads the clock when no time is given', () => {
    vi.useFakeTimers({ now: START });
    const lease = { owner: 'a', until: START };
    expect(leaseState(lease)).toBe('held');
    vi.setSystemTime(START + FOLD_LEASE_MARGIN_MS);
    expect(leaseState(lease)).toBe('free');
  });
});

describe('isLease', () => {
  const mine = newLease(LEASE_MS, START);

  it('recognizes its own lease, renewed or not', () => {
    expect(isLease(mine, mine)).toBe(true);
    expect(isLease({ ...mine, until: START + 2 * LEASE_MS }, mine)).toBe(true);
  });

  it.each([
    ['another owner', { owner: 'someone-else', until: START + LEASE_MS }],
    ['nothing', undefined],
    ['an unread store', UNREAD],
    ['a value that is no lease', { owner: mine.owner }],
  ])('does not take %s for it', (_what, value) => {
    expect(isLease(value, mine)).toBe(false);
  });
});

describe('sharedFoldValue and readSharedFold', () => {
  const fold: SharedFold = { state: STATE, rejected: 2 };

  it('stores a fold with the format version and reads it back, also through JSON', () => {
    const value = sharedFoldValue(fold);
    expect(value).toEqual({ version: STATE_FORMAT_VERSION, state: STATE, rejected: 2 });
    expect(readSharedFold(value)).toEqual(fold);
    expect(readSharedFold(JSON.parse(JSON.stringify(value)))).toEqual(fold);
  });

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['an unread store', UNREAD],
    ['another format version', { version: STATE_FORMAT_VERSION - 1, state: STATE, rejected: 0 }],
    ['a negative count of rejected quotes', { version: STATE_FORMAT_VERSION, state: STATE, rejected: -1 }],
    ['a fractional count of rejected quotes', { version: STATE_FORMAT_VERSION, state: STATE, rejected: 0.5 }],
    ['a state that is no state', { version: STATE_FORMAT_VERSION, state: { logos: 'x' }, rejected: 0 }],
    ['a lease', { owner: 'a', until: START }],
  ])('reads %s as no result', (_what, value) => {
    expect(readSharedFold(value)).toBeUndefined();
  });
});

describe('foldLease', () => {
  it('takes a lease on a store that can write atomically, with times that cover a whole fold', () => {
    const lease = foldLease(testStore(), { waitMs: 3_000 }, TIMES);
    expect(lease).toMatchObject({
      waitMs: 3_000,
      pollMs: FOLD_LEASE_POLL_MS,
      // summarizer + embedder + two store writes + the margin
      leaseMs: 20_000 + 5_000 + 2 * 1_000 + FOLD_LEASE_MARGIN_MS,
      resultTtlMs: FOLD_RESULT_TTL_MS,
    });
  });

  it('keeps a result no longer than the state itself lives', () => {
    expect(foldLease(testStore(), { waitMs: 0 }, { ...TIMES, stateTtlMs: 60_000 })?.resultTtlMs).toBe(60_000);
  });

  it.each([
    ['the option is off', testStore(), false],
    ['the store has no setIfAbsent', { ...testStore(), setIfAbsent: undefined }, { waitMs: 3_000 }],
    ['the store has no delete', { ...testStore(), delete: undefined }, { waitMs: 3_000 }],
  ] as const)('takes no lease when %s', (_why, store, option) => {
    expect(foldLease(store as StateStore, option, TIMES)).toBeUndefined();
  });

  it("calls the store's own methods on the store (a class with private fields)", async () => {
    class ClassStore implements StateStore {
      readonly #entries = new Map<string, unknown>();
      async get(key: string) {
        return this.#entries.get(key);
      }
      async set(key: string, value: unknown) {
        this.#entries.set(key, value);
      }
      async setIfAbsent(key: string, value: unknown) {
        if (this.#entries.has(key)) return false;
        this.#entries.set(key, value);
        return true;
      }
      async delete(key: string) {
        this.#entries.delete(key);
      }
    }
    const store = new ClassStore();
    const lease = foldLease(store, { waitMs: 3_000 }, TIMES);
    expect(await lease?.store.setIfAbsent('k', 1)).toBe(true);
    expect(await lease?.store.setIfAbsent('k', 2)).toBe(false);
    await lease?.store.set('j', 3);
    expect(await store.get('k')).toBe(1);
    expect(await lease?.store.get('j')).toBe(3);
    await lease?.store.delete('k');
    expect(await store.get('k')).toBeUndefined();
  });
});

describe('the lease protocol, step by step', () => {
  const keys = foldLeaseKeys(SCOPE, 'fold:0-12');

  it('is taken once; the other instance sees it held, then reads the state the holder wrote', async () => {
    const store = testStore();
    const mine = newLease(LEASE_MS, store.now());
    expect(leaseState(await store.get(keys.lease), store.now())).toBe('free');
    expect(await store.setIfAbsent(keys.lease, mine, { ttlMs: LEASE_MS })).toBe(true);

    const theirs = newLease(LEASE_MS, store.now());
    expect(leaseState(await store.get(keys.lease), store.now())).toBe('held');
    expect(await store.setIfAbsent(keys.lease, theirs, { ttlMs: LEASE_MS })).toBe(false);
    expect(readSharedFold(await store.get(keys.result))).toBeUndefined();

    await store.set(keys.result, sharedFoldValue({ state: STATE, rejected: 1 }), { ttlMs: FOLD_RESULT_TTL_MS });
    expect(readSharedFold(await store.get(keys.result))).toEqual({ state: STATE, rejected: 1 });
  });

  it('is known to its holder only, so a holder never gives up a lease another instance took since', async () => {
    const store = testStore();
    const mine = newLease(LEASE_MS, store.now());
    await store.setIfAbsent(keys.lease, mine, { ttlMs: LEASE_MS });
    expect(isLease(await store.get(keys.lease), mine)).toBe(true);
    await store.delete(keys.lease);
    expect(leaseState(await store.get(keys.lease), store.now())).toBe('free');

    const theirs = newLease(LEASE_MS, store.now());
    await store.setIfAbsent(keys.lease, theirs, { ttlMs: LEASE_MS });
    expect(isLease(await store.get(keys.lease), mine)).toBe(false);
  });

  it('expires with its TTL in a store that keeps TTLs', async () => {
    const store = testStore();
    await store.setIfAbsent(keys.lease, newLease(LEASE_MS, store.now()), { ttlMs: LEASE_MS });
    store.advance(LEASE_MS - 1);
    expect(leaseState(await store.get(keys.lease), store.now())).toBe('held');
    store.advance(1);
    expect(await store.get(keys.lease)).toBeUndefined();
    expect(await store.setIfAbsent(keys.lease, newLease(LEASE_MS, store.now()), { ttlMs: LEASE_MS })).toBe(true);
  });

  it("expires by its own time in a store that keeps no TTL: a crashed holder's lease is removed and taken", async () => {
    const store = testStore({ keepsTtl: false });
    const crashed = newLease(LEASE_MS, store.now());
    await store.setIfAbsent(keys.lease, crashed, { ttlMs: LEASE_MS });
    store.advance(LEASE_MS + FOLD_LEASE_MARGIN_MS - 1);
    expect(leaseState(await store.get(keys.lease), store.now())).toBe('held');
    store.advance(1);
    const held = await store.get(keys.lease);
    expect(held).toEqual(crashed);
    expect(leaseState(held, store.now())).toBe('free');
    // what the fold runner does with a lease past its time: removes it, then takes the key like a free one
    const mine = newLease(LEASE_MS, store.now());
    expect(await store.setIfAbsent(keys.lease, mine, { ttlMs: LEASE_MS })).toBe(false);
    await store.delete(keys.lease);
    expect(await store.setIfAbsent(keys.lease, mine, { ttlMs: LEASE_MS })).toBe(true);
    expect(isLease(await store.get(keys.lease), crashed)).toBe(false);
  });

  it('is one per fold: a lease on one fold does not hold another', async () => {
    const store = testStore();
    const other = foldLeaseKeys(SCOPE, 'fold:0-14');
    expect(await store.setIfAbsent(keys.lease, newLease(LEASE_MS, store.now()), { ttlMs: LEASE_MS })).toBe(true);
    expect(leaseState(await store.get(other.lease), store.now())).toBe('free');
    expect(await store.setIfAbsent(other.lease, newLease(LEASE_MS, store.now()), { ttlMs: LEASE_MS })).toBe(true);
    expect(store.keys()).toEqual([keys.lease, other.lease]);
  });
});
