import { LRUCache } from 'lru-cache';
import { sameMessage } from '../transcript/same-message.js';
import type { Message } from '../transcript/transcript.js';

/**
 * The last history each conversation sent, so a call that resends it (a server parses every request anew, and the
 * AI SDK converts the prompt on every step) costs one comparison per message instead of hashing, counting and
 * analyzing everything again: messages equal to the remembered ones are replaced by them, and every memo keyed by
 * message object hits. Only the messages after the first difference are new to the engine.
 */
export class HistoryMemory {
  private readonly histories: LRUCache<string, readonly Message[]>;

  /** Bounded by conversations and by the messages remembered in all of them together. */
  constructor({ maxConversations = 1_000, maxMessages = 200_000 } = {}) {
    this.histories = new LRUCache({
      max: maxConversations,
      maxSize: maxMessages,
      sizeCalculation: (history) => Math.max(1, history.length),
    });
  }

  /**
   * The history with every message up to the first difference from the remembered one replaced by the remembered
   * object; remembers the result for the next call.
   */
  reuse(conversation: string, messages: readonly Message[]): readonly Message[] {
    const previous = this.histories.get(conversation);
    let same = 0;
    if (previous) {
      const limit = Math.min(previous.length, messages.length);
      while (same < limit && sameMessage(previous[same] as Message, messages[same] as Message)) same++;
    }
    const canonical =
      same === 0 ? messages : [...(previous as readonly Message[]).slice(0, same), ...messages.slice(same)];
    this.histories.set(conversation, canonical);
    return canonical;
  }
}
