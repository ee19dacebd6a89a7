import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { utf8BytesCounter } from '../../src/counting/utf8-bytes-counter.js';

const counter = utf8BytesCounter();

describe('utf8BytesCounter', () => {
  it('never counts fewer tokens than o200k, on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        expect(counter.count(text)).toBeGreaterThanOrEqual(countTokens(text, { disallowedSpecial: new Set() }));
      }),
      { numRuns: 300 },
    );
    for (const text of ['日本語のテキスト', '😀😀😀', 'QUJDREVGR0g=', 'plain English words', '<|endoftext|>'])
      expect(counter.count(text)).toBeGreaterThanOrEqual(countTokens(text, { disallowedSpecial: new Set() }));
  });

  it('counts UTF-8 bytes, and says it bounds the count', () => {
    expect(counter.count('abc')).toBe(3);
    expect(counter.count('é')).toBe(2);
    expect(counter.count('日本')).toBe(6);
    expect(counter.bytesBound).toBe(true);
    expect(counter.name).toBe('utf8-bytes');
  });
});
