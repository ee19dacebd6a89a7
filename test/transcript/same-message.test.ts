import { describe, expect, it } from 'vitest';
import { sameMessage, sameValue } from '../../src/transcript/same-message.js';
import type { Message } from '../../src/transcript/transcript.js';

const call = (args: unknown): Message => ({
  role: 'assistant',
  parts: [
    { type: 'text', text: 'Reading it.' },
    { type: 'tool-call', id: 'c1', name: 'read', args },
  ],
});
const result = (output: string, extra: object = {}): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: 'c1', name: 'read', output, ...extra }],
});

describe('sameValue', () => {
  it.each([
    ['equal nested objects, other key order', { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }, true],
    ['a differing leaf', { a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 3] } }, false],
    ['an extra key', { a: 1 }, { a: 1, b: 2 }, false],
    ['a key holding undefined, as its JSON: absent', { a: 1 }, { a: 1, b: undefined }, true],
    ['undefined against a value', { a: 1, b: undefined }, { a: 1, b: null }, false],
    ['a key missing on the other side', { a: 1, b: 2 }, { a: 1, c: 2 }, false],
    [
      'a class instance against an equal plain object',
      new URL('https://a.example/'),
      { href: 'https://a.example/' },
      false,
    ],
    ['a null-prototype object against a plain one', Object.assign(Object.create(null), { a: 1 }), { a: 1 }, false],
    ['array against object', [1], { 0: 1 }, false],
    ['equal bytes', new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]), true],
    ['bytes differing in one byte', new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]), false],
    ['bytes against an array', new Uint8Array([1]), [1], false],
    ['null against an object', null, {}, false],
  ])('%s', (_name, a, b, expected) => {
    expect(sameValue(a, b)).toBe(expected);
  });
});

describe('sameMessage', () => {
  it('holds for a JSON round trip of a message', () => {
    const message = call({ path: 'src/a.ts', options: { lines: [1, 20] } });
    expect(sameMessage(message, JSON.parse(JSON.stringify(message)))).toBe(true);
  });

  it('ignores what only the framework reads', () => {
    const a: Message = { ...result('file body'), original: { providerOptions: { x: 1 } } };
    const b: Message = { ...result('file body'), original: { providerOptions: { x: 2 } } };
    expect(sameMessage(a, b)).toBe(true);
  });

  it.each([
    ['another output', result('file body'), result('file body!')],
    ['an error flag', result('file body'), result('file body', { isError: true })],
    ['other arguments', call({ path: 'src/a.ts' }), call({ path: 'src/b.ts' })],
    [
      'another role',
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'hi' }] },
    ],
    ['another id', { role: 'user', id: '1', parts: [] }, { role: 'user', id: '2', parts: [] }],
    [
      'a missing part',
      call({ path: 'src/a.ts' }),
      { role: 'assistant', parts: [{ type: 'text', text: 'Reading it.' }] },
    ],
  ] as Array<[string, Message, Message]>)('tells apart messages with %s', (_name, a, b) => {
    expect(sameMessage(a, b)).toBe(false);
  });
});

describe('sameValue on objects that are not plain data', () => {
  it('holds a URL or a class instance equal only to itself', () => {
    const url = new URL('https://example.com/a.png');
    expect(sameValue(url, url)).toBe(true);
    expect(sameValue(url, new URL('https://example.com/b.png'))).toBe(false);
    expect(sameValue(new Date(0), new Date(0))).toBe(false);
  });
});
