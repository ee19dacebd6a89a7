import { z } from 'zod';
import { hashString } from '../counting/hash.js';
import { StoreError } from '../errors.js';
import { SessionStateSchema } from '../session-state/session-state.js';
import { UNREAD } from './guarded-store.js';
import { updateIndex } from './index-writes.js';
import type { StateStore } from './state-store.js';

/** Version of the stored record format; part of every key. */
export const STATE_FORMAT_VERSION = 3;

/** The engine's namespace (the `namespace` option) and the call's (a per-call `namespace`), '' when not given. */
export type StoreScope = readonly [engine: string, call: string];

/**
 * The key prefix of every record of a scope: `cc:<version>:<engine namespace hash>:` for all of an engine namespace,
 * followed by `<call namespace hash>:` for one per-call namespace in it. Keys hold hashes only, never message text
 * or the namespace itself.
 */
export function scopePrefix(engine: string, call?: string): string {
  const base = `cc:${STATE_FORMAT_VERSION}:${hashString(engine)}:`;
  return call === undefined ? base : `${base}${hashString(call)}:`;
}

const StateRecordSchema = z.object({
  version: z.literal(STATE_FORMAT_VERSION),
  /** The record speaks of the first `through` messages (system excluded): its key is their hash. */
  through: z.number().int().nonnegative(),
  prefixHash: z.string(),
  /** How many leading messages left the prompt: folded into the state, or dropped. */
  coveredCount: z.number().int().nonnegative(),
  state: SessionStateSchema.optional(),
  /** Messages dropped without being summarized (a failed summarizer over the hard limit). */
  droppedCount: z.number().int().nonnegative(),
  /** Keys of the masked tool results (the call id, `#n` added for repeated ids), in the order they were masked. */
  masked: z.array(z.string()),
  /** Reasons of masks that were stale rather than old, by key. */
  maskReasons: z.record(z.string(), z.string()).optional(),
  /**
   * Recall blocks kept in view for earlier user messages (a tool loop after them): the index of the user message each
   * precedes and the recalled chunk ids. The latest user message's choice is stored on its own (`RecallChoice`).
   */
  recalls: z.array(z.tuple([z.number().int().nonnegative(), z.array(z.string())])).optional(),
  /**
   * A drop made because the summarizer failed (or was resting after a failure): the prompt the last call sent, which
   * later calls send again (the cached prefix holds) until a fold summarizes those messages. Never a point a fold
   * starts from: `coveredCount` and `state` stay where the last summary left them, so nothing is lost for good.
   */
  provisional: z
    .object({
      coveredCount: z.number().int().nonnegative(),
      state: SessionStateSchema,
      droppedCount: z.number().int().nonnegative(),
    })
    .optional(),
});

const RecallChoiceSchema = z.object({ version: z.literal(STATE_FORMAT_VERSION), items: z.array(z.string()) });

/** What the store keeps for one compression point: the fold, the state and the masked results. */
export type StateRecord = z.infer<typeof StateRecordSchema>;

/** A drop a failed summary forced, kept apart from the record's lasting point (`StateRecord.provisional`). */
export type ProvisionalDrop = NonNullable<StateRecord['provisional']>;

const IndexSchema = z.array(z.object({ through: z.number().int(), prefixHash: z.string() }));

/** Compression points remembered per conversation anchor. */
export const MAX_INDEXED_CUTS = 64;

/**
 * Content-addressed records: a record about the first k messages lives under a hash of those k messages. An index
 * per conversation (keyed by its first message) lists the known points, so a call finds the deepest record whose
 * messages still match in two reads, whatever server instance wrote it.
 */
export class StateRecords {
  /**
   * Records and indexes validated before, by the object the store returned: a store that hands back the same object
   * (the memory store) is validated once per value, not on every call. A store must not change a value it returned
   * in place (the memory store never does; stores that serialize return new objects).
   */
  private readonly validated = new WeakMap<object, unknown>();

  constructor(
    private readonly store: StateStore,
    private readonly ttlMs: number | undefined,
    /** Told of a stored value that is not a record this package wrote (it is then read as absent). */
    private readonly onInvalid: (error: StoreError) => void = () => {},
    /** The store object index writes are queued by: the caller's, which every engine of the process may share. */
    private readonly owner: object = store,
  ) {}

  private recordKey(scope: StoreScope, through: number, prefixHash: string): string {
    return `${scopePrefix(...scope)}state:${through}:${prefixHash}`;
  }

  private recallKey(scope: StoreScope, at: number, prefixHash: number): string {
    return `${scopePrefix(...scope)}recall:${at}:${prefixHash.toString(36)}`;
  }

