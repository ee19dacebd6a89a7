import { LRUCache } from 'lru-cache';
import { sameValue } from './same-message.js';
import type { Message } from './transcript.js';

/**
 * An adapter's conversions of the last history each conversation sent: a message equal as data to the one at the
 * same place last time gets last time's transcript message back instead of being converted again. Conversations are
 * told apart by a key of their first message. What goes out for such a message is last call's framework object,
 * equal as data to the caller's (provider options included), since the comparison covers every field.
 */
export class ConversionMemory<Input> {
  private readonly histories: LRUCache<string, { inputs: readonly Input[]; outputs: readonly Message[] }>;

  /** Bounded by conversations and by the messages remembered in all of them together. */
  constructor(
    private readonly convert: (input: Input) => Message,
    private readonly keyOf: (first: Input) => string,
    { maxConversations = 1_000, maxMessages = 200_000 } = {},
  ) {
    this.histories = new LRUCache({
      max: maxConversations,
      maxSize: maxMessages,
      sizeCalculation: (history) => Math.max(1, history.inputs.length),
    });
  }

  /** The transcript messages of `inputs`, converting only those after the first difference from last time. */
  convertAll(inputs: readonly Input[]): Message[] {
    const first = inputs[0];
    if (first === undefined) return [];
    const key = this.keyOf(first);
    const previous = this.histories.get(key);
    let same = 0;
    if (previous) {
      const limit = Math.min(previous.inputs.length, inputs.length);
      while (same < limit && sameValue(previous.inputs[same], inputs[same])) same++;
    }
    const outputs = previous ? previous.outputs.slice(0, same) : [];
    for (let index = same; index < inputs.length; index++) outputs.push(this.convert(inputs[index] as Input));
    // the inputs whose conversions went out (an earlier call's for the unchanged part), so a later change made to
    // one of those objects in place is seen as a change
    const sent = previous && same > 0 ? [...previous.inputs.slice(0, same), ...inputs.slice(same)] : inputs;
    this.histories.set(key, { inputs: sent, outputs });
    return outputs;
  }
}
