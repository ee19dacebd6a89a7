import { deflateSync } from 'node:zlib';

/** Tiny image and PDF files built byte by byte, for the header readers and the file counts. */

const CRC_TABLE = Array.from({ length: 256 }, (_, index) => {
  let crc = index;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const u32be = (value: number) => [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
const u16be = (value: number) => [(value >>> 8) & 0xff, value & 0xff];
const u16le = (value: number) => [value & 0xff, (value >>> 8) & 0xff];
const u24le = (value: number) => [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff];
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

function pngChunk(type: string, data: Uint8Array): number[] {
  const typed = new Uint8Array([...ascii(type), ...data]);
  return [...u32be(data.length), ...typed, ...u32be(crc32(typed))];
}

/** A complete grey PNG of `width` x `height` (8-bit greyscale, every row filtered with None). */
export function png(width: number, height: number): Uint8Array {
  const header = new Uint8Array([...u32be(width), ...u32be(height), 8, 0, 0, 0, 0]);
  const rows = new Uint8Array((width + 1) * height).fill(0x80);
  for (let row = 0; row < height; row++) rows[row * (width + 1)] = 0;
  return new Uint8Array([
    0x89,
    ...ascii('PNG\r\n\x1a\n'),
    ...pngChunk('IHDR', header),
    ...pngChunk('IDAT', deflateSync(rows)),
    ...pngChunk('IEND', new Uint8Array()),
  ]);
}

/** A GIF89a of `width` x `height`: header, logical screen, a two-colour table, one image of one LZW clear code. */
export function gif(width: number, height: number): Uint8Array {
  return new Uint8Array([
    ...ascii('GIF89a'),
    ...u16le(width),
    ...u16le(height),
    0x80,
    0,
    0,
    ...[0, 0, 0, 255, 255, 255],
    0x2c,
    ...u16le(0),
    ...u16le(0),
    ...u16le(width),
    ...u16le(height),
    0,
    2,
    2,
    0x4c,
    0x01,
    0,
    0x3b,
  ]);
}

/**
 * A baseline (or progressive) JPEG's headers of `width` x `height`: SOI, a JFIF APP0, an APP1 of `exifBytes` bytes
 * (what a camera's EXIF and thumbnail take), a quantization table, the frame header, then EOI.
 */
export function jpeg(width: number, height: number, { exifBytes = 0, progressive = false } = {}): Uint8Array {
  const app0 = [0xff, 0xe0, ...u16be(16), ...ascii('JFIF\0'), 1, 1, 0, ...u16be(72), ...u16be(72), 0, 0];
  const app1 = exifBytes > 0 ? [0xff, 0xe1, ...u16be(exifBytes + 2), ...new Array<number>(exifBytes).fill(0x45)] : [];
  const dqt = [0xff, 0xdb, ...u16be(67), 0, ...new Array<number>(64).fill(1)];
  const frame = [0xff, progressive ? 0xc2 : 0xc0, ...u16be(11), 8, ...u16be(height), ...u16be(width), 1, 1, 0x11, 0];
  return new Uint8Array([0xff, 0xd8, ...app0, ...app1, 0xff, 0xff, ...dqt, ...frame, 0xff, 0xd9]);
}

function riff(chunk: string, data: number[]): Uint8Array {
  const body = [...ascii('WEBP'), ...ascii(chunk), ...u32le(data.length), ...data];
  return new Uint8Array([...ascii('RIFF'), ...u32le(body.length), ...body]);
}
const u32le = (value: number) => [...u16le(value & 0xffff), ...u16le(value >>> 16)];

/** A lossy WebP's header: a key frame's tag, the start code and the 14-bit sizes. */
export function webpLossy(width: number, height: number): Uint8Array {
  return riff('VP8 ', [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, ...u16le(width), ...u16le(height), 0, 0]);
}

/** A lossless WebP's header: the signature and width - 1, height - 1 in 14 bits each. */
export function webpLossless(width: number, height: number): Uint8Array {
  const bits = (width - 1) | ((height - 1) << 14);
  return riff('VP8L', [0x2f, bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff, (bits >>> 24) & 0xff, 0]);
}

/** An extended WebP's header: flags, then the canvas width - 1 and height - 1 in 24 bits each. */
export function webpExtended(width: number, height: number): Uint8Array {
  return riff('VP8X', [0x10, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)]);
}

/** Base64 of bytes. */
export const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** A PDF of `pages` pages in one page tree, with an outline whose `/Count` is larger than the pages. */
export function pdf(pages: number): Uint8Array {
  const kids = Array.from({ length: pages }, (_, index) => `${index + 4} 0 R`).join(' ');
  const objects = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R /Outlines 3 0 R >>\nendobj',
    `2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj`,
    `3 0 obj\n<< /Type /Outlines /Count ${pages + 40} >>\nendobj`,
    ...Array.from(
      { length: pages },
      (_, index) => `${index + 4} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj`,
    ),
  ];
  return new TextEncoder().encode(
    `%PDF-1.7\n%\xe2\xe3\xcf\xd3\n${objects.join('\n')}\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`,
  );
}
