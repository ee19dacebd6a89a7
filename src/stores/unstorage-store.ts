/**
 * `context-compression/stores/unstorage`: the state in any unstorage driver (Upstash, Vercel KV, Cloudflare KV, fs,
 * ...). Imports nothing of unstorage: pass the `Storage` your app made.
 */
import type { ClosableStateStore, StateStoreSetOptions } from '../persistence/state-store.js';

/** The part of an unstorage `Storage` (`createStorage({ driver })`) the store uses. */
export interface UnstorageLike {
  getItem(key: string): Promise<unknown>;
  setItem(key: string, value: unknown): Promise<void>;
  removeItem(key: string): Promise<void>;
  getKeys(base?: string): Promise<string[]>;
  dispose?(): Promise<void>;
}

/** What the store writes under a key: the value and when it expires (ms since the epoch), if it does. */
interface Entry {
  readonly v: unknown;
  readonly e?: number;
}

/**
 * A key as unstorage keeps it unchanged: unstorage cuts a key at `?`, reads `/` and `\\` as `:`, and the fs driver
 * makes each `:`-separated part a directory, so every character but letters, digits, `_`, `-` and `:` is written as
 * its percent escape (`%` too: one key, one escape). A prefix's escape is a prefix of its keys' escapes.
 */
function keyOf(key: string): string {
  return key.replace(/[^A-Za-z0-9_:-]/gu, (char) => {
    try {
      return encodeURIComponent(char).replace(
        /[!'()*~.]/g,
        (rest) => `%${rest.charCodeAt(0).toString(16).toUpperCase()}`,
      );
    } catch {
      // a lone surrogate
      return `%u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    }
  });
}

const isEntry = (value: unknown): value is Entry =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && 'v' in value;

/**
 * A state store over any unstorage `Storage` (Upstash, Vercel KV, Cloudflare KV, Netlify Blobs, fs, memory, ...: the
 * driver is the caller's). Values are written as `{ v, e }`: the record and its expiry, checked on read, because many
 * drivers keep no TTL (an expired entry reads as absent, and is removed). Keys keep their `:`-separated parts (`:`
 * separates their parts; other characters than letters, digits, `_` and `-` are percent-escaped, see `keyOf`).
 * `deletePrefix` lists the keys under the prefix and removes them one by one. Writes of one key by this store wait
 * for each other (a driver writing files in place would tear concurrent ones); unstorage has no atomic write, so the
 * store has no `setIfAbsent` (no fold lease). `close()` does nothing: the storage is the caller's to dispose.
 */
export function unstorageStore(
  storage: UnstorageLike,
  { now = Date.now }: { now?: () => number } = {},
): ClosableStateStore {
  if (!storage || typeof storage.getItem !== 'function' || typeof storage.setItem !== 'function') {
    throw new TypeError('unstorageStore: pass an unstorage Storage, as createStorage({ driver }) returns it');
  }
  // writes of one key, one after the other: a driver that writes a file in place (fs) would interleave concurrent
  // writes of one key into a torn value; across processes such a driver stays unsafe
  const writes = new Map<string, Promise<void>>();
  const inTurn = async (key: string, write: () => Promise<void>): Promise<void> => {
    const turn = (writes.get(key) ?? Promise.resolve()).then(write, write);
    writes.set(key, turn);
    try {
      await turn;
    } finally {
      if (writes.get(key) === turn) writes.delete(key);
    }
  };
  return {
    async get(key) {
      const entry = await storage.getItem(keyOf(key));
      if (entry === null || entry === undefined) return undefined;
      if (!isEntry(entry)) throw new TypeError(`unstorageStore: the value of ${key} was not written by this store`);
      if (entry.e !== undefined && entry.e <= now()) {
        await storage.removeItem(keyOf(key));
        return undefined;
      }
      return entry.v;
    },
    async set(key: string, value: unknown, options?: StateStoreSetOptions) {
      const ttl = options?.ttlMs;
      const entry = ttl && ttl > 0 ? { v: value, e: now() + ttl } : { v: value };
      await inTurn(keyOf(key), () => storage.setItem(keyOf(key), entry));
    },
    async deletePrefix(prefix) {
      // the keys under the prefix's last complete part, then those that really start with the prefix
      const escaped = keyOf(prefix);
      const base = escaped.slice(0, escaped.lastIndexOf(':') + 1);
      const keys = (await storage.getKeys(base)).filter((key) => key.startsWith(escaped));
      for (const key of keys) await storage.removeItem(key);
      return keys.length;
    },
    async delete(key) {
      await inTurn(keyOf(key), () => storage.removeItem(keyOf(key)));
    },
    async close() {},
  };
}

// the store contract, for code that takes this store as a StateStore
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../persistence/state-store.js';
