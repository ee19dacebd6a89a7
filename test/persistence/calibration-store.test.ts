/**
 * The calibration ratio an instance learns from the provider's usage is kept in a shared store, so an instance that
 * starts later (a new server, an edge function's new isolate) counts its first calls as the provider does instead of
 * with a ratio of 1: with the UTF-8 bytes counter (the edge default) a first call no longer compresses a prompt that
 * is four times smaller than the bytes say.
 */
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { compressionReport, withContextCompression } from '../../adapters/ai-sdk/index.js';
import { utf8BytesCounter } from '../../src/counting/utf8-bytes-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import { SYSTEM, text } from '../helpers/fixtures.js';
import { textResult } from '../helpers/mock-model.js';

const WINDOW = 8_000;
let serial = 0;
/** A chat of `count` messages of about 300 bytes each. */
const chatOf = (count: number) =>
  Array.from({ length: count }, (_, index) =>
    text(index % 2 ? 'assistant' : 'user', `m${serial++} ${'a few words of the chat '.repeat(12)}`),
  );

const engineOf = (store: StateStore | undefined, options: CompressionOptions = {}) =>
  new CompressionEngine({
    contextWindow: WINDOW,
    reserveOutputTokens: 0,
    tokenCounter: utf8BytesCounter(),
    ...(store ? { store } : {}),
    ...options,
  });

const call = (engine: CompressionEngine, messages = chatOf(24), modelId = 'm') =>
  engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId });

/** Whether a calibration ratio was written to the store. */
const calibrationWritten = (writes: { mock: { calls: unknown[][] } }) =>
  writes.mock.calls.some(([key]) => String(key).includes('calibration:'));

/** An instance that learned, from five responses, that the provider counts a quarter of the bytes. */
async function warmInstance(store: ReturnType<typeof memoryStateStore>) {
  const writes = vi.spyOn(store, 'set');
  const engine = engineOf(store);
  await call(engine);
  for (let response = 0; response < 5; response++) engine.recordUsage('m', 4_000, 1_000);
  await vi.waitFor(() => expect(calibrationWritten(writes)).toBe(true));
  writes.mockRestore();
  return engine;
}