  /**
   * The recall choices stored for user messages, by index: `prefixHashes` are the call's, so a choice is found only
   * for the same user message after the same history. Choices live under their own keys, outside the index, so the
   * many branches of a conversation (every regenerated or edited last message) never push its fold records out.
   */
  async findRecalls(
    scope: StoreScope,
    userIndexes: readonly number[],
    prefixHashes: readonly number[],
  ): Promise<Map<number, string[]>> {
    const found = new Map<number, string[]>();
    for (const at of userIndexes) {
      const key = this.recallKey(scope, at, prefixHashes[at + 1] as number);
      const choice = this.parse(RecallChoiceSchema, await this.store.get(key));
      if (choice) found.set(at, choice.items);
    }
    return found;
  }

  /** Saves the recall choice made for the user message at `at`. */
  async saveRecall(scope: StoreScope, at: number, prefixHashes: readonly number[], items: readonly string[]) {
    const options = this.ttlMs ? { ttlMs: this.ttlMs } : undefined;
    const value = { version: STATE_FORMAT_VERSION, items: [...items] };
    await this.store.set(this.recallKey(scope, at, prefixHashes[at + 1] as number), value, options);
  }

  private indexKey(scope: StoreScope, anchor: string): string {
    return `${scopePrefix(...scope)}index:${anchor}`;
  }

  /**
   * The record written last among those whose prefix matches the current messages (about at most `maxThrough` of them)
   * that leaves a message to send (a record a longer history made may cover all of a shorter resend). Along one history
   * records are written deeper and deeper, so this is the deepest; a record written for a shorter resend of the same
   * messages comes after an older, deeper one, and the calls that continue the resend continue its prompt.
   */
  async find({
    scope,
    anchor,
    prefixHashes,
    maxThrough,
  }: {
    scope: StoreScope;
    anchor: string;
    prefixHashes: readonly number[];
    maxThrough: number;
  }): Promise<StateRecord | undefined> {
    const index = this.parse(IndexSchema, await this.store.get(this.indexKey(scope, anchor)));
    if (!index) return undefined;
    // the index lists records in the order they were written, the last written last
    const candidates = index
      .filter((cut) => cut.through <= maxThrough && prefixHashes[cut.through]?.toString(36) === cut.prefixHash)
      .reverse();
    for (const cut of candidates) {
      const record = this.parse(
        StateRecordSchema,
        await this.store.get(this.recordKey(scope, cut.through, cut.prefixHash)),
      );
      if (record && record.prefixHash === cut.prefixHash && record.coveredCount < maxThrough) return record;
    }
    return undefined;
  }

  /** Saves a record and adds it to the conversation's index. */
  async save({ scope, anchor, record }: { scope: StoreScope; anchor: string; record: StateRecord }): Promise<void> {
    const options = this.ttlMs ? { ttlMs: this.ttlMs } : undefined;
    await this.store.set(this.recordKey(scope, record.through, record.prefixHash), record, options);
    await updateIndex({
      store: this.store,
      owner: this.owner,
      key: this.indexKey(scope, anchor),
      options,
      change: (stored) => {
        const cuts = (this.parse(IndexSchema, stored) ?? []).filter(
          (cut) => !(cut.through === record.through && cut.prefixHash === record.prefixHash),
        );
        cuts.push({ through: record.through, prefixHash: record.prefixHash });
        return cuts.slice(-MAX_INDEXED_CUTS);
      },
    });
  }

  /**
   * The value parsed by a schema, undefined when there is none or it does not fit (then reported); remembered per
   * stored object.
   */
  private parse<T>(schema: z.ZodType<T>, value: unknown): T | undefined {
    if (value === undefined || value === null || value === UNREAD) return undefined;
    if (typeof value !== 'object') {
      this.invalid(
        typeof value === 'string'
          ? 'the store returned a string: a get must return the value that was set (parse what you stringified)'
          : `the store returned a ${typeof value}, not a record`,
      );
      return undefined;
    }
    if (this.validated.has(value)) return this.validated.get(value) as T | undefined;
    const parsed = schema.safeParse(value);
    // shared by every call that finds it: frozen, so a summarizer that changes `previous` cannot change later calls
    const result = parsed.success ? deepFreeze(parsed.data) : undefined;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.invalid(`not a record of this format (${issue?.path.join('.') || 'value'}: ${issue?.message})`);
    }
    this.validated.set(value, result);
    return result;
  }

  private invalid(detail: string): void {
    this.onInvalid(new StoreError({ operation: 'get', reason: 'invalid-record', detail }));
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
