import type { ClosableStateStore, StateStoreSetOptions } from './state-store.js';

/**
 * The part of a node-redis client (`redis` v5, `createClient()`) the store uses. A client the caller made is used as
 * it is (connected or not) and left open by `close()`; one made from `url` is the store's own.
 */
export interface RedisStoreClient {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  get(key: string): Promise<string | null | unknown>;
  set(key: string, value: string, options?: { PX?: number }): Promise<unknown>;
  scanIterator(options: { MATCH: string; COUNT?: number }): AsyncIterable<string | string[]>;
  unlink(keys: string | string[]): Promise<number>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}

/** Options of `redisStore`: a node-redis client, or a URL to make one from. */
export type RedisStoreOptions =
  | { readonly client: RedisStoreClient; readonly url?: undefined }
  | { readonly url: string; readonly client?: undefined };

/** Characters with a meaning in a Redis `MATCH` pattern, escaped to match themselves. */
const GLOB = /[*?[\]\\^-]/g;

/**
 * A state store in Redis (node-redis, an optional peer dependency: `npm install redis`). Values are JSON strings
 * under the engine's keys, with the write's TTL as `PX`; `deletePrefix` scans the keys with the prefix and unlinks
 * them. Keys are hashes of content and namespaces (`cc:3:...`): several engines and services can share a database.
 */
export function redisStore(options: RedisStoreOptions): ClosableStateStore {
  if (!options || (options.client === undefined && typeof options.url !== 'string')) {
    throw new TypeError('redisStore: pass { client } (a node-redis client) or { url } ("redis://host:6379")');
  }
  const own = options.client === undefined;
  let client: Promise<RedisStoreClient> | undefined;
  const connected = (): Promise<RedisStoreClient> => {
    client ??= (async () => {
      const redis: RedisStoreClient = options.client ?? (await import('redis')).createClient({ url: options.url });
      if (!redis.isOpen) await redis.connect();
      return redis;
    })();
    // a failed connection is tried again by the next operation
    client.catch(() => {
      client = undefined;
    });
    return client;
  };
  return {
    async get(key) {
      const text = await (await connected()).get(key);
      if (text === null || text === undefined) return undefined;
      if (typeof text !== 'string') throw new TypeError(`redisStore: the value of ${key} is not a string`);
      return JSON.parse(text);
    },
    async set(key: string, value: unknown, setOptions?: StateStoreSetOptions) {
      const ttl = setOptions?.ttlMs;
      await (await connected()).set(key, JSON.stringify(value), ttl && ttl > 0 ? { PX: Math.ceil(ttl) } : undefined);
    },
    async deletePrefix(prefix) {
      const redis = await connected();
      let deleted = 0;
      for await (const batch of redis.scanIterator({ MATCH: `${prefix.replace(GLOB, '\\$&')}*`, COUNT: 500 })) {
        const keys = Array.isArray(batch) ? batch : [batch];
        if (keys.length > 0) deleted += await redis.unlink(keys);
      }
      return deleted;
    },
    async close() {
      if (!own || !client) return;
      const redis = await client.catch(() => undefined);
      client = undefined;
      if (redis?.isOpen) await (redis.close ?? redis.quit)?.call(redis);
    },
  };
}
