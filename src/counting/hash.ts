/**
 * Fast, synchronous, non-cryptographic hashes (two 32-bit multiply-xorshift lanes, after cyrb53). They run in every
 * JavaScript runtime (Node, edge, browsers) without WebCrypto's async API, and are fast enough to fingerprint a
 * 200k-token history on every call. Hashes are 53-bit numbers so they chain and compare without building strings;
 * state keys also carry the message count, so a collision would need equal lengths and equal hashes.
 */
function mix(h1: number, h2: number): number {
  let a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  a >>>= 0;
  return 4294967296 * (2097151 & b) + a;
}

/** A 53-bit hash of a string. */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  return mix(h1, h2);
}

/** A 53-bit hash of an ordered pair of hashes, e.g. a message prefix extended by one message. */
export function hashChain(previous: number, next: number): number {
  let h1 = Math.imul(0xdeadbeef ^ (previous >>> 0), 2654435761);
  let h2 = Math.imul(0x41c6ce57 ^ (previous >>> 0), 1597334677);
  const previousHigh = Math.floor(previous / 4294967296);
  h1 = Math.imul(h1 ^ previousHigh, 2654435761);
  h2 = Math.imul(h2 ^ previousHigh, 1597334677);
  h1 = Math.imul(h1 ^ (next >>> 0), 2654435761);
  h2 = Math.imul(h2 ^ (next >>> 0), 1597334677);
  const nextHigh = Math.floor(next / 4294967296);
  h1 = Math.imul(h1 ^ nextHigh, 2654435761);
  h2 = Math.imul(h2 ^ nextHigh, 1597334677);
  return mix(h1, h2);
}

/** A hash of a string as a short string, for keys of stores. */
export function hashString(text: string, seed = 0): string {
  return hash53(text, seed).toString(36);
}

/**
 * A 53-bit hash of every byte of `bytes` (read as little-endian 32-bit words, the tail byte by byte), for fingerprints
 * of files and images: two files that differ anywhere hash apart, however large they are.
 */
export function hashBytes(bytes: Uint8Array, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const wordBytes = bytes.byteLength - (bytes.byteLength % 4);
  for (let offset = 0; offset < wordBytes; offset += 4) {
    const word = view.getUint32(offset, true);
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
  }
  // the tail and the length, so arrays that differ only by trailing zero bytes hash apart
  let tail = 0;
  for (let offset = wordBytes; offset < bytes.byteLength; offset++) tail = (tail << 8) | (bytes[offset] as number);
  for (const word of [tail, bytes.byteLength >>> 0]) {
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
  }
  return mix(h1, h2);
}
