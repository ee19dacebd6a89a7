import { boundedCache } from '../bounded-cache.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { Message } from '../transcript/transcript.js';
import { type MessageChunks, recalledFiles } from './recall-chunks.js';
import { recallMessages } from './render-recall.js';

/** A rendered recall block: the synthetic pair and its tokens. */
export interface RecallBlock {
  readonly messages: readonly Message[];
  readonly tokens: number;
  /** How many chunks it quotes. */
  readonly chunks: number;
}

/**
 * Recall blocks rendered once and remembered by what determines them: the hash of the history before their user
 * message and the chosen ids. The same block is the same objects on every call, so its measures are remembered too.
 */
export class RecallBlocks {
  private readonly blocks = boundedCache<string, RecallBlock>(2_000);

  constructor(
    private readonly meter: MessageMeter,
    private readonly acknowledgement: string,
    private readonly chunks: MessageChunks,
  ) {}

  /** The block for the user message at `at` (whose prefix hash is `prefixHash`), undefined when it quotes nothing. */
  block(
    messages: readonly Message[],
    prefixHash: number,
    at: number,
    items: readonly string[],
  ): RecallBlock | undefined {
    if (items.length === 0) return undefined;
    const key = `${prefixHash}:${at}:${items.join(',')}`;
    let block = this.blocks.get(key);
    if (!block) {
      const chunks = this.chunks.named(messages, items);
      if (chunks.length === 0) return undefined;
      const pair = recallMessages(chunks, this.acknowledgement, recalledFiles(messages, items));
      block = {
        messages: pair,
        tokens: pair.reduce((sum, message) => sum + this.meter.measure(message).tokens, 0),
        chunks: chunks.length,
      };
      this.blocks.set(key, block);
    }
    return block;
  }
}
