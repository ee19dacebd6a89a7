import { InMemoryStore } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { eraseStoredState } from '../../src/persistence/erase.js';
import type { StateStore } from '../../src/persistence/state-store.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { langgraphStore } from '../../src/stores/langgraph-store.js';
import type { Message } from '../../src/transcript/transcript.js';
import { SYSTEM } from '../helpers/fixtures.js';
import { describeStoreSuite } from './store-suite.js';

const NAMESPACE = ['context-compression'];

describeStoreSuite(
  'langgraphStore (InMemoryStore)',
  async () => {
    const base = new InMemoryStore();
    return {
      store: langgraphStore(base),
      corrupt: async (key) => {
        await base.put(NAMESPACE, key, { version: 3, state: 'not what the store writes' });
      },
      close: async () => {},
    };
  },
  { atomic: false },
);

describe('langgraphStore', () => {
  it('keeps two namespaces of one BaseStore apart, and leaves their items to each other on deletePrefix', async () => {
    const base = new InMemoryStore();
    const first = langgraphStore(base, { namespace: ['cc', 'first'] });
    const second = langgraphStore(base, { namespace: ['cc', 'second'] });
    const parent = langgraphStore(base, { namespace: ['cc'] });
    await first.set('cc:k', { from: 'first' });
    await second.set('cc:k', { from: 'second' });
    expect(await first.get('cc:k')).toEqual({ from: 'first' });
    expect(await second.get('cc:k')).toEqual({ from: 'second' });
    expect(await parent.get('cc:k')).toBeUndefined();
    // `search(['cc'])` lists the sub-namespaces' items too: the parent must not delete them
    expect(await parent.deletePrefix('cc:')).toBe(0);
    expect(await first.deletePrefix('cc:')).toBe(1);
    expect(await first.get('cc:k')).toBeUndefined();
    expect(await second.get('cc:k')).toEqual({ from: 'second' });
  });

  it('writes { v: JSON text, e } items, unindexed, and reads an expired one as absent, removing it', async () => {
    const base = new InMemoryStore();
    const put = vi.spyOn(base, 'put');
    let clock = 1_000;
    const store = langgraphStore(base, { now: () => clock });
    const value = { text: 'nul \u0000, lone \ud800, 🚀', n: 1.5, nothing: null };
    await store.set('a', value, { ttlMs: 50 });
    await store.set('b', value);
    expect(put).toHaveBeenCalledWith(NAMESPACE, 'a', { v: JSON.stringify(value), e: 1_050 }, false);
    expect((await base.get(NAMESPACE, 'b'))?.value).toEqual({ v: JSON.stringify(value) });
    expect(JSON.stringify(value)).not.toContain('\u0000');
    expect(await store.get('a')).toEqual(value);
    clock = 1_050;
    expect(await store.get('a')).toBeUndefined();
    expect(await base.get(NAMESPACE, 'a')).toBeNull();
    expect(await store.get('b')).toEqual(value);
  });

  it('rejects an item whose v is not JSON, and a value JSON cannot hold', async () => {
    const base = new InMemoryStore();
    const store = langgraphStore(base);
    await base.put(NAMESPACE, 'cut', { v: '{"version": 3, "cut off' });
    await expect(store.get('cut')).rejects.toThrow(TypeError);
    await base.put(NAMESPACE, 'expiry', { v: '1', e: 'tomorrow' });
    await expect(store.get('expiry')).rejects.toThrow(/not written by this store/);
    await expect(store.set('undefined', undefined)).rejects.toThrow(/not JSON-serializable/);
  });

  it('deletes by prefix across more than one search page', async () => {
    const base = new InMemoryStore();
    const search = vi.spyOn(base, 'search');
    const store = langgraphStore(base);
    await Promise.all(Array.from({ length: 250 }, (_, index) => store.set(`p:${index}`, index)));
    await Promise.all(Array.from({ length: 60 }, (_, index) => store.set(`q:${index}`, index)));
    expect(await store.deletePrefix('p:')).toBe(250);
    expect(search).toHaveBeenCalledTimes(4); // 310 items: pages of 100, 100, 100 and 10
    expect(await store.get('p:199')).toBeUndefined();
    expect(await store.get('q:59')).toBe(59);
    expect(await store.deletePrefix('q:')).toBe(60);
  });

  it('refuses what is not a BaseStore, and a namespace LangGraph would refuse', () => {
    expect(() => langgraphStore({} as never)).toThrow(/pass a LangGraph BaseStore/);
    const base = new InMemoryStore();
    for (const namespace of [[], ['a.b'], ['a:b'], [''], ['langgraph'], 'cc'] as never[]) {
      expect(() => langgraphStore(base, { namespace })).toThrow(TypeError);
    }
  });
});

describe('langgraphStore under the engine', () => {
  const history = (turns: number): Message[] =>
    Array.from({ length: turns * 2 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      parts: [{ type: 'text', text: `Turn ${index}: ${'a detail worth keeping '.repeat(30)}` }],
    }));
  const summarize = () =>
    vi.fn(
      async (): Promise<SessionState> => ({
        logos: ['the details were kept'],
        pathos: [],
        abstract: [],
        conversationSummary: 'Earlier turns were condensed.',
      }),
    );
  const engineOn = (store: StateStore, summarizer: ReturnType<typeof summarize>, errors: CompressionErrorEvent[]) =>
    new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      store,
      summarizer,
      namespace: 'app',
      onError: (event) => errors.push(event),
    });
  const call = (engine: CompressionEngine, messages: readonly Message[]) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });

  it('a second engine on the same BaseStore finds the state the first one made, with no summarizer call', async () => {
    const base = new InMemoryStore();
    const store = langgraphStore(base);
    const errors: CompressionErrorEvent[] = [];
    const firstSummarizer = summarize();
    const secondSummarizer = summarize();
    const messages = history(30);
    const made = await call(engineOn(store, firstSummarizer, errors), messages);
    expect(made.event?.messagesFolded).toBeGreaterThan(0);
    expect(firstSummarizer).toHaveBeenCalled();
    const again = await call(engineOn(store, secondSummarizer, errors), messages);
    expect(again.event?.messagesFolded ?? 0).toBe(0);
    expect(again.event?.reusedState ?? true).toBe(true);
    expect(secondSummarizer).not.toHaveBeenCalled();
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(made.messages));
    expect(errors).toEqual([]);
    // and eraseStoredState empties the namespace through deletePrefix
    expect(await eraseStoredState(store, { namespace: 'app' })).toBeGreaterThan(0);
    expect(await base.search(NAMESPACE, { limit: 100 })).toEqual([]);
  });
});
