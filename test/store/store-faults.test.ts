import { HumanMessage } from '@langchain/core/messages';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import { compressMessages } from '../../adapters/langchain/index.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError, ListenerError, StoreError } from '../../src/errors.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';
import { chat, chatModelMessages, setup, text } from '../helpers/fixtures.js';
import { echoModel } from '../helpers/mock-model.js';

const failing = (operation: 'get' | 'set' | 'both'): StateStore => ({
  get: async (key) => {
    if (operation !== 'set') throw new Error(`get ${key.slice(0, 5)} refused`);
    return undefined;
  },
  set: async () => {
    if (operation !== 'get') throw new Error('disk full');
  },
});
const hanging: StateStore = { get: () => new Promise(() => {}), set: () => new Promise(() => {}) };

/** A history long enough to fold at the fixtures' 4k window. */
const long = (): Message[] => [...chat(60), text('user', 'And now?')];

describe('a store that fails never fails the call', () => {
  it.each([
    ['get throws', failing('get'), 'get', 'threw'],
    ['set throws', failing('set'), 'set', 'threw'],
  ] as const)(
    '%s: the call compresses as without a store and onError hears of it',
    async (_name, store, operation, reason) => {
      const { run, errors, summarize } = setup({ store });
      const out = await run(long());
      expect(summarize).toHaveBeenCalled();
      expect(out.messages.some((message) => message.synthetic === 'session-state')).toBe(true);
      const failures = errors.filter((event) => StoreError.isInstance(event.error));
      expect(failures.length).toBeGreaterThan(0);
      expect(failures[0]).toMatchObject({ fallback: 'without-store', error: { operation, reason } });
      expect((failures[0]?.error as StoreError | undefined)?.cause).toBeInstanceOf(Error);
    },
  );

  it('a store that never answers costs at most its timeout per operation', async () => {
    const { run, errors } = setup({ store: hanging, storeTimeoutMs: 30 });
    const started = performance.now();
    const out = await run(long());
    expect(out.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(errors.some((event) => StoreError.isInstance(event.error) && event.error.reason === 'timeout')).toBe(true);
    expect(performance.now() - started).toBeLessThan(10_000); // generous: the point is that it returns at all
  });

  it('a call waits for a hanging store once: after a timeout the store is left alone for a while', async () => {
    let operations = 0;
    const store: StateStore = {
      get: () => {
        operations++;
        return new Promise(() => {});
      },
      set: () => {
        operations++;
        return new Promise(() => {});
      },
    };
    const { run, errors } = setup({ store, storeTimeoutMs: 30 });
    await run(long());
    await run([...long(), text('assistant', 'ok'), text('user', 'More?')]);
    expect(operations).toBe(1);
    expect(errors.filter((event) => StoreError.isInstance(event.error))).toHaveLength(1);
  });

  it("an index that could not be read is not written over: the conversation's earlier fold points stay found", async () => {
    const inner = memoryStateStore();
    let failIndexReads = 0;
    const store: StateStore = {
      get: async (key) => {
        if (key.includes(':index:') && failIndexReads > 0) {
          failIndexReads--;
          throw new Error('connection reset');
        }
        return inner.get(key);
      },
      set: (key, value, options) => inner.set(key, value, options),
    };
    const indexes = new Map<string, unknown>();
    const original = inner.set.bind(inner);
    inner.set = async (key, value, options) => {
      if (key.includes(':index:')) indexes.set(key, value);
      return original(key, value, options);
    };
    const { run, errors } = setup({ store });
    for (const turns of [60, 90]) await run([...chat(turns), text('user', 'And now?')]);
    const [indexKey, before] = [...indexes.entries()][0] as [string, Array<{ through: number }>];
    expect(before.length).toBeGreaterThan(1);
    // the next fold's index read fails (its save reads the index again, to add its point): the index stays
    failIndexReads = 2;
    await run([...chat(120), text('user', 'And now?')]);
    expect(errors.some((event) => StoreError.isInstance(event.error))).toBe(true);
    const after = (await inner.get(indexKey)) as Array<{ through: number }>;
    for (const cut of before) expect(after).toContainEqual(cut);
  });

  it('AI SDK: the model is called and answers with a store that throws', async () => {
    const errors: unknown[] = [];
    const mock = echoModel();
    const model = withContextCompression(mock, {
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      store: failing('both'),
      onError: (event) => errors.push(event.error),
    });
    const { text: answer } = await generateText({ model, messages: chatModelMessages(long()) });
    expect(answer.length).toBeGreaterThan(0);
    expect(mock.doGenerateCalls).toHaveLength(1);
    expect(errors.some((error) => StoreError.isInstance(error))).toBe(true);
  });

  it('LangChain: compressMessages returns the compressed messages with a store that throws', async () => {
    const errors: unknown[] = [];
    const out = await compressMessages({
      model: 'test-model',
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      store: failing('both'),
      onError: (event) => errors.push(event.error),
    }).invoke(long().map((message) => new HumanMessage(messageText(message))) as never);
    expect(out.length).toBeGreaterThan(0);
    expect(errors.some((error) => StoreError.isInstance(error))).toBe(true);
  });
});

describe('listeners that throw never fail the call', () => {
  it('onCompress: the error goes to onError and the call returns', async () => {
    const { run, errors } = setup({
      onCompress: () => {
        throw new Error('listener bug');
      },
    });
    const out = await run(long());
    expect(out.messages.some((message) => message.synthetic === 'session-state')).toBe(true);
    const failure = errors.find((event) => ListenerError.isInstance(event.error));
    expect(failure?.fallback).toBe('continued');
    expect(failure?.error.message).toContain('listener bug');
  });

  it('onError: swallowed, the call returns', async () => {
    const { run } = setup({
      store: failing('both'),
      onError: () => {
        throw new Error('error listener bug');
      },
    });
    await expect(run(long())).resolves.toMatchObject({ messages: expect.any(Array) });
  });
});

describe('timeouts a timer can hold', () => {
  it.each(['summarizerTimeoutMs', 'embedderTimeoutMs', 'storeTimeoutMs'])(
    'rejects %s at or past 2^31 ms (setTimeout would fire at once)',
    (option) => {
      expect(() => new CompressionEngine({ contextWindow: 4_000, [option]: 2 ** 31 })).toThrow(InvalidOptionError);
      expect(() => new CompressionEngine({ contextWindow: 4_000, [option]: 2 ** 31 - 1 })).not.toThrow();
    },
  );
});
