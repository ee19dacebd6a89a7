import { withTimeout } from '../counting/with-timeout.js';
import { StoreError } from '../errors.js';
import type { StateStore } from './state-store.js';

/** Milliseconds a store's get or set may take before the call goes on without it. */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000;

/** After a store timed out, it is left alone for this many timeouts (at least 5 s), then tried again. */
const REST_AFTER_TIMEOUT = 5;
const MIN_REST_MS = 5_000;

/**
 * The store as the engine uses it: a get that throws or does not settle within `timeoutMs` reads as absent, a set
 * that does is given up, and each failure goes to `onFailure`, so a store that is down or slow costs the user's call a
 * bounded wait and a recomputed compression, never the call itself. After a timeout the store is left alone for a
 * while (every operation reads as absent at once), so one call waits for it once, not once per operation.
 */
export function guardedStore(
  store: StateStore,
  timeoutMs: number,
  onFailure: (error: StoreError) => void,
  now: () => number = Date.now,
): StateStore {
  let restingUntil = 0;
  const within = async <T>(operation: 'get' | 'set', work: () => Promise<T>): Promise<T | undefined> => {
    if (now() < restingUntil) return undefined;
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
      return undefined;
    }
  };
  return {
    get: (key) => within('get', () => store.get(key)),
    set: async (key, value, options) => {
      await within('set', () => store.set(key, value, options));
    },
  };
}
