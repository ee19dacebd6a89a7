import { describe, expect, it } from 'vitest';
import { sameValue } from '../../src/transcript/same-message.js';
import { CIRCULAR_PLACEHOLDER, jsonSafe, stableStringify } from '../../src/transcript/transcript.js';

describe('stableStringify', () => {
  it('gives the same text as before for plain data: keys sorted, arrays and bytes in order', () => {
    const shared = { z: 1, a: [2, 3] };
    expect(stableStringify({ b: shared, a: shared, d: new Date(0), u: new Uint8Array([1, 2]) })).toBe(
      '{"a":{"a":[2,3],"z":1},"b":{"a":[2,3],"z":1},"d":"1970-01-01T00:00:00.000Z","u":{"0":1,"1":2}}',
    );
    expect(stableStringify('text')).toBe('text');
    expect(stableStringify(undefined)).toBe('');
    expect(stableStringify(null)).toBe('null');
  });

  it('never throws: a cycle reads as a placeholder, a BigInt as its decimal string', () => {
    const value: Record<string, unknown> = { b: 10n, a: [1] };
    (value.a as unknown[]).push(value);
    value.self = value;
    expect(stableStringify(value)).toBe(
      `{"a":[1,"${CIRCULAR_PLACEHOLDER}"],"b":"10","self":"${CIRCULAR_PLACEHOLDER}"}`,
    );
    expect(stableStringify(10n)).toBe('"10"');
  });
});

describe('jsonSafe', () => {
  it('returns plain data itself, and a plain copy of anything JSON.stringify rejects', () => {
    const plain = { city: 'Berlin', tags: ['a'] };
    expect(jsonSafe(plain)).toBe(plain);
    const circular: Record<string, unknown> = { city: 'Berlin' };
    circular.self = circular;
    expect(jsonSafe(circular)).toEqual({ city: 'Berlin', self: CIRCULAR_PLACEHOLDER });
    expect(circular.self).toBe(circular);
    expect(jsonSafe({ id: 10n })).toEqual({ id: '10' });
    expect(jsonSafe(10n)).toBe('10');
  });
});

describe('sameValue on cyclic values', () => {
  it('two different cyclic objects of one shape compare as different instead of overflowing the stack', () => {
    const a: Record<string, unknown> = { name: 'x' };
    a.self = a;
    const b: Record<string, unknown> = { name: 'x' };
    b.self = b;
    expect(sameValue(a, b)).toBe(false);
    expect(sameValue(a, a)).toBe(true);
    expect(sameValue({ deep: [{ x: 1 }] }, { deep: [{ x: 1 }] })).toBe(true);
  });
});
