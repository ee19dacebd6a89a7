import type { Message } from './transcript.js';

/**
 * Copies of messages for code outside the engine (a summarizer of the caller's): every message, part, array and plain
 * object is new, so the engine's messages and the caller's stay as they were whatever the code does with its copy.
 * Strings are shared (they cannot change); `original` (the framework's object a message or part came from, the
 * caller's own) and instances of classes (a `URL`) are shared as they are; typed arrays (file bytes) are copied.
 */
export function copyMessages(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    const { original, parts, ...rest } = message;
    const copy = copyPlain(rest) as Omit<Message, 'parts'>;
    const copiedParts = parts.map((part) => {
      const { original: partOriginal, ...fields } = part;
      const partCopy = copyPlain(fields) as typeof part;
      return partOriginal === undefined ? partCopy : { ...partCopy, original: partOriginal };
    });
    return { ...copy, parts: copiedParts, ...(original === undefined ? {} : { original }) } as Message;
  });
}

function copyPlain(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyPlain);
  if (ArrayBuffer.isView(value)) return structuredClone(value);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = copyPlain(inner);
  return copy;
}
