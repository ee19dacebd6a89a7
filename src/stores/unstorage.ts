/**
 * `context-compression/stores/unstorage`: the state in any unstorage driver (Upstash, Vercel KV, Cloudflare KV, fs,
 * ...). Imports nothing of unstorage: pass the `Storage` your app made.
 */

export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../store/state-store.js';
export { type UnstorageLike, unstorageStore } from '../store/unstorage-store.js';
