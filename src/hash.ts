/**
 * A fast, synchronous, non-cryptographic 64-bit string hash (two 32-bit multiply-xorshift lanes, after cyrb53).
 * It runs in every JavaScript runtime (Node, edge, browsers) without WebCrypto's async API, and is fast enough
 * to fingerprint a 200k-token history on every call. Collisions are possible in theory; state keys also
 * carry the message count, so a collision would need equal lengths and equal 64-bit hashes.
 */
export function hashString(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/** Hash of an ordered list of hashes, e.g. a message prefix. */
export function hashChain(previous: string, next: string): string {
  return hashString(`${previous}:${next}`);
}
