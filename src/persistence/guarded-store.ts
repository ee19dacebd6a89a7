import { withTimeout } from '../counting/with-timeout.js';
import { StoreError } from '../errors.js';
import type { StateStore } from './state-store.js';

/**
 * What a guarded get returns when the store could not be read (it threw, timed out or is resting): absent for the
 * call, but not "known to be absent", so nothing is written over a value that may still be there (an index).
 */
export const UNREAD: unique symbol = Symbol('context-compression.store-unread');

/** Milliseconds a store's get or set may take before the call goes on without it. */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000;

/** After a store timed out, it is left alone for this many timeouts (at least 5 s), then tried again. */
const REST_AFTER_TIMEOUT = 5;
const MIN_REST_MS = 5_000;

/**
 * The store as the engine uses it: a get that throws or does not settle within `timeoutMs` reads as `UNREAD`, a set
 * that does is given up, and each failure goes to `onFailure`, so a store that is down or slow costs the user's call a
 * bounded wait and a recomputed compression, never the call itself. After a timeout the store is left alone for a
 * while (every get reads as `UNREAD` at once), so one call waits for it once, not once per operation.
 */
export function guardedStore(
  store: StateStore,
  timeoutMs: number,
  onFailure: (error: StoreError) => void,
  now: () => number = Date.now,
): StateStore {
  let restingUntil = 0;
  const within = async <T>(operation: StoreError['operation'], work: () => Promise<T>): Promise<T | typeof UNREAD> => {
    if (now() < restingUntil) return UNREAD;
    try {
      return await withTimeout(
        Promise.resolve().then(work),
        timeoutMs,
        () => new StoreError({ operation, reason: 'timeout' }),
      );
    } catch (error) {
      const failure = StoreError.isInstance(error)
        ? error
        : new StoreError({ operation, reason: 'threw', cause: error });
      if (failure.reason === 'timeout') restingUntil = now() + Math.max(MIN_REST_MS, timeoutMs * REST_AFTER_TIMEOUT);
      onFailure(failure);
      return UNREAD;
    }
  };
  const guarded: StateStore = {
    get: (key) => within('get', () => store.get(key)),
    set: async (key, value, options) => {
      await within('set', () => store.set(key, value, options));
    },
  };
  // a lease the store could not be asked about reads as taken by this call (UNREAD is not false): availability
  // first, at the price of a summary another instance may make too
  const { setIfAbsent, delete: remove } = store;
  if (setIfAbsent && remove) {
    guarded.setIfAbsent = async (key, value, options) =>
      (await within('set', () => setIfAbsent.call(store, key, value, options))) !== false;
    guarded.delete = async (key) => {
      await within('set', () => remove.call(store, key));
    };
  }
  // a compare-and-set that failed is given up as a failed set is (it reads as done): trying again would wait on a
  // failing store once more
  const { compareAndSet } = store;
  if (compareAndSet) {
    guarded.compareAndSet = async (key, expected, value, options) =>
      (await within('set', () => compareAndSet.call(store, key, expected, value, options))) !== false;
  }
  return guarded;
}
