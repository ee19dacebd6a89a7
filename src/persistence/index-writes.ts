import { UNREAD } from './guarded-store.js';
import type { StateStore, StateStoreSetOptions } from './state-store.js';

/**
 * Index writes in progress, by the store they go to (the caller's store object, whichever engine writes) and key:
 * the engines of one process that share a store write one index one after the other.
 */
const inProgress = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Compare-and-set attempts before the index is written as it is: enough for writers that meet by chance; a store
 * whose comparison never matches (it changes the text it keeps) still gets its index.
 */
export const MAX_INDEX_ATTEMPTS = 8;

/**
 * Writes the value `change` makes of an index's stored value, so that no concurrent writer's entry is lost: in one
 * process, writes of a key to one store wait for each other; across processes, a store with `compareAndSet` writes
 * only over the value the change was made from, and the change is made again from the newer value otherwise. A
 * store without it is protected in the process only. An index that could not be read is left as it is: written
 * anew, it would lose the points it lists.
 */
export async function updateIndex({
  store,
  owner,
  key,
  change,
  options,
}: {
  /** The (guarded) store: a get that failed reads as `UNREAD`. */
  store: StateStore;
  /** The store object the writes are queued by. */
  owner: object;
  key: string;
  /** The new value, made from the stored one (never changed in place). */
  change: (stored: unknown) => unknown;
  options: StateStoreSetOptions | undefined;
}): Promise<void> {
  const write = async () => {
    for (let attempt = 1; ; attempt++) {
      const stored = await store.get(key);
      if (stored === UNREAD) return;
      const value = change(stored);
      if (!store.compareAndSet || attempt >= MAX_INDEX_ATTEMPTS) return store.set(key, value, options);
      if (await store.compareAndSet(key, stored, value, options)) return;
    }
  };
  let writes = inProgress.get(owner);
  if (!writes) {
    writes = new Map();
    inProgress.set(owner, writes);
  }
  const turn = (writes.get(key) ?? Promise.resolve()).then(write, write);
  writes.set(key, turn);
  try {
    await turn;
  } finally {
    if (writes.get(key) === turn) writes.delete(key);
  }
}
