/**
 * `context-compression/stores/langgraph`: the state in a LangGraph `BaseStore` (`InMemoryStore`, `PostgresStore`,
 * the platform's store, ...). Imports nothing of LangGraph: pass the store your graph uses.
 */
import type { ClosableStateStore, StateStoreSetOptions } from '../persistence/state-store.js';

/**
 * The part of a LangGraph `BaseStore` (`InMemoryStore`, `PostgresStore`, the platform's store, ...) the store uses.
 * Namespaces are mutable arrays, as `BaseStore` declares them; the store passes a fresh copy on every call.
 */
export interface LangGraphBaseStoreLike {
  get(namespace: string[], key: string): Promise<{ readonly value: Record<string, unknown> } | null>;
  put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[]): Promise<void>;
  delete(namespace: string[], key: string): Promise<void>;
  search(
    namespacePrefix: string[],
    options?: { limit?: number; offset?: number },
  ): Promise<readonly { readonly key: string; readonly namespace: readonly string[] }[]>;
}

/** Options of the LangGraph store. */
export interface LangGraphStoreOptions {
  /**
   * The LangGraph namespace the records are kept in: labels are non-empty and hold no `.`, `:` or NUL, and the first
   * is not `langgraph` (what LangGraph's stores accept).
   * @default ['context-compression']
   */
  readonly namespace?: readonly string[];
  /** Milliseconds since the epoch, for TTLs; injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** Default namespace of the LangGraph store. */
export const DEFAULT_LANGGRAPH_STORE_NAMESPACE: readonly string[] = Object.freeze(['context-compression']);

/** Items listed per `search` page by `deletePrefix`. */
const PAGE = 100;

/**
 * What the store writes under a key: the value as JSON text and when it expires (ms since the epoch), if it does.
 * JSON text, not the value itself: it reads back byte for byte from any backend, `jsonb` too (`JSON.stringify`
 * escapes control characters and lone surrogates, so `v` holds no NUL for Postgres to refuse).
 */
interface Entry {
  readonly v: string;
  readonly e?: number;
}

const isEntry = (value: unknown): value is Entry =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { v?: unknown }).v === 'string' &&
  ((value as { e?: unknown }).e === undefined || Number.isFinite((value as { e?: unknown }).e));

/** The namespace option checked and copied, or a TypeError naming what LangGraph would refuse. */
function namespaceOf(namespace: unknown): readonly string[] {
  if (!Array.isArray(namespace) || namespace.length === 0) {
    throw new TypeError(
      "langgraphStore: `namespace` must be a non-empty array of strings, e.g. ['context-compression']",
    );
  }
  for (const label of namespace) {
    if (typeof label !== 'string' || label === '' || /[.:\0]/u.test(label)) {
      throw new TypeError(
        `langgraphStore: namespace label ${JSON.stringify(label)} is not one LangGraph accepts (a non-empty string without '.', ':' or NUL)`,
      );
    }
  }
  if (namespace[0] === 'langgraph')
    throw new TypeError("langgraphStore: LangGraph reserves the root label 'langgraph'");
  return Object.freeze([...namespace]);
}

/**
 * A state store over a LangGraph `BaseStore` the caller already runs (the `store` of `graph.compile({ store })`):
 * the state lives next to the graph's memories, in one namespace of its own. Imports nothing of LangGraph.
 *
 * Records are items of `namespace` with the state's key as item key, unchanged (keys are free strings in LangGraph,
 * and this package's are ASCII hashes). Their value is `{ v, e }`: the record as JSON text and its expiry, checked on
 * read (an expired item reads as absent, and is removed), since `BaseStore` has no TTL of its own. Items are written
 * with `index: false`, so a store with semantic search never embeds them. `deletePrefix` pages through the namespace
 * with `search` (100 at a time), then deletes the matching keys one by one; items of sub-namespaces are left alone.
 * There is no `setIfAbsent`: `BaseStore` has no atomic write, so several instances sharing it each summarize on their
 * own. `close()` does nothing: the store is the caller's to stop.
 */
export function langgraphStore(
  store: LangGraphBaseStoreLike,
  { namespace = DEFAULT_LANGGRAPH_STORE_NAMESPACE, now = Date.now }: LangGraphStoreOptions = {},
): ClosableStateStore {
  if (
    !store ||
    typeof store.get !== 'function' ||
    typeof store.put !== 'function' ||
    typeof store.delete !== 'function' ||
    typeof store.search !== 'function'
  ) {
    throw new TypeError(
      'langgraphStore: pass a LangGraph BaseStore (get, put, delete, search), e.g. new InMemoryStore()',
    );
  }
  const labels = namespaceOf(namespace);
  const ns = () => [...labels];
  const inNamespace = (itemNamespace: readonly string[]) =>
    itemNamespace.length === labels.length && itemNamespace.every((label, index) => label === labels[index]);

  return {
    async get(key) {
      const item = await store.get(ns(), key);
      if (item === null || item === undefined) return undefined;
      const entry = item.value;
      if (!isEntry(entry)) throw new TypeError(`langgraphStore: the value of ${key} was not written by this store`);
      if (entry.e !== undefined && entry.e <= now()) {
        await store.delete(ns(), key);
        return undefined;
      }
      try {
        return JSON.parse(entry.v);
      } catch (error) {
        throw new TypeError(`langgraphStore: the value of ${key} is not valid JSON`, { cause: error });
      }
    },
    async set(key: string, value: unknown, options?: StateStoreSetOptions) {
      const v = JSON.stringify(value);
      if (typeof v !== 'string') throw new TypeError(`langgraphStore: the value of ${key} is not JSON-serializable`);
      const ttl = options?.ttlMs;
      await store.put(ns(), key, ttl && ttl > 0 ? { v, e: now() + ttl } : { v }, false);
    },
    async deletePrefix(prefix) {
      // every page first, then the deletions: deleting while paging would shift the offsets
      const keys = new Set<string>();
      for (let offset = 0; ; offset += PAGE) {
        const page = await store.search(ns(), { limit: PAGE, offset });
        for (const item of page) if (inNamespace(item.namespace) && item.key.startsWith(prefix)) keys.add(item.key);
        if (page.length < PAGE) break;
      }
      for (const key of keys) await store.delete(ns(), key);
      return keys.size;
    },
    async delete(key) {
      await store.delete(ns(), key);
    },
    async close() {},
  };
}

// the store contract, for code that takes this store as a StateStore
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../persistence/state-store.js';
