import { boundedCache } from '../bounded-cache.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { StateRecord } from '../persistence/state-records.js';

/** Conversations whose last prompt an engine remembers. */
const MAX_CONVERSATIONS = 1_000;
/** Recall blocks remembered as taken out, per conversation (the oldest forgotten first). */
const MAX_BLOCKS_LEFT = 64;

/** Where a history stood: its length and the hash of its messages (`CallFacts.prefixHashes[length]`). */
export interface HistoryMark {
  readonly length: number;
  readonly hash: number;
}

/** What this instance sent last for one conversation, to check the next call against. */
export interface SentPrompt {
  /** The history the prompt was made from. */
  readonly history: HistoryMark;
  /** Hashes of the messages sent after the system prompt, in order. */
  readonly hashes: readonly number[];
  /**
   * The point the prompt was sent at and the one its record keeps (they differ after a drop a failed summary forced);
   * undefined for a call sent as it came.
   */
  readonly decided: { readonly point: CompressionPoint; readonly lasting: CompressionPoint } | undefined;
  /** The stored record the call ended with: what the next call finds when no other instance writes in between. */
  readonly record: StateRecord | undefined;
  /**
   * The call applied its record only in part: a record a longer history made (a shorter resend) masks results the
   * shorter history keeps. The calls that continue it meet the longer history's record again: nothing is owed.
   */
  readonly partial: boolean;
  /** The recall blocks in the prompt, by identity (see `blockIdentity`). */
  readonly blocks: ReadonlySet<string>;
  /** The adapter's key of the request sent (`CompressInput.request`), when it gave one. */
  readonly request?: object | undefined;
  /** Our count of the prompt sent, the system prompt and tools included. */
  readonly tokens?: number;
  /** Blocks an earlier prompt carried and a later one took out, with the history at which each left. */
  readonly left: ReadonlyMap<string, HistoryMark>;
}

/** A recall block as the cache sees it: its user message (index and the history up to it) and what it quotes. */
export function blockIdentity(at: number, prefixHashes: readonly number[], items: readonly string[]): string {
  return `${at}:${prefixHashes[at + 1]}:${items.join(',')}`;
}

/** Whether a history continues `mark`: at least as long, with the same messages up to its length. */
export function extendsMark(prefixHashes: readonly number[], mark: HistoryMark): boolean {
  return prefixHashes.length > mark.length && prefixHashes[mark.length] === mark.hash;
}

/**
 * The last prompt this instance sent for each conversation (bounded, in memory), and the recall blocks its prompts
 * took out: what the promise checks compare the next call's prompt with.
 */
export class SentPrompts {
  private readonly last = boundedCache<string, SentPrompt>(MAX_CONVERSATIONS);

  /** The last prompt sent for a conversation, if this instance sent one. */
  previous(conversation: string): SentPrompt | undefined {
    return this.last.get(conversation);
  }

  /**
   * Remembers the prompt a call sent. When its history extends the previous call's, the blocks the previous prompt had
   * and this one has not, before messages still in the prompt, are marked as left (a shorter resend or an edit takes
   * blocks out with their messages, and so does a fold).
   */
  remember(conversation: string, sent: Omit<SentPrompt, 'left'>, prefixHashes: readonly number[]): void {
    const before = this.last.get(conversation);
    let left = before?.left ?? new Map<string, HistoryMark>();
    // a block whose message left the prompt (folded, dropped) left with it: it comes back only on another branch
    const covered = sent.decided?.point.coveredCount ?? 0;
    const gone =
      before && extendsMark(prefixHashes, before.history)
        ? [...before.blocks].filter((block) => !sent.blocks.has(block) && Number.parseInt(block, 10) >= covered)
        : [];
    if (gone.length > 0) {
      const next = new Map(left);
      for (const block of gone) next.set(block, sent.history);
      left = new Map([...next].slice(-MAX_BLOCKS_LEFT));
    }
    this.last.set(conversation, { ...sent, left });
  }
}
