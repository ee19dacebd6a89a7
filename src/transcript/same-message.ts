import type { Message, Part } from './transcript.js';

/** Nesting beyond which two values are taken as different (JSON from a model or a user is far shallower). */
const MAX_DEPTH = 200;

/**
 * Whether two values of a message are equal as data: the same JSON-like tree (plain objects by their own enumerable
 * keys, byte arrays by their bytes). Any other object (a URL, a class instance) is equal only to itself. Strings
 * compare natively, so a long output costs one memory comparison. Values nested deeper than `MAX_DEPTH` (a cycle)
 * count as different: the message is then read as new, never a wrong match.
 */
export function sameValue(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > MAX_DEPTH) return false;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameValue(a[index], b[index], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(a);
  if (prototype !== Object.getPrototypeOf(b) || (prototype !== Object.prototype && prototype !== null)) return false;
  // own keys counted on both sides, without building key arrays (this runs over whole histories on every call)
  let keys = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key)) continue;
    keys++;
    if (!Object.hasOwn(b, key)) return false;
    if (!sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1)) return false;
  }
  for (const key in b) if (Object.hasOwn(b, key)) keys--;
  if (keys !== 0) return false;
  return true;
}

function samePart(a: Part, b: Part): boolean {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'text':
      return a.text === (b as typeof a).text && a.edited === (b as typeof a).edited;
    case 'reasoning':
    case 'other':
      return a.text === (b as typeof a).text;
    case 'file': {
      const other = b as typeof a;
      return a.mediaType === other.mediaType && a.fingerprint === other.fingerprint && a.tokens === other.tokens;
    }
    case 'tool-call': {
      const other = b as typeof a;
      return a.id === other.id && a.name === other.name && sameValue(a.args, other.args);
    }
    case 'tool-result': {
      const other = b as typeof a;
      return (
        a.callId === other.callId &&
        a.name === other.name &&
        a.output === other.output &&
        a.isError === other.isError &&
        a.edited === other.edited &&
        a.edit === other.edit
      );
    }
  }
}

/**
 * Whether two transcript messages say the same to the engine: role, id, marks and every part's content. What only
 * the framework reads (`original`, provider options) is not compared.
 */
export function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.id !== b.id || a.edited !== b.edited || a.synthetic !== b.synthetic) return false;
  if (a.parts.length !== b.parts.length) return false;
  for (let index = 0; index < a.parts.length; index++) {
    if (!samePart(a.parts[index] as Part, b.parts[index] as Part)) return false;
  }
  return true;
}
