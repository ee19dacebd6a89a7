import { LRUCache } from 'lru-cache';
import type { MessageMeasure } from './message-meter.js';

/**
 * Remembers the last prompt of each conversation (as message hashes) to report how many leading tokens a call
 * shares with the previous one: what a provider's prompt cache can hit. Bounded LRU, in memory only.
 */
export class PrefixTracker {
  private readonly last: LRUCache<string, readonly MessageMeasure[]>;

  constructor(maxConversations = 1_000) {
    this.last = new LRUCache({ max: maxConversations });
  }

  /** The previous prompt of a conversation, if this instance saw one. */
  previous(conversation: string): readonly MessageMeasure[] | undefined {
    return this.last.get(conversation);
  }

  /** Stores this prompt and returns the tokens of its longest common prefix with the previous one. */
  update(conversation: string, prompt: readonly MessageMeasure[]): number {
    return commonPrefixTokens(this.replace(conversation, prompt) ?? [], prompt);
  }

  /** Stores this prompt and returns the previous one, for a caller that counts their common prefix later, if ever. */
  replace(conversation: string, prompt: readonly MessageMeasure[]): readonly MessageMeasure[] | undefined {
    const previous = this.last.get(conversation);
    this.last.set(conversation, prompt);
    return previous;
  }
}

/** Tokens of the leading messages two prompts share byte for byte. */
export function commonPrefixTokens(previous: readonly MessageMeasure[], next: readonly MessageMeasure[]): number {
  let tokens = 0;
  for (let index = 0; index < Math.min(previous.length, next.length); index++) {
    if (previous[index]?.hash !== next[index]?.hash) break;
    tokens += next[index]?.tokens ?? 0;
  }
  return tokens;
}
