import { z } from 'zod';
import { hashString } from './hash.js';
import { SessionStateSchema } from './session-state.js';
import type { StateStore } from './state-store.js';

/** Version of the stored record format; part of every key. */
export const STATE_FORMAT_VERSION = 1;

const StateRecordSchema = z.object({
  version: z.literal(STATE_FORMAT_VERSION),
  /** How many leading messages (system excluded) the state covers. */
  coveredCount: z.number().int().nonnegative(),
  /** Hash of those messages, checked again on load. */
  prefixHash: z.string(),
  state: SessionStateSchema,
  /** Messages dropped without being summarized (a failed summarizer over the hard limit). */
  droppedCount: z.number().int().nonnegative(),
});

/** What the store keeps for one compression point. */
export type StateRecord = z.infer<typeof StateRecordSchema>;

const IndexSchema = z.array(z.object({ coveredCount: z.number().int(), prefixHash: z.string() }));

/** Cut points remembered per conversation anchor. */
export const MAX_INDEXED_CUTS = 64;

/**
 * Content-addressed records: a state covering the first k messages lives under a hash of those k messages. An
 * index per conversation (keyed by its first message) lists the known cut points, so a call finds the deepest
 * state whose messages still match in two reads, whatever server instance wrote it.
 */
export class StateRecords {
  constructor(
    private readonly store: StateStore,
    private readonly ttlMs: number | undefined,
  ) {}

  private recordKey(namespace: string, coveredCount: number, prefixHash: string): string {
    return `cc:${STATE_FORMAT_VERSION}:${hashString(namespace)}:state:${coveredCount}:${prefixHash}`;
  }

  private indexKey(namespace: string, anchor: string): string {
    return `cc:${STATE_FORMAT_VERSION}:${hashString(namespace)}:index:${anchor}`;
  }

  /** The deepest record whose prefix matches, among cuts before `maxCovered`. */
  async find({
    namespace,
    anchor,
    prefixHashes,
    maxCovered,
  }: {
    namespace: string;
    anchor: string;
    prefixHashes: readonly number[];
    maxCovered: number;
  }): Promise<StateRecord | undefined> {
    const index = IndexSchema.safeParse(await this.store.get(this.indexKey(namespace, anchor)));
    if (!index.success) return undefined;
    const candidates = index.data
      .filter(
        (cut) => cut.coveredCount <= maxCovered && prefixHashes[cut.coveredCount]?.toString(36) === cut.prefixHash,
      )
      .sort((a, b) => b.coveredCount - a.coveredCount);
    for (const cut of candidates) {
      const record = StateRecordSchema.safeParse(
        await this.store.get(this.recordKey(namespace, cut.coveredCount, cut.prefixHash)),
      );
      if (record.success && record.data.prefixHash === cut.prefixHash) return record.data;
    }
    return undefined;
  }

  /** Saves a record and adds its cut to the conversation's index. */
  async save({ namespace, anchor, record }: { namespace: string; anchor: string; record: StateRecord }): Promise<void> {
    const options = this.ttlMs ? { ttlMs: this.ttlMs } : undefined;
    await this.store.set(this.recordKey(namespace, record.coveredCount, record.prefixHash), record, options);
    const indexKey = this.indexKey(namespace, anchor);
    const existing = IndexSchema.safeParse(await this.store.get(indexKey));
    const cuts = (existing.success ? existing.data : []).filter(
      (cut) => !(cut.coveredCount === record.coveredCount && cut.prefixHash === record.prefixHash),
    );
    cuts.push({ coveredCount: record.coveredCount, prefixHash: record.prefixHash });
    await this.store.set(indexKey, cuts.slice(-MAX_INDEXED_CUTS), options);
  }
}
