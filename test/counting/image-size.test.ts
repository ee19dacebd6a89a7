import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileBytes } from '../../src/counting/file-bytes.js';
import { imageSize } from '../../src/counting/image-size.js';
import { base64, gif, jpeg, png, webpExtended, webpLossless, webpLossy } from '../helpers/images.js';

const IMAGES: [string, Uint8Array, { width: number; height: number; format: string }][] = [
  ['png', png(37, 5), { width: 37, height: 5, format: 'png' }],
  ['gif', gif(640, 480), { width: 640, height: 480, format: 'gif' }],
  ['jpeg (baseline)', jpeg(1568, 1045), { width: 1568, height: 1045, format: 'jpeg' }],
  ['jpeg (progressive)', jpeg(300, 4000, { progressive: true }), { width: 300, height: 4000, format: 'jpeg' }],
  ['jpeg (after a 60 KB EXIF)', jpeg(4032, 3024, { exifBytes: 60_000 }), { width: 4032, height: 3024, format: 'jpeg' }],
  ['webp (VP8)', webpLossy(1024, 768), { width: 1024, height: 768, format: 'webp' }],
  ['webp (VP8L)', webpLossless(16_000, 3), { width: 16_000, height: 3, format: 'webp' }],
  ['webp (VP8X)', webpExtended(20_000, 9_000), { width: 20_000, height: 9_000, format: 'webp' }],
];

/** A deterministic generator of garbage bytes. */
function garbage(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed;
  for (let index = 0; index < length; index++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    bytes[index] = state >>> 16;
  }
  return bytes;
}

describe('imageSize', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(IMAGES)('reads a %s from bytes, base64 and a data: URL', (_name, bytes, size) => {
    expect(imageSize(bytes)).toEqual(size);
    expect(imageSize(base64(bytes))).toEqual(size);
    expect(imageSize(`data:image/x;base64,${base64(bytes)}`)).toEqual(size);
    // base64 broken into lines, and in the URL-safe alphabet
    expect(imageSize(base64(bytes).replace(/(.{76})/g, '$1\n'))).toEqual(size);
    expect(imageSize(base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''))).toEqual(size);
  });

  const small = IMAGES.filter(([, bytes]) => bytes.length < 1_000);
  it.each(small)('gives unknown size for every cut-short %s, never throwing', (_name, bytes) => {
    const needed = Math.max(...[...Array(bytes.length + 1).keys()].filter((n) => !imageSize(bytes.subarray(0, n))));
    for (let length = 0; length <= needed; length++) expect(imageSize(bytes.subarray(0, length))).toBeUndefined();
    expect(needed).toBeLessThan(bytes.length);
  });

  it('gives unknown size for a URL, garbage, text and bad base64', () => {
    expect(imageSize('https://example.com/cat.png')).toBeUndefined();
    expect(imageSize('gs://bucket/cat.png')).toBeUndefined();
    expect(imageSize('')).toBeUndefined();
    expect(imageSize('not base64 at all!')).toBeUndefined();
    expect(imageSize('data:image/png;base64')).toBeUndefined();
    expect(imageSize('data:image/png;base64,%%%')).toBeUndefined();
    expect(imageSize('data:text/plain,hello%20world')).toBeUndefined();
    expect(imageSize(`${'A'.repeat(8_000)}!!`)).toBeUndefined();
    expect(imageSize(`${base64(png(3, 3))}${'A'.repeat(8_000)}%%AA`)).toBeUndefined();
    for (let seed = 1; seed <= 200; seed++) {
      const bytes = garbage(64 + seed, seed);
      expect(() => imageSize(bytes)).not.toThrow();
      expect(() => imageSize(base64(bytes))).not.toThrow();
    }
    // headers that claim a format and then lie
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]))).toBeUndefined();
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 8, 0, 0, 0, 0]))).toBeUndefined();
    expect(imageSize(png(0, 5))).toBeUndefined();
  });

  it('decodes only the header of a large base64 image', () => {
    const photo = base64(jpeg(4032, 3024, { exifBytes: 60_000 }));
    const screenshot = base64(new Uint8Array([...png(1568, 1568), ...new Uint8Array(4_000_000)]));
    const atob = vi.spyOn(globalThis, 'atob');
    expect(imageSize(photo)).toMatchObject({ width: 4032, height: 3024 });
    expect(imageSize(screenshot)).toMatchObject({ width: 1568, height: 1568 });
    const decoded = atob.mock.calls.reduce((sum, [text]) => sum + text.length, 0);
    expect(decoded).toBeLessThan(200);
  });

  it('reads bytes at any offset of base64, as a decoder of the whole would', () => {
    const bytes = garbage(1000, 7);
    const file = readFileBytes(base64(bytes));
    expect(file?.length).toBe(1000);
    for (const [start, end] of [
      [0, 1],
      [1, 2],
      [2, 9],
      [997, 1000],
      [500, 2000],
      [-5, 3],
    ] as const)
      expect([...(file?.bytes(start, end) ?? [])]).toEqual([...bytes.subarray(Math.max(0, start), end)]);
  });
});
