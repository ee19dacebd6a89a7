import { boundedCache } from '../bounded-cache.js';
import { parseOptions } from '../options/option-issue-error.js';
import { MemoryStoreOptionsSchema } from '../options/tool-options.js';
/** Options of one write to a store. */
export interface StateStoreSetOptions {
  /** Time to live in milliseconds; the store may forget the value after it. */
  readonly ttlMs?: number;
}

/**
 * Where compressed state is kept between calls. Values are JSON-serializable, so a store for Redis, SQLite or
 * Postgres only needs to stringify them. Keys are content hashes: any instance that sees the same history finds it.
 */
export interface StateStore {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, value: unknown, options?: StateStoreSetOptions): Promise<void>;
  /**
   * Deletes every key that starts with `prefix` and returns how many there were; what `eraseStoredState` (erasing a
   * tenant's records) needs. Optional: a store without it cannot erase by namespace.
   */
  deletePrefix?(prefix: string): Promise<number>;
  /**
   * Writes `value` under `key` only when the key holds no live value, atomically (one of many concurrent callers, in
   * any process, gets true). Optional: it is what lets several instances agree that one of them runs the summarizer
   * for a fold (a short lease); with a store without it, each instance summarizes on its own.
   */
  setIfAbsent?(key: string, value: unknown, options?: StateStoreSetOptions): Promise<boolean>;
  /** Deletes one key (a lease given up when its holder's summary failed). Optional, needed with `setIfAbsent`. */
  delete?(key: string): Promise<void>;
  /**
   * Writes `value` under `key` only when the key still holds `expected` (equal as `JSON.stringify` text; `undefined`:
   * no live value), atomically, and says whether it wrote. Optional: it is what keeps concurrent writers of one
   * conversation's index (two branches folding at once, on several instances) from losing each other's entries; a
   * store without it is protected within one process only (writes of one index by the engines of a process wait for
   * each other).
   */
  compareAndSet?(key: string, expected: unknown, value: unknown, options?: StateStoreSetOptions): Promise<boolean>;
}

/**
 * A store of this package's: get, set, deletion by prefix and one key, and a `close()` that frees what the store
 * itself opened (a pool, a connection). `setIfAbsent` and `compareAndSet` only where the backend has atomic writes.
 */
export type ClosableStateStore = Required<Pick<StateStore, 'get' | 'set' | 'deletePrefix' | 'delete'>> &
  Pick<StateStore, 'setIfAbsent' | 'compareAndSet'> & { close(): Promise<void> };

/** Options of the in-memory store. */
export interface MemoryStateStoreOptions {
  /**
   * Entries kept at the most; the least recently used go first.
   * @default 10_000
   */
  readonly maxEntries?: number;
  /** Milliseconds since an arbitrary origin, for TTLs; injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** Default bound of the in-memory store. */
export const DEFAULT_MEMORY_STORE_MAX_ENTRIES = 10_000;

/** An in-process store: a bounded LRU map with optional TTLs. The default; state is lost on restart. */
export function memoryStateStore(
  options: MemoryStateStoreOptions = {},
): Required<StateStore> & { readonly size: number; clear(): void } {
  parseOptions(MemoryStoreOptionsSchema, options, '');
  const { maxEntries = DEFAULT_MEMORY_STORE_MAX_ENTRIES, now = Date.now } = options;
  const entries = boundedCache<string, { value: unknown; expiresAt: number }>(maxEntries);
  return {
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
    },
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    async set(key, value, options) {
      entries.set(key, { value, expiresAt: options?.ttlMs ? now() + options.ttlMs : Number.POSITIVE_INFINITY });
    },
    async deletePrefix(prefix) {
      const keys = [...entries.keys()].filter((key) => key.startsWith(prefix));
      for (const key of keys) entries.delete(key);
      return keys.length;
    },
    async setIfAbsent(key, value, options) {
      const entry = entries.get(key);
      if (entry && entry.expiresAt > now()) return false;
      entries.set(key, { value, expiresAt: options?.ttlMs ? now() + options.ttlMs : Number.POSITIVE_INFINITY });
      return true;
    },
    async delete(key) {
      entries.delete(key);
    },
    // synchronous between the read and the write: atomic in the process
    async compareAndSet(key, expected, value, options) {
      const entry = entries.get(key);
      const current = entry && entry.expiresAt > now() ? entry.value : undefined;
      if (!sameJson(current, expected)) return false;
      entries.set(key, { value, expiresAt: options?.ttlMs ? now() + options.ttlMs : Number.POSITIVE_INFINITY });
      return true;
    },
  };
}

/** Whether two stored values are the same: the same object, or the same JSON text (`undefined` only as itself). */
function sameJson(current: unknown, expected: unknown): boolean {
  if (current === expected) return true;
  if (current === undefined || expected === undefined) return false;
  return JSON.stringify(current) === JSON.stringify(expected);
}
