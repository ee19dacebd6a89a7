import { type FileBytes, readFileBytes } from './file-bytes.js';

/**
 * Bytes of a PDF read for its page count: all of a file up to this size; of a larger one, this much from its start
 * and from its end (where an incremental update writes its new page tree). Bounds the work on a huge file.
 */
export const MAX_PDF_SCAN_BYTES = 16 * 1024 * 1024;
/** Page counts above this are not believed (a corrupt or hostile file). */
const MAX_PAGES = 100_000;

/**
 * The number of pages of a PDF (given as bytes, base64 or a `data:` URL) from the objects that say it: the largest
 * `/Count` of a `/Type /Pages` node (the root of the page tree holds the total), else the `/N` of a linearized
 * file's first dictionary, else the number of `/Type /Page` objects. Undefined when the bytes are not known, not a
 * PDF, or keep their page tree in compressed object streams. Reads at most `MAX_PDF_SCAN_BYTES`. Never throws.
 */
export function pdfPageCount(data: Uint8Array | string | FileBytes): number | undefined {
  const file = typeof data === 'string' || data instanceof Uint8Array ? readFileBytes(data) : data;
  if (!file || file.ascii(0, 1024).indexOf('%PDF-') < 0) return undefined;
  const text =
    file.length <= MAX_PDF_SCAN_BYTES
      ? file.ascii(0, file.length)
      : `${file.ascii(0, MAX_PDF_SCAN_BYTES / 2)}\n${file.ascii(file.length - MAX_PDF_SCAN_BYTES / 2, file.length)}`;
  const pages = pageTreeCount(text) ?? linearizedCount(text) ?? pageObjectCount(text);
  return pages !== undefined && pages > 0 && pages <= MAX_PAGES ? pages : undefined;
}

/** The largest `/Count` inside an object of `/Type /Pages` (outlines have a `/Count` too, so others are left out). */
function pageTreeCount(text: string): number | undefined {
  let largest: number | undefined;
  for (const match of text.matchAll(/\/Type\s*\/Pages(?![A-Za-z0-9])/g)) {
    const start = Math.max(text.lastIndexOf(' obj', match.index), text.lastIndexOf('endobj', match.index), 0);
    const end = text.indexOf('endobj', match.index);
    const object = text.slice(start, end < 0 ? Math.min(text.length, match.index + 4096) : end);
    for (const count of object.matchAll(/\/Count\s+(\d{1,9})(?![0-9])/g)) {
      const value = Number(count[1]);
      if (largest === undefined || value > largest) largest = value;
    }
  }
  return largest;
}

/** The page count `/N` of a linearized file's first dictionary, written uncompressed in its first kilobytes. */
function linearizedCount(text: string): number | undefined {
  const head = text.slice(0, 2048);
  const at = head.indexOf('/Linearized');
  if (at < 0) return undefined;
  const end = head.indexOf('>>', at);
  const match = /\/N\s+(\d{1,9})(?![0-9])/.exec(head.slice(at, end < 0 ? undefined : end));
  return match ? Number(match[1]) : undefined;
}

/** The number of page objects, `/Type /Page` (not `/Pages`). */
function pageObjectCount(text: string): number | undefined {
  let count = 0;
  for (const _match of text.matchAll(/\/Type\s*\/Page(?![A-Za-z0-9])/g)) count++;
  return count > 0 ? count : undefined;
}
