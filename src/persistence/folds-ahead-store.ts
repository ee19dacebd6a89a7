import { z } from 'zod';
import { hashString } from '../counting/hash.js';
import { STATE_FORMAT_VERSION, type StoreScope, scopePrefix } from './state-records.js';
import type { StateStore } from './state-store.js';

const AheadSchema = z.object({
  version: z.literal(STATE_FORMAT_VERSION),
  from: z.number().int().nonnegative(),
  fromHash: z.number(),
  cut: z.number().int().positive(),
  cutHash: z.number(),
  state: z.string(),
  /** The history length from which a call folds it: as many calls on from its planning as its summary takes. */
  readyAt: z.number().int().nonnegative(),
  /** Planned in place of a shorter fold that was due but of no use: taken when due, not replaced again. */
  replaces: z.boolean().optional(),
});

/**
 * A fold planned ahead of time, as it is stored: the span (the fold point it starts from and its cut, each with the
 * prefix hash that pins it to this history) and the hash of the state it extends. The summary itself is the fold's
 * (the fold lease keeps it under the fold's own key), so any instance that plans the same span finds it.
 */
export type FoldAhead = Omit<z.infer<typeof AheadSchema>, 'version'>;

/**
 * Where the fold a conversation planned ahead of time is kept: beside its records, so that every instance sharing the
 * store folds the same span when the prompt crosses the threshold, and takes the summary the first one made.
 */
export class FoldsAheadStore {
  constructor(
    private readonly store: StateStore,
    private readonly ttlMs: number | undefined,
  ) {}

  private key(scope: StoreScope, conversation: string): string {
    return `${scopePrefix(...scope)}ahead:${hashString(conversation)}`;
  }

  /** The fold planned for a conversation, undefined when none (or unreadable). */
  async find(scope: StoreScope, conversation: string): Promise<FoldAhead | undefined> {
    const parsed = AheadSchema.safeParse(await this.store.get(this.key(scope, conversation)));
    if (!parsed.success) return undefined;
    const { version: _version, ...ahead } = parsed.data;
    return ahead;
  }

  async save(scope: StoreScope, conversation: string, ahead: FoldAhead): Promise<void> {
    const options = this.ttlMs ? { ttlMs: this.ttlMs } : undefined;
    await this.store.set(this.key(scope, conversation), { version: STATE_FORMAT_VERSION, ...ahead }, options);
  }
}
