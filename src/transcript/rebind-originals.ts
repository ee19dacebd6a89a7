import type { Message } from './transcript.js';

/**
 * An edited message carrying the framework objects of `caller`, the message of this call it was made from: the engine
 * may have built the edit from an equal message of an earlier call (see `HistoryMemory`), and adapters rebuild edited
 * messages from `original`, so what goes out keeps this call's provider options, ids and metadata. Parts line up one
 * to one: an edit replaces a part's content, never adds or removes one.
 */
export function rebindOriginals(edited: Message, caller: Message): Message {
  const sameOriginals =
    edited.original === caller.original &&
    edited.parts.every((part, index) => part.original === caller.parts[index]?.original);
  if (sameOriginals) return edited;
  return {
    ...edited,
    original: caller.original,
    parts: edited.parts.map((part, index) => ({ ...part, original: caller.parts[index]?.original })),
  };
}
