import { boundedCache } from '../bounded-cache.js';
import { identicalPrefix } from '../transcript/same-message.js';
import type { Message } from '../transcript/transcript.js';
import { hash53, hashChain } from './hash.js';
import type { MessageMeter } from './message-meter.js';

/** `hashes[k]`: the hash of the namespace and the first k messages. */
export function prefixHashesOf(namespace: string, messages: readonly Message[], meter: MessageMeter): number[] {
  return extendHashes([hash53(namespace)], messages, meter);
}

/** Hashes for the messages after those `hashes` already covers, appended to it. */
function extendHashes(hashes: number[], messages: readonly Message[], meter: MessageMeter): number[] {
  for (let index = hashes.length - 1; index < messages.length; index++) {
    // hashed, not counted: a call far below every threshold counts only what a decision needs
    hashes.push(hashChain(hashes[index] as number, meter.hash(messages[index] as Message)));
  }
  return hashes;
}

/**
 * `prefixHashesOf` per conversation, continued from the previous call's when the history continues it (the same
 * message objects first): a call that appends a message hashes one message.
 */
export class PrefixHashes {
  private readonly last = boundedCache<string, { messages: readonly Message[]; hashes: readonly number[] }>(1_000);

  constructor(private readonly meter: MessageMeter) {}

  /** The prefix hashes of `messages`; `conversation` already tells namespaces apart. */
  of(conversation: string, namespace: string, messages: readonly Message[]): number[] {
    const cached = this.last.get(conversation);
    const same = cached ? identicalPrefix(cached.messages, messages) : 0;
    const hashes =
      cached && same > 0
        ? extendHashes(cached.hashes.slice(0, same + 1), messages, this.meter)
        : prefixHashesOf(namespace, messages, this.meter);
    this.last.set(conversation, { messages, hashes });
    return hashes;
  }
}