describe('calibration kept in a shared store', () => {
  it('a new instance starts from the ratio another learned: its first call is counted as the provider counts', async () => {
    const store = memoryStateStore();
    const warm = await warmInstance(store);
    expect(warm.calibration.ratio('m')).toBeCloseTo(0.25, 5);

    const cold = engineOf(store);
    const history = chatOf(24); // ~7,200 bytes: over 70% of the window in bytes, about 1,800 tokens
    const seeded = await call(cold, history);
    expect(cold.calibration.ratio('m')).toBeCloseTo(0.25, 5);
    expect(seeded.event).toBeUndefined();
    expect(seeded.messages.length).toBe(history.length);

    // the same call on an instance with no shared store folds: it takes bytes for tokens
    const alone = await call(engineOf(undefined), history);
    expect(alone.event?.messagesFolded).toBeGreaterThan(0);
  });

  it("the new instance's own responses go on the running mean: the stored ratio counts as the responses it came from", async () => {
    const store = memoryStateStore();
    await warmInstance(store);
    const cold = engineOf(store);
    await call(cold);
    cold.recordUsage('m', 4_000, 2_000); // this provider counts half the bytes
    expect(cold.calibration.ratio('m')).toBeGreaterThan(0.25);
    expect(cold.calibration.ratio('m')).toBeLessThan(0.4);
  });

  it('is kept per counter and per model: another model, or another counter, starts from 1', async () => {
    const store = memoryStateStore();
    await warmInstance(store);
    const otherModel = engineOf(store);
    await call(otherModel, chatOf(4), 'other');
    expect(otherModel.calibration.ratio('other')).toBe(1);
    const otherCounter = engineOf(store, {
      tokenCounter: { name: 'words', count: (value) => value.split(' ').length },
    });
    await call(otherCounter, chatOf(4));
    expect(otherCounter.calibration.ratio('m')).toBe(1);
  });

  it('an instance that saw a response of its own keeps its ratio; the store is read once per model', async () => {
    const store = memoryStateStore();
    await warmInstance(store);
    const reads = vi.spyOn(store, 'get');
    const engine = engineOf(store);
    engine.recordUsage('m', 4_000, 2_000);
    await call(engine);
    await call(engine);
    expect(engine.calibration.ratio('m')).toBeCloseTo(0.5, 5);
    const calibrationReads = reads.mock.calls.filter(([key]) => key.includes('calibration:'));
    expect(calibrationReads).toHaveLength(1);
  });

  it('writes again only when the ratio moved, and a value it did not write reads as nothing learned', async () => {
    const store = memoryStateStore();
    const writes = vi.spyOn(store, 'set');
    const engine = engineOf(store);
    await call(engine);
    for (let response = 0; response < 10; response++) engine.recordUsage('m', 4_000, 1_000);
    await vi.waitFor(() => expect(calibrationWritten(writes)).toBe(true));
    expect(writes.mock.calls.filter(([key]) => key.includes('calibration:'))).toHaveLength(1);

    const key = writes.mock.calls.find(([written]) => written.includes('calibration:'))?.[0] ?? '';
    expect(key).not.toBe('');
    await store.set(key, { ratio: 'a quarter' });
    const cold = engineOf(store);
    await call(cold);
    expect(cold.calibration.ratio('m')).toBe(1);
  });

  it('a store that fails costs the call nothing: the ratio starts from 1 and the failure goes to onError', async () => {
    const onError = vi.fn();
    const failing: StateStore = {
      get: async () => {
        throw new Error('down');
      },
      set: async () => {
        throw new Error('down');
      },
    };
    const engine = engineOf(failing, { onError });
    const output = await call(engine, chatOf(4));
    expect(output.messages.length).toBe(4);
    engine.recordUsage('m', 4_000, 1_000);
    await vi.waitFor(() => expect(onError.mock.calls.length).toBeGreaterThan(1));
    expect(engine.calibration.ratio('m')).toBeCloseTo(0.25, 5);
  });
});

describe('calibration kept in a shared store, through the AI SDK adapter', () => {
  /** A model whose provider counts a quarter of the prompt's UTF-8 bytes, as usage reports say. */
  const quarterOfBytes = () =>
    new MockLanguageModelV4({
      modelId: 'mock-model',
      doGenerate: async ({ prompt }) =>
        textResult('ok', { inputTokens: Math.round(new TextEncoder().encode(JSON.stringify(prompt)).length / 4) }),
    });
  const wrap = (store: StateStore) =>
    withContextCompression(quarterOfBytes(), {
      contextWindow: WINDOW,
      reserveOutputTokens: 0,
      tokenCounter: utf8BytesCounter(),
      store,
    });
  const messagesOf = (count: number): ModelMessage[] =>
    chatOf(count).map((message) => ({
      role: message.role as 'user' | 'assistant',
      content: (message.parts[0] as { text: string }).text,
    }));

  it("a second server's first call folds nothing the provider's count does not ask for", async () => {
    const store = memoryStateStore();
    const writes = vi.spyOn(store, 'set');
    const first = wrap(store);
    for (let turn = 1; turn <= 3; turn++) await generateText({ model: first, messages: messagesOf(2 * turn) });
    await vi.waitFor(() => expect(calibrationWritten(writes)).toBe(true));

    const history = messagesOf(24); // over 70% of the window in bytes, a quarter of that in the provider's tokens
    const second = await generateText({ model: wrap(store), messages: history });
    expect(compressionReport(second)?.messagesOutOfPrompt).toBe(0);
    const alone = await generateText({ model: wrap(memoryStateStore()), messages: history });
    expect(compressionReport(alone)?.messagesOutOfPrompt).toBeGreaterThan(0);
  });
});
