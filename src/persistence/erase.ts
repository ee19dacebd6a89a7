import { InvalidOptionError } from '../errors.js';
import { scopePrefix } from './state-records.js';
import type { StateStore } from './state-store.js';

/** Which records `eraseStoredState` deletes. */
export interface EraseScope {
  /** The engine's `namespace` option. @default '' */
  readonly namespace?: string;
  /**
   * A per-call `namespace` (e.g. a user id) under it: only that one's records. Omitted: the records of every per-call
   * namespace of the engine namespace.
   */
  readonly callNamespace?: string;
}

/**
 * Deletes every stored record of a namespace (states, indexes, recall choices), e.g. to honour a user's right to
 * erasure, and returns how many keys went. Keys hold hashes only, so the namespace is given, not listed. Needs a store
 * with `deletePrefix` (the memory store has it). Engines keep no copy of stored records, only bounded in-process memos
 * that a request can reach only by sending the same history again.
 */
export async function eraseStoredState(store: StateStore, { namespace = '', callNamespace }: EraseScope = {}) {
  if (typeof store?.deletePrefix !== 'function') {
    throw new InvalidOptionError({
      option: 'store',
      message: 'this store cannot delete by prefix: give it a `deletePrefix(prefix)` method to erase stored state',
    });
  }
  return store.deletePrefix(scopePrefix(namespace, callNamespace));
}
