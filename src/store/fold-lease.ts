import { z } from 'zod';
import { hashString } from '../counting/hash.js';
import { type SessionState, SessionStateSchema } from '../session-state/session-state.js';
import { UNREAD } from './guarded-store.js';
import { STATE_FORMAT_VERSION, type StoreScope, scopePrefix } from './state-records.js';
import type { StateStore } from './state-store.js';

/**
 * How instances sharing a store agree on who summarizes a fold: the first to write the fold's lease key
 * (`setIfAbsent`, with an expiry so a crashed holder blocks no one for long) runs the summarizer and stores the state
 * it made under the fold's result key; the others read that key until it appears or their wait is over.
 */
export interface FoldLease {
  /** The (guarded) store, with its atomic write. */
  readonly store: Required<Pick<StateStore, 'get' | 'set' | 'setIfAbsent' | 'delete'>>;
  /** Milliseconds an instance waits for the state another one is making; then its call goes on without it. */
  readonly waitMs: number;
  /** Milliseconds between two reads of the result while waiting. */
  readonly pollMs: number;
  /** A lease lasts the summarizer's timeout and this much more. */
  readonly marginMs: number;
  /** Lifetime of a stored result: long enough for the calls that wait for it (later calls find the fold's record). */
  readonly resultTtlMs: number;
}

/** Default of `foldLease.waitMs`. */
export const DEFAULT_FOLD_LEASE_WAIT_MS = 3_000;
export const FOLD_LEASE_POLL_MS = 50;
export const FOLD_LEASE_MARGIN_MS = 5_000;
export const FOLD_RESULT_TTL_MS = 10 * 60_000;

/** The lease and result keys of a fold, under the call's scope (so erasing a namespace erases them), by a hash. */
export function foldLeaseKeys(scope: StoreScope, foldKey: string): { lease: string; result: string } {
  const prefix = scopePrefix(...scope);
  const id = hashString(foldKey);
  return { lease: `${prefix}lease:${id}`, result: `${prefix}fold:${id}` };
}

/** What a fold made, as another instance takes it. */
export interface SharedFold {
  readonly state: SessionState;
  /** Salience quotes the summarizer wrote that were not in the folded messages, dropped. */
  readonly rejected: number;
}

const SharedFoldSchema = z.object({
  version: z.literal(STATE_FORMAT_VERSION),
  state: SessionStateSchema,
  rejected: z.number().int().nonnegative(),
});

export function sharedFoldValue(fold: SharedFold): z.infer<typeof SharedFoldSchema> {
  return { version: STATE_FORMAT_VERSION, state: fold.state, rejected: fold.rejected };
}

/** A stored result, or undefined when there is none or it is not one (then the fold is made here). */
export function readSharedFold(value: unknown): SharedFold | undefined {
  if (value === undefined || value === null || value === UNREAD) return undefined;
  const parsed = SharedFoldSchema.safeParse(value);
  return parsed.success ? { state: parsed.data.state, rejected: parsed.data.rejected } : undefined;
}

/** The lease of an engine: with a store that can take one, unless the option turns it off. */
export function foldLease(
  store: StateStore,
  option: { waitMs?: number } | false | undefined,
  stateTtlMs: number,
): FoldLease | undefined {
  const { get, set, setIfAbsent, delete: remove } = store;
  if (option === false || !setIfAbsent || !remove) return undefined;
  return {
    store: {
      get: (key) => get.call(store, key),
      set: (key, value, options) => set.call(store, key, value, options),
      setIfAbsent: (key, value, options) => setIfAbsent.call(store, key, value, options),
      delete: (key) => remove.call(store, key),
    },
    waitMs: option?.waitMs ?? DEFAULT_FOLD_LEASE_WAIT_MS,
    pollMs: FOLD_LEASE_POLL_MS,
    marginMs: FOLD_LEASE_MARGIN_MS,
    resultTtlMs: Math.min(stateTtlMs, FOLD_RESULT_TTL_MS),
  };
}
