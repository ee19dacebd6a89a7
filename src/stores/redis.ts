/**
 * `context-compression/stores/redis`: the state in Redis, shared by every instance of a service. Needs `redis`
 * (node-redis v5), an optional peer dependency loaded only by this store.
 */
export { type RedisStoreClient, type RedisStoreOptions, redisStore } from '../store/redis-store.js';
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../store/state-store.js';
