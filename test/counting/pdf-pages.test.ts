import { describe, expect, it } from 'vitest';
import { MAX_PDF_SCAN_BYTES, pdfPageCount } from '../../src/counting/pdf-pages.js';
import { base64, pdf } from '../helpers/images.js';

const encode = (text: string) => new TextEncoder().encode(text);

describe('pdfPageCount', () => {
  it('reads the page tree: the root /Count, not an outline /Count; from bytes, base64 and a data: URL', () => {
    const file = pdf(3);
    expect(pdfPageCount(file)).toBe(3);
    expect(pdfPageCount(base64(file))).toBe(3);
    expect(pdfPageCount(`data:application/pdf;base64,${base64(file)}`)).toBe(3);
    expect(pdfPageCount(pdf(57))).toBe(57);
  });

  it('takes the largest /Count of a nested page tree, in objects written in any order', () => {
    const file = encode(
      [
        '%PDF-1.4',
        '5 0 obj << /Count 2 /Kids [6 0 R 7 0 R] /Parent 2 0 R /Type /Pages >> endobj',
        '2 0 obj << /Type /Pages /Kids [5 0 R 8 0 R 9 0 R 10 0 R] /Count 5 >> endobj',
        '6 0 obj << /Type /Page /Parent 5 0 R >> endobj',
      ].join('\n'),
    );
    expect(pdfPageCount(file)).toBe(5);
  });

  it("falls back to a linearized file's /N, then to counting page objects", () => {
    const linearized = encode('%PDF-1.6\n1 0 obj << /Linearized 1 /L 90000 /N 12 /T 8000 >> endobj\nstream...');
    expect(pdfPageCount(linearized)).toBe(12);
    const pagesOnly = encode(
      '%PDF-1.3\n3 0 obj<</Type/Page>>endobj 4 0 obj<</Type /Page>>endobj 5 0 obj<</Type/Page/X 1>>endobj',
    );
    expect(pdfPageCount(pagesOnly)).toBe(3);
  });

  it('gives undefined for a page tree in compressed streams, a URL, not a PDF, garbage and an absurd count', () => {
    expect(pdfPageCount(encode('%PDF-1.7\n1 0 obj << /Type /ObjStm /N 40 /Filter /FlateDecode >> stream'))).toBe(
      undefined,
    );
    expect(pdfPageCount('https://example.com/report.pdf')).toBeUndefined();
    expect(pdfPageCount(encode('<< /Type /Pages /Count 4 >>'))).toBeUndefined();
    expect(pdfPageCount('%%%not base64')).toBeUndefined();
    expect(pdfPageCount(encode('%PDF-1.7\n2 0 obj << /Type /Pages /Count 999999999 >> endobj'))).toBeUndefined();
    expect(() => pdfPageCount(new Uint8Array(10_000).fill(0xff))).not.toThrow();
  });

  it('reads at most MAX_PDF_SCAN_BYTES of a huge file: its start and its end', () => {
    const middle = MAX_PDF_SCAN_BYTES;
    const huge = new Uint8Array(middle * 2).fill(0x20);
    huge.set(encode('%PDF-1.7\n'), 0);
    huge.set(encode('2 0 obj << /Type /Pages /Count 9 >> endobj'), middle);
    // the tree in the middle is not read; one written at the end (an incremental update) is
    expect(pdfPageCount(huge)).toBeUndefined();
    huge.set(encode('7 0 obj << /Type /Pages /Count 11 >> endobj'), huge.length - 100);
    expect(pdfPageCount(huge)).toBe(11);
  });
});
