import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  approximateCounter,
  memoryStateStore,
  type SessionState,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../../adapters/ai-sdk/to-transcript.js';
import { hashBytes } from '../../../src/counting/hash.js';
import { echoModel } from '../../helpers/mock-model.js';

const MEGABYTE = 1024 * 1024;

/** Two 1 MB images equal but for byte 1, which the old 4,096-byte sampler (every 256th byte here) never read. */
function twoImages(): [Uint8Array, Uint8Array] {
  const first = new Uint8Array(MEGABYTE);
  for (let index = 0; index < first.length; index++) first[index] = (index * 31) & 0xff;
  const second = first.slice();
  second[1] = (second[1] as number) ^ 0xff;
  return [first, second];
}

const fingerprintOf = (data: Uint8Array) => {
  const prompt: LanguageModelV4Prompt = [
    { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data } }] },
  ];
  const part = toTranscript(prompt, undefined).messages[0]?.parts[0];
  return part?.type === 'file' ? part.fingerprint : undefined;
};

describe('file fingerprints cover every byte', () => {
  it('hashBytes tells apart arrays that differ in one byte anywhere, or only in length', () => {
    const [first, second] = twoImages();
    expect(hashBytes(first)).not.toBe(hashBytes(second));
    expect(hashBytes(first)).toBe(hashBytes(first.slice()));
    expect(hashBytes(new Uint8Array([1, 2, 3]))).not.toBe(hashBytes(new Uint8Array([1, 2, 3, 0])));
    // a view into a larger buffer hashes its own bytes only
    const buffer = new Uint8Array([9, 1, 2, 3, 9]);
    expect(hashBytes(buffer.subarray(1, 4))).toBe(hashBytes(new Uint8Array([1, 2, 3])));
  });

  it('two 1 MB images differing in one skipped byte get different fingerprints', () => {
    const [first, second] = twoImages();
    expect(fingerprintOf(first)).not.toBe(fingerprintOf(second));
    expect(fingerprintOf(first)).toBe(fingerprintOf(first.slice()));
  });

  it('a second conversation with the other image does not reuse the first one’s stored state', async () => {
    const store = memoryStateStore();
    const summarized: string[] = [];
    const model = withContextCompression(echoModel(), {
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      store,
      summarizer: async ({ messages }): Promise<SessionState> => {
        summarized.push(`${messages.length} messages`);
        return { logos: [`fact ${summarized.length}`], pathos: [], abstract: [], conversationSummary: 'Images.' };
      },
    });
    const conversation = (image: Uint8Array): ModelMessage[] => [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'file', mediaType: 'image/png', data: image },
        ],
      },
      ...Array.from(
        { length: 30 },
        (_, index): ModelMessage =>
          index % 2 === 0
            ? { role: 'assistant', content: `Answer ${index}. ${'details '.repeat(40)}` }
            : { role: 'user', content: `Question ${index}. ${'details '.repeat(40)}` },
      ),
    ];
    const [first, second] = twoImages();
    await generateText({ model, messages: conversation(first) });
    expect(summarized).toHaveLength(1);
    await generateText({ model, messages: conversation(second) });
    expect(summarized).toHaveLength(2);
  });
});
