/**
 * Random access to a file's bytes, given as bytes, base64 or a `data:` URL, decoding only the bytes that are read:
 * an image's size is in its first bytes, so a base64 image of megabytes is not decoded to find it.
 */
export interface FileBytes {
  /** Length of the file in bytes. */
  readonly length: number;
  /** The media type a `data:` URL declares, if any. */
  readonly mediaType?: string;
  /** Bytes from `start` to `end` (clipped to the file). */
  bytes(start: number, end: number): Uint8Array;
  /**
   * Bytes from `start` to `end` as a string in which every ASCII byte is its own character (other bytes are some
   * non-ASCII character), for finding ASCII keywords such as a PDF's `/Count`.
   */
  ascii(start: number, end: number): string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Characters of a base64 string checked up front; the rest is checked by `atob` as far as it is read. */
const CHECKED_CHARS = 4_096;

/** The bytes of `data`, or undefined when it is a URL of unknown bytes or not base64. Never throws. */
export function readFileBytes(data: Uint8Array | string): FileBytes | undefined {
  if (typeof data !== 'string') return arrayBytes(data);
  if (data.startsWith('data:')) return dataUrlBytes(data);
  // a URL of any other scheme (http, https, gs, s3, file ids...) names bytes we do not have
  if (/^[a-z][a-z0-9+.-]*:/i.test(data)) return undefined;
  return base64Bytes(data);
}

function arrayBytes(data: Uint8Array, mediaType?: string): FileBytes {
  return {
    length: data.length,
    mediaType,
    bytes: (start, end) => data.subarray(Math.max(0, start), Math.min(data.length, end)),
    // UTF-8 decoding keeps every ASCII byte as its character and turns anything else into U+FFFD: what is looked
    // for is ASCII, and TextDecoder's UTF-8 is there in every runtime (latin1 is not)
    ascii: (start, end) => new TextDecoder().decode(data.subarray(Math.max(0, start), Math.min(data.length, end))),
  };
}

function dataUrlBytes(url: string): FileBytes | undefined {
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const header = url.slice(5, comma);
  const mediaType = header.split(';')[0]?.trim().toLowerCase() || undefined;
  if (/;\s*base64\s*$/i.test(header)) return base64Bytes(url.slice(comma + 1), mediaType);
  try {
    return arrayBytes(new TextEncoder().encode(decodeURIComponent(url.slice(comma + 1))), mediaType);
  } catch {
    return undefined;
  }
}

function base64Bytes(given: string, mediaType?: string): FileBytes | undefined {
  let text = given;
  // line breaks, spaces and the URL-safe alphabet are read too, at the cost of one copy (and a check of it all)
  const plain = (part: string) => BASE64.test(part);
  if (!plain(text.slice(0, CHECKED_CHARS)) || !plain(text.slice(-4))) {
    text = text.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
    if (!plain(text)) return undefined;
  }
  if (text.length % 4 === 1) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const length = Math.max(0, Math.floor((text.length * 3) / 4) - padding);
  /** The decoded bytes from `start` to `end` as a binary string (one character per byte). */
  const binary = (start: number, end: number): string => {
    const from = Math.max(0, start);
    const to = Math.min(length, end);
    if (to <= from) return '';
    const first = Math.floor(from / 3);
    try {
      return atob(text.slice(first * 4, Math.ceil(to / 3) * 4)).slice(from - first * 3, to - first * 3);
    } catch {
      return '';
    }
  };
  return {
    length,
    mediaType,
    bytes: (start, end) => {
      const decoded = binary(start, end);
      const out = new Uint8Array(decoded.length);
      for (let index = 0; index < decoded.length; index++) out[index] = decoded.charCodeAt(index);
      return out;
    },
    ascii: binary,
  };
}
