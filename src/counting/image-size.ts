import { type FileBytes, readFileBytes } from './file-bytes.js';

/** An image's size in pixels, read from its header. */
export interface ImageSize {
  readonly width: number;
  readonly height: number;
  readonly format: 'png' | 'jpeg' | 'gif' | 'webp';
}

/** How far into a JPEG its frame header is looked for: past EXIF, ICC profiles and thumbnails, not the whole file. */
const MAX_JPEG_HEADER_BYTES = 1 << 20;
/** JPEG segments walked at most before the frame header. */
const MAX_JPEG_SEGMENTS = 256;

/**
 * The width and height of a PNG, JPEG, GIF or WebP image from its header bytes (given as bytes, base64 or a `data:`
 * URL), or undefined when the bytes are not known (a URL), not such an image, or cut short. Reads only the header:
 * the first 30 bytes, or a JPEG's segment headers up to its frame header. Never throws.
 */
export function imageSize(data: Uint8Array | string | FileBytes): ImageSize | undefined {
  const file = typeof data === 'string' || data instanceof Uint8Array ? readFileBytes(data) : data;
  if (!file) return undefined;
  const head = file.bytes(0, 30);
  const size = pngSize(head) ?? gifSize(head) ?? webpSize(head) ?? jpegSize(file, head);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}

const u16be = (bytes: Uint8Array, at: number) => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
const u16le = (bytes: Uint8Array, at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
const u24le = (bytes: Uint8Array, at: number) => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16);
const u32be = (bytes: Uint8Array, at: number) => u16be(bytes, at) * 0x10000 + u16be(bytes, at + 2);
const ascii = (bytes: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...bytes.subarray(at, at + length));

/** PNG: the signature, then the IHDR chunk with width and height as 32-bit big-endian numbers. */
function pngSize(head: Uint8Array): ImageSize | undefined {
  if (head.length < 24 || ascii(head, 1, 3) !== 'PNG' || ascii(head, 12, 4) !== 'IHDR') return undefined;
  return { width: u32be(head, 16), height: u32be(head, 20), format: 'png' };
}

/** GIF: `GIF87a` or `GIF89a`, then the logical screen's width and height, 16-bit little-endian. */
function gifSize(head: Uint8Array): ImageSize | undefined {
  if (head.length < 10 || !/^GIF8[79]a$/.test(ascii(head, 0, 6))) return undefined;
  return { width: u16le(head, 6), height: u16le(head, 8), format: 'gif' };
}

/** WebP: a RIFF container whose first chunk is lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`). */
function webpSize(head: Uint8Array): ImageSize | undefined {
  if (head.length < 25 || ascii(head, 0, 4) !== 'RIFF' || ascii(head, 8, 4) !== 'WEBP') return undefined;
  const chunk = ascii(head, 12, 4);
  if (chunk !== 'VP8L' && head.length < 30) return undefined;
  switch (chunk) {
    case 'VP8 ':
      // a key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit width and height
      if (head[23] !== 0x9d || head[24] !== 0x01 || head[25] !== 0x2a) return undefined;
      return { width: u16le(head, 26) & 0x3fff, height: u16le(head, 28) & 0x3fff, format: 'webp' };
    case 'VP8L': {
      // the signature 0x2f, then width - 1 and height - 1 in 14 bits each, least significant bit first
      if (head[20] !== 0x2f) return undefined;
      const bits = (head[21] ?? 0) | ((head[22] ?? 0) << 8) | ((head[23] ?? 0) << 16) | ((head[24] ?? 0) << 24);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, format: 'webp' };
    }
    case 'VP8X':
      // the canvas width - 1 and height - 1, 24-bit little-endian
      return { width: u24le(head, 24) + 1, height: u24le(head, 27) + 1, format: 'webp' };
    default:
      return undefined;
  }
}

/** Start-of-frame markers (C0 to CF but DHT C4, JPG C8 and DAC CC), whose segment holds the image's size. */
const isFrameMarker = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** JPEG: segments from the SOI marker on, each skipped by its length, up to the first frame header. */
function jpegSize(file: FileBytes, head: Uint8Array): ImageSize | undefined {
  if (head[0] !== 0xff || head[1] !== 0xd8) return undefined;
  let offset = 2;
  for (let segment = 0; segment < MAX_JPEG_SEGMENTS && offset < MAX_JPEG_HEADER_BYTES; segment++) {
    const header = file.bytes(offset, offset + 9);
    if (header.length < 4 || header[0] !== 0xff) return undefined;
    const marker = header[1] as number;
    if (marker === 0xff) {
      offset += 1; // a fill byte before a marker
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2; // markers without a segment
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image or scan data before any frame
    if (isFrameMarker(marker)) {
      if (header.length < 9) return undefined;
      return { width: u16be(header, 7), height: u16be(header, 5), format: 'jpeg' };
    }
    const length = u16be(header, 2);
    if (length < 2) return undefined;
    offset += 2 + length;
  }
  return undefined;
}
