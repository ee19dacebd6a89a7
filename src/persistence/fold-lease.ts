import { z } from 'zod';
import { hashString } from '../counting/hash.js';
import { type SessionState, SessionStateSchema } from '../session-state/session-state.js';
import { UNREAD } from './guarded-store.js';
import { STATE_FORMAT_VERSION, type StoreScope, scopePrefix } from './state-records.js';
import type { StateStore } from './state-store.js';

/**
 * How instances sharing a store agree on who summarizes a fold: the first to write the fold's lease key
 * (`setIfAbsent`) runs the summarizer, stores the state it made under the fold's result key and gives the lease up;
 * the others read the result key until it appears or their wait is over. A lease says until when it holds (and the
 * store is asked to forget it then), so a crashed holder blocks no one for long, even in a store that keeps no TTL.
 */
export interface FoldLease {
  /** The (guarded) store, with its atomic write. */
  readonly store: Required<Pick<StateStore, 'get' | 'set' | 'setIfAbsent' | 'delete'>>;
  /** Milliseconds an instance waits for the state another one is making; then its call goes on without it. */
  readonly waitMs: number;
  /** Milliseconds between two reads of the result while waiting. */
  readonly pollMs: number;
  /** Milliseconds a lease holds: all a fold may take (summarizer, embedder, store writes) and a margin. */
  readonly leaseMs: number;
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

const LeaseSchema = z.object({ owner: z.string(), until: z.number() });

/** A lease value: who holds it and until when (epoch milliseconds). */
export type LeaseValue = z.infer<typeof LeaseSchema>;

export function newLease(leaseMs: number, now = Date.now()): LeaseValue {
  return { owner: globalThis.crypto.randomUUID(), until: now + leaseMs };
}

/**
 * What the lease key holds: `free` (nothing, or a lease past its time by more than the margin, or a value that is not
 * a lease), `held` (another's lease), `unread` (the store could not be read).
 */
export function leaseState(value: unknown, now = Date.now()): 'free' | 'held' | 'unread' {
  if (value === UNREAD) return 'unread';
  if (value === undefined || value === null) return 'free';
  const lease = LeaseSchema.safeParse(value);
  return lease.success && lease.data.until + FOLD_LEASE_MARGIN_MS > now ? 'held' : 'free';
}

/** Whether a stored value is this lease (same owner). */
export function isLease(value: unknown, lease: LeaseValue): boolean {
  return LeaseSchema.safeParse(value).data?.owner === lease.owner;
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
  option: { waitMs: number } | false,
  times: { stateTtlMs: number; summarizerTimeoutMs: number; embedderTimeoutMs: number; storeTimeoutMs: number },
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
    waitMs: option.waitMs,
    pollMs: FOLD_LEASE_POLL_MS,
    // a fold: the summarizer, merging quotes by embeddings, the result's write; a margin for the clock and the rest
    leaseMs: times.summarizerTimeoutMs + times.embedderTimeoutMs + 2 * times.storeTimeoutMs + FOLD_LEASE_MARGIN_MS,
    resultTtlMs: Math.min(times.stateTtlMs, FOLD_RESULT_TTL_MS),
  };
}
