import type { Message, Part } from './transcript.js';

/** Nesting beyond which two values are taken as different (JSON from a model or a user is far shallower). */
const MAX_DEPTH = 200;

/**
 * Whether two values of a message are equal as data: the same JSON-like tree (plain objects by their own enumerable
 * keys, a key holding `undefined` as absent; byte arrays by their bytes). Any other object (a URL, a class instance) is equal only to itself. Strings
 * compare natively, so a long output costs one memory comparison. Values nested deeper than `MAX_DEPTH` (a cycle)
 * count as different: the message is then read as new, never a wrong match. This runs over whole histories on every
 * call, so plain objects take a path without key arrays or per-value calls for strings and numbers.
 */
export function sameValue(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > MAX_DEPTH) return false;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      const x: unknown = a[index];
      const y: unknown = b[index];
      if (x !== y && !sameValue(x, y, depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const prototype = Object.getPrototypeOf(a);
  if (prototype !== Object.prototype && prototype !== null) return sameBytes(a, b);
  if (Object.getPrototypeOf(b) !== prototype) return false;
  return samePlainObject(a as Record<string, unknown>, b as Record<string, unknown>, depth);
}

/**
 * Two plain objects (the same prototype, `Object.prototype` or null) with equal values under the same own enumerable
 * keys, a key holding `undefined` counting as absent, as in their JSON (a request parsed anew has no such keys where
 * the objects a framework built have them). `for...in` also lists enumerable keys a prototype was given, the same
 * ones on both sides.
 */
function samePlainObject(a: Record<string, unknown>, b: Record<string, unknown>, depth: number): boolean {
  let keys = 0;
  for (const key in a) {
    const x = a[key];
    const y = b[key];
    if (x === undefined) {
      if (y !== undefined) return false;
      continue;
    }
    keys++;
    if (x !== y && (typeof x !== 'object' || !sameValue(x, y, depth + 1))) return false;
  }
  for (const key in b) if (b[key] !== undefined) keys--;
  return keys === 0;
}

/** Byte arrays by their bytes; any other object with a prototype of its own is equal only to itself. */
function sameBytes(a: object, b: object): boolean {
  if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
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

/** How many leading elements of `next` are the very objects at the same places of `previous`. */
export function identicalPrefix(previous: readonly unknown[], next: readonly unknown[]): number {
  const limit = Math.min(previous.length, next.length);
  let same = 0;
  while (same < limit && previous[same] === next[same]) same++;
  return same;
}

/**
 * Whether `next` continues `previous`: every message of `previous` is the same object at the same place in `next`,
 * so a scan of `previous` can go on over the rest of `next`.
 */
export function continues(previous: readonly unknown[], next: readonly unknown[]): boolean {
  return previous.length <= next.length && identicalPrefix(previous, next) === previous.length;
}
