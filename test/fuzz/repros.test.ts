/**
 * The recorded call sequences of `../shared/repros/` (histories that once broke a promise), replayed through the AI
 * SDK adapter with `onBrokenPromise: 'throw'`: every prompt begins with the previous one unless that call reported a
 * compression, and no recall block leaves the prompt and comes back. They are examples of a class; the property
 * `call sequences` in `properties.ts` generates the class. Skipped when `../shared` is not beside the checkout.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { memoryStateStore, withContextCompression } from '../../adapters/ai-sdk/index.js';
import { approximateCounter, type CompressionOptions, type SessionState } from '../../src/index.js';
import { jsonStore, NO_USAGE } from './harness.js';

const dir = [resolve(process.cwd(), '../shared/repros'), resolve(import.meta.dirname, '../../../shared/repros')].find(
  (candidate) => existsSync(candidate),
);
if (!dir) console.log('repros: ../shared/repros is not beside this checkout; the recorded sequences are skipped');
const files = dir ? readdirSync(dir).filter((name) => name.endsWith('.json')) : [];

interface Repro {
  readonly options: CompressionOptions;
  readonly summarizer: 'extractive' | string;
  readonly summarizerOutput: SessionState | null;
  readonly store: 'memory' | 'json-text';
  readonly tokenCounter: 'approximateCounter' | 'default';
  readonly via: 'doGenerate' | 'doStream';
  readonly calls: readonly { prompt: LanguageModelV4Prompt; tools?: unknown; providerOptions?: unknown }[];
}

const STREAM: LanguageModelV4StreamPart[] = [
  { type: 'text-start', id: '1' },
  { type: 'text-delta', id: '1', delta: 'ok' },
  { type: 'text-end', id: '1' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: NO_USAGE },
];

/** Replays a recording; returns each prompt the model received and whether its call reported a compression. */
async function replay(repro: Repro): Promise<{ prompt: LanguageModelV4Prompt; compressed: boolean }[]> {
  const prompts: LanguageModelV4Prompt[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      return {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: NO_USAGE,
        warnings: [],
      };
    },
    doStream: async ({ prompt }) => {
      prompts.push(prompt);
      return { stream: simulateReadableStream({ chunks: STREAM }) };
    },
  });
  let compressed = false;
  const output = repro.summarizerOutput;
  const wrapped = withContextCompression(model, {
    ...repro.options,
    ...(repro.tokenCounter === 'approximateCounter' ? { tokenCounter: approximateCounter() } : {}),
    store: repro.store === 'json-text' ? jsonStore() : memoryStateStore(),
    ...(repro.summarizer !== 'extractive' && output ? { summarizer: async () => structuredClone(output) } : {}),
    onBrokenPromise: 'throw',
    onCompress: () => {
      compressed = true;
    },
  });
  const sent: { prompt: LanguageModelV4Prompt; compressed: boolean }[] = [];
  for (const call of repro.calls) {
    compressed = false;
    const params = { prompt: call.prompt, tools: call.tools, providerOptions: call.providerOptions } as Parameters<
      typeof wrapped.doGenerate
    >[0];
    if (repro.via === 'doStream') {
      const reader = (await wrapped.doStream(params)).stream.getReader();
      while (!(await reader.read()).done);
    } else await wrapped.doGenerate(params);
    sent.push({ prompt: prompts.at(-1) as LanguageModelV4Prompt, compressed });
  }
  return sent;
}

const blocksOf = (prompt: LanguageModelV4Prompt) =>
  prompt
    .filter((message) => JSON.stringify(message).includes('<recalled_messages>'))
    .map((message) => JSON.stringify(message));

describe.skipIf(!dir)('the recorded sequences that once broke a promise', () => {
  for (const file of files) {
    it(`${file}: every prompt begins with the previous one or reports a compression; no recall block flips`, async () => {
      const repro = JSON.parse(readFileSync(resolve(dir as string, file), 'utf8')) as Repro;
      const sent = await replay(repro);
      expect(sent).toHaveLength(repro.calls.length);
      for (let index = 1; index < sent.length; index++) {
        const { prompt, compressed } = sent[index] as (typeof sent)[number];
        const before = (sent[index - 1] as (typeof sent)[number]).prompt;
        if (!compressed)
          expect(prompt.slice(0, before.length).map((message) => JSON.stringify(message))).toEqual(
            before.map((message) => JSON.stringify(message)),
          );
      }
      const blocks = sent.map(({ prompt }) => new Set(blocksOf(prompt)));
      for (let index = 0; index + 2 < blocks.length; index++)
        for (const block of blocks[index] as Set<string>)
          if (!blocks[index + 1]?.has(block))
            expect(blocks.slice(index + 2).some((later) => later.has(block))).toBe(false);
    }, 60_000);
  }
});
