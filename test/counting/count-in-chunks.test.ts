import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it, vi } from 'vitest';
import { fixturesDir, readSessions } from '../../examples/lib/session-file.js';
import { CHUNK_CHARS, countInChunks, MAX_RUN_CHARS, pieces } from '../../src/counting/count-in-chunks.js';
import { gptTokenizerCounter } from '../../src/counting/gpt-tokenizer-counter.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import type { TokenCounter } from '../../src/counting/token-counter.js';
import type { Message } from '../../src/transcript/transcript.js';

const PLAIN = { disallowedSpecial: new Set<string>() };
const exact = (text: string) => countTokens(text, PLAIN);
const longestRun = (text: string) => Math.max(0, ...(text.match(/\S+/g) ?? []).map((run) => run.length));
/** Every message text of the shared fixtures, none when they are not beside the checkout. */
function fixtureTexts(): string[] {
  const dir = fixturesDir();
  if (!dir) return [];
  return ['trajectories.jsonl', 'conversations.jsonl'].flatMap((file) =>
    readSessions(resolve(dir, file)).flatMap((session) => session.messages.map((message) => message.content)),
  );
}
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Deterministic pathological texts of `length` characters. */
function pathological(length: number) {
  let seed = 1;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const fill = (alphabet: string) =>
    Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  return {
    cjk: fill('的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后'),
    base64: fill('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'),
    hex: fill('0123456789abcdef'),
    repeated: 'a'.repeat(length),
    emoji: '😀🎉👍'.repeat(Math.ceil(length / 6)).slice(0, length),
  };
}

describe('countInChunks', () => {
  it.each(Object.entries(pathological(20_000)))(
    'hands the counter no run without whitespace longer than MAX_RUN_CHARS (%s)',
    (_name, text) => {
      const countPiece = vi.fn((piece: string) => piece.length);
      expect(countInChunks(text, countPiece)).toBe(text.length);
      for (const [piece] of countPiece.mock.calls) {
        expect(longestRun(piece)).toBeLessThanOrEqual(MAX_RUN_CHARS);
        expect(piece.length).toBeLessThanOrEqual(CHUNK_CHARS);
        expect(piece).not.toMatch(LONE_SURROGATE);
      }
    },
  );

  it('gives the text back when its pieces are joined, surrogate pairs never parted', () => {
    const texts = [
      ...Object.values(pathological(9_000)),
      `x${'😀'.repeat(3_000)}`,
      `${'word '.repeat(2_000)}${'東'.repeat(1_000)} tail`,
      'short',
      '',
    ];
    for (const text of texts) {
      const parts = [...pieces(text)];
      expect(parts.join('')).toBe(text);
      for (const part of parts) expect(part).not.toMatch(LONE_SURROGATE);
    }
  });

  it('counts prose and code without long runs in one piece per chunk, exactly as whole', () => {
    const prose = 'The deploy pipeline reads src/config/app.ts, then retries 3 times.\n\tconst x = f(a, b);\n'.repeat(
      40,
    );
    expect(prose.length).toBeLessThan(CHUNK_CHARS);
    expect([...pieces(prose)]).toEqual([prose]);
    expect(countInChunks(prose, exact)).toBe(exact(prose));
  });

  it('cuts a long path or URL just before a separator, where the pre-tokenizer splits anyway', () => {
    const url = `https://example.com/${Array.from({ length: 40 }, (_, index) => `segment${index}`).join('/')}`;
    const parts = [...pieces(url)];
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts.slice(1)) expect(part.startsWith('/')).toBe(true);
    expect(countInChunks(url, exact)).toBe(exact(url));
  });

  it('stays within 0.5% of the whole count on pathological text', () => {
    for (const text of Object.values(pathological(6_000))) {
      const whole = exact(text);
      expect(Math.abs(countInChunks(text, exact) - whole)).toBeLessThanOrEqual(Math.ceil(whole * 0.005));
    }
  });

  const texts = fixtureTexts();
  it.skipIf(texts.length === 0)('stays within 0.05% of the whole count on the fixture texts', () => {
    let whole = 0;
    let inPieces = 0;
    for (const text of texts) {
      whole += exact(text);
      inPieces += countInChunks(text, exact);
    }
    expect(Math.abs(inPieces - whole) / whole).toBeLessThan(0.0005);
  });
});

describe.each([
  ['gptTokenizerCounter', gptTokenizerCounter],
  ['tiktokenCounter', tiktokenCounter],
])('%s on pathological text', (_name, create) => {
  const counter = create();

  it.each(Object.entries(pathological(12_000)))('counts the bounded pieces (%s)', (_kind, text) => {
    let sum = 0;
    for (const piece of pieces(text)) sum += counter.count(piece);
    expect(counter.count(text)).toBe(sum);
  });
});

describe('tiktokenCounter', () => {
  it('never hands tiktoken a run without whitespace longer than MAX_RUN_CHARS', () => {
    const { Tiktoken } = createRequire(import.meta.url)('tiktoken') as {
      Tiktoken: { prototype: { encode(text: string, ...rest: unknown[]): Uint32Array } };
    };
    const encode = vi.spyOn(Tiktoken.prototype, 'encode');
    try {
      tiktokenCounter().count(pathological(50_000).cjk);
      expect(encode.mock.calls.length).toBeGreaterThan(50_000 / MAX_RUN_CHARS);
      for (const [text] of encode.mock.calls) expect(longestRun(text)).toBeLessThanOrEqual(MAX_RUN_CHARS);
    } finally {
      encode.mockRestore();
    }
  });
});

describe('MessageMeter on a huge text', () => {
  it('counts it once, whatever the objects and string instances it arrives in', () => {
    const count = vi.fn((text: string) => text.length);
    const counter: TokenCounter = { name: 'spy', count };
    const meter = new MessageMeter(counter);
    const huge = () => '東京'.repeat(100_000); // a new string instance on every call
    const result = (): Message => ({
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', name: 'read', output: huge() }],
    });
    const first = meter.measure(result());
    for (let call = 0; call < 3; call++) {
      expect(meter.measure(result())).toEqual(first);
      expect(meter.countText(huge())).toBe(200_000);
    }
    expect(count).toHaveBeenCalledTimes(1);
  });
});
