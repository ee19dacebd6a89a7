/**
 * `context-compression/stores/redis`: the state in Redis, shared by every instance of a service. Needs `redis`
 * (node-redis v5), an optional peer dependency loaded only by this store.
 */
import type { ClosableStateStore, StateStoreSetOptions } from '../persistence/state-store.js';
import { lazyConnection, parseStoredText } from './store-connection.js';

/**
 * The part of a node-redis client (`redis` v5, `createClient()`) the store uses. A client the caller made is used as
 * it is (connected or not) and left open by `close()`; one made from `url` is the store's own.
 */
export interface RedisStoreClient {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  get(key: string): Promise<string | null | unknown>;
  set(key: string, value: string, options?: { PX?: number; NX?: boolean }): Promise<unknown>;
  scanIterator(options: { MATCH: string; COUNT?: number }): AsyncIterable<string | string[]>;
  unlink(keys: string | string[]): Promise<number>;
  /** Runs a Lua script (what `compareAndSet` needs: a client without it gives a store without `compareAndSet`). */
  eval?(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}

/** Options of `redisStore`: a node-redis client, or a URL to make one from. */
export type RedisStoreOptions =
  | { readonly client: RedisStoreClient; readonly url?: undefined }
  | { readonly url: string; readonly client?: undefined };

/**
 * Compare-and-set in one script (Redis runs a script atomically): ARGV[1] '1' when a value is expected, ARGV[2] its
 * text, ARGV[3] the new text, ARGV[4] the TTL in milliseconds ('' for none).
 */
const COMPARE_AND_SET = `local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then return 0 end
if ARGV[4] == '' then redis.call('SET', KEYS[1], ARGV[3]) else redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4]) end
return 1`;

/** Characters with a meaning in a Redis `MATCH` pattern, escaped to match themselves. */
const GLOB = /[*?[\]\\^-]/g;

/**
 * A state store in Redis (node-redis, an optional peer dependency: `npm install redis`). Values are JSON strings
 * under the engine's keys, with the write's TTL as `PX`; `deletePrefix` scans the keys with the prefix and unlinks
 * them. Keys are hashes of content and namespaces (`cc:3:...`): several engines and services can share a database.
 * `setIfAbsent` is `SET NX`; `compareAndSet` a Lua script (`EVAL`), so concurrent writers of an index lose no entry.
 */
export function redisStore(options: RedisStoreOptions): ClosableStateStore {
  if (!options || (options.client === undefined && typeof options.url !== 'string')) {
    throw new TypeError('redisStore: pass { client } (a node-redis client) or { url } ("redis://host:6379")');
  }
  const own = options.client === undefined;
  const connection = lazyConnection(async () => {
    let redis: RedisStoreClient;
    if (options.client) redis = options.client;
    else {
      // commands fail at once while the connection is down (rather than waiting in a queue to run after it is back,
      // when the engine has given them up and later writes may have landed)
      const created = (await import('redis')).createClient({ url: options.url, disableOfflineQueue: true });
      // a client reports a lost connection as an 'error' event, which would end the process unheard; the commands that
      // fail meanwhile reach the engine (reported as StoreError), and the client reconnects on its own
      created.on('error', () => {});
      redis = created;
    }
    if (!redis.isOpen) await redis.connect();
    return redis;
  });
  const store: ClosableStateStore = {
    async get(key) {
      return parseStoredText('redisStore', key, await (await connection.get()).get(key));
    },
    async set(key: string, value: unknown, setOptions?: StateStoreSetOptions) {
      const ttl = setOptions?.ttlMs;
      await (await connection.get()).set(
        key,
        JSON.stringify(value),
        ttl && ttl > 0 ? { PX: Math.ceil(ttl) } : undefined,
      );
    },
    async setIfAbsent(key: string, value: unknown, setOptions?: StateStoreSetOptions) {
      const ttl = setOptions?.ttlMs;
      const reply = await (await connection.get()).set(key, JSON.stringify(value), {
        NX: true,
        ...(ttl && ttl > 0 ? { PX: Math.ceil(ttl) } : {}),
      });
      return reply === 'OK';
    },
    async delete(key) {
      await (await connection.get()).unlink(key);
    },
    async deletePrefix(prefix) {
      const redis = await connection.get();
      let deleted = 0;
      for await (const batch of redis.scanIterator({ MATCH: `${prefix.replace(GLOB, '\\$&')}*`, COUNT: 500 })) {
        const keys = Array.isArray(batch) ? batch : [batch];
        if (keys.length > 0) deleted += await redis.unlink(keys);
      }
      return deleted;
    },
    async close() {
      if (!own) return;
      const redis = await connection.take();
      if (redis?.isOpen) await (redis.close ?? redis.quit)?.call(redis);
    },
  };
  if (options.client && typeof options.client.eval !== 'function') return store;
  store.compareAndSet = async (key, expected, value, setOptions) => {
    const ttl = setOptions?.ttlMs;
    const redis = (await connection.get()) as Required<RedisStoreClient>;
    const reply = await redis.eval(COMPARE_AND_SET, {
      keys: [key],
      arguments: [
        expected === undefined ? '0' : '1',
        expected === undefined ? '' : JSON.stringify(expected),
        JSON.stringify(value),
        ttl && ttl > 0 ? String(Math.ceil(ttl)) : '',
      ],
    });
    return Number(reply) === 1;
  };
  return store;
}

// the store contract, for code that takes this store as a StateStore
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../persistence/state-store.js';
