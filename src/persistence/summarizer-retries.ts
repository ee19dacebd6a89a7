import { z } from 'zod';
import { hashString } from '../counting/hash.js';
import { STATE_FORMAT_VERSION, type StoreScope, scopePrefix } from './state-records.js';
import type { StateStore } from './state-store.js';

const RetrySchema = z.object({ version: z.literal(STATE_FORMAT_VERSION), from: z.number().int().nonnegative() });

/**
 * When a conversation's summarizer runs again after it failed or wrote a state too large to keep: the message count
 * from which it is tried again, stored beside the records so that every instance sharing the store waits alike (a new
 * instance that did not wait would fold where the others drop, a different prompt and a summarizer call more).
 */
export class SummarizerRetries {
  constructor(
    private readonly store: StateStore,
    private readonly ttlMs: number | undefined,
  ) {}

  private key(scope: StoreScope, conversation: string): string {
    return `${scopePrefix(...scope)}retry:${hashString(conversation)}`;
  }

  /** The stored message count from which the summarizer is tried again, undefined when none (or unreadable). */
  async find(scope: StoreScope, conversation: string): Promise<number | undefined> {
    const parsed = RetrySchema.safeParse(await this.store.get(this.key(scope, conversation)));
    return parsed.success ? parsed.data.from : undefined;
  }

  /** Stores the message count from which the summarizer is tried again. */
  async save(scope: StoreScope, conversation: string, from: number): Promise<void> {
    const options = this.ttlMs ? { ttlMs: this.ttlMs } : undefined;
    await this.store.set(this.key(scope, conversation), { version: STATE_FORMAT_VERSION, from }, options);
  }
}
