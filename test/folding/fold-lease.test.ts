import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { SummarizerError } from '../../src/errors.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import type { Message } from '../../src/transcript/transcript.js';
import { SYSTEM } from '../helpers/fixtures.js';
import { pairedCalls, sharedConversation, sharedState, stateMessageText } from '../helpers/shared-conversation.js';

/**
 * Engines that share a store (as instances of one service do) agree through a lease in the store on which of them
 * summarizes a fold: the store here is one memory store passed to every engine, so "instances" are engines; the same
 * runs across processes on Redis, PostgreSQL and SQLite in test/store/shared-instances.test.ts.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const conversation = sharedConversation;
const STATE = sharedState('the test');

function counting(delayMs: number, fail = 0) {
  const calls: SummarizeInput[] = [];
  let failures = fail;
  return {
    calls,
    summarizer: async (input: SummarizeInput) => {
      calls.push(input);
      await sleep(delayMs);
      if (failures > 0) {
        failures--;
        throw new Error('the summarizer model is down');
      }
      return STATE;
    },
  };
}

const engineOn = (store: StateStore, options: CompressionOptions & { errors?: CompressionErrorEvent[] } = {}) => {
  const { errors, ...rest } = options;
  return new CompressionEngine({
    contextWindow: 3_000,
    reserveOutputTokens: 500,
    tokenCounter: approximateCounter(),
    masking: false,
    triggers: { semantic: false },
    store,
    onError: (event) => errors?.push(event),
    ...rest,
  });
};
const call = (engine: CompressionEngine, messages: readonly Message[]) =>
  engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });

const paired = pairedCalls;
const stateText = stateMessageText;

describe('a fold lease in a shared store', () => {
  it('20 parallel requests on two instances: one summarizer call, one state in every prompt, all prompts valid', async () => {
    const store = memoryStateStore();
    const { calls, summarizer } = counting(300);
    const instances = [engineOn(store, { summarizer }), engineOn(store, { summarizer })];
    const outs = await Promise.all(
      Array.from({ length: 20 }, (_, index) => call(instances[index % 2] as CompressionEngine, conversation(index))),
    );
    expect(calls).toHaveLength(1);
    const states = new Set(outs.map((out) => stateText(out.messages)));
    expect(states.size).toBe(1);
    expect([...states][0]).toContain('Read the files of the cache layer');
    for (const out of outs) {
      expect(paired(out.messages)).toBe(true);
      expect(out.event?.messagesFolded).toBeGreaterThan(0);
    }
  });

  it('without the lease (foldLease: false) each instance summarizes on its own', async () => {
    const store = memoryStateStore();
    const { calls, summarizer } = counting(100);
    const instances = [
      engineOn(store, { summarizer, foldLease: false }),
      engineOn(store, { summarizer, foldLease: false }),
    ];
    await Promise.all(instances.map((engine, index) => call(engine, conversation(index))));
    expect(calls).toHaveLength(2);
  });

  it.each([
    ['below the hard limit: sent uncompressed', 3_800, 'sent-uncompressed'],
    ['above it: the oldest turns left out for this call', 3_000, 'dropped-oldest-turns'],
  ] as const)(
    'an instance that waits past waitMs goes on, %s, reported; its next call takes the state',
    async (_, contextWindow, fallback) => {
      const store = memoryStateStore();
      const { calls, summarizer } = counting(400);
      const errors: CompressionErrorEvent[] = [];
      const holder = engineOn(store, { summarizer, contextWindow });
      const waiter = engineOn(store, { summarizer, contextWindow, foldLease: { waitMs: 100 }, errors });
      const held = call(holder, conversation(0));
      await sleep(20);
      const waited = await call(waiter, conversation(1));
      expect(waited.event?.messagesFolded ?? 0).toBe(0);
      expect(paired(waited.messages)).toBe(true);
      const reported = errors.map((event) => event.error).find(SummarizerError.isInstance);
      expect(reported?.reason).toBe('held-elsewhere');
      expect(errors[0]?.fallback).toBe(fallback);
      const made = await held;
      // the state the holder stored is taken at once by the next call of the waiting instance: no back-off, no summary
      const next = await call(waiter, conversation(1));
      expect(stateText(made.messages)).toContain('Read the files of the cache layer');
      expect(stateText(next.messages)).toBe(stateText(made.messages));
      expect(paired(next.messages)).toBe(true);
      expect(calls).toHaveLength(1);
    },
  );

  it('a holder whose summary failed gives the lease up: a waiting instance summarizes instead', async () => {
    const store = memoryStateStore();
    const failing = counting(150, 1);
    const working = counting(50);
    const first = engineOn(store, { summarizer: failing.summarizer });
    const second = engineOn(store, { summarizer: working.summarizer });
    const [a, b] = await Promise.all([
      call(first, conversation(0)),
      sleep(20).then(() => call(second, conversation(1))),
    ]);
    expect(failing.calls).toHaveLength(1);
    expect(working.calls).toHaveLength(1);
    expect(a.event?.messagesFolded ?? 0).toBe(0);
    expect(b.event?.messagesFolded).toBeGreaterThan(0);
  });

  it('a holder whose summarizer hangs gives the lease up at its timeout', async () => {
    const store = memoryStateStore();
    const hung = engineOn(store, { summarizer: () => new Promise<SessionState>(() => {}), summarizerTimeoutMs: 200 });
    void call(hung, conversation(0));
    await sleep(20);
    const { calls, summarizer } = counting(10);
    const errors: CompressionErrorEvent[] = [];
    const other = engineOn(store, { summarizer, foldLease: { waitMs: 50 }, errors });
    expect((await call(other, conversation(1))).event?.messagesFolded ?? 0).toBe(0);
    expect(calls).toHaveLength(0);
    // the hung holder timed out and gave the lease up
    await sleep(300);
    expect((await call(other, conversation(1))).event?.messagesFolded).toBeGreaterThan(0);
    expect(calls).toHaveLength(1);
  });

  it("a call that folds twice shares both folds: the second's key does not depend on how the state was read", async () => {
    // a state large enough that the first fold leaves the prompt over its target: the call folds again
    const large = {
      ...STATE,
      logos: Array.from({ length: 30 }, (_, index) => `fact ${index}: ${'detail '.repeat(5)}`),
    };
    const alone = counting(0);
    await call(
      engineOn(memoryStateStore(), {
        summarizer: async (input) => {
          await alone.summarizer(input);
          return large;
        },
      }),
      conversation(0),
    );
    expect(alone.calls.length).toBeGreaterThanOrEqual(2);
    const shared = counting(150);
    const summarizer = async (input: SummarizeInput) => {
      await shared.summarizer(input);
      return large;
    };
    const store = memoryStateStore();
    const [a, b] = await Promise.all([
      call(engineOn(store, { summarizer }), conversation(0)),
      sleep(20).then(() => call(engineOn(store, { summarizer }), conversation(1))),
    ]);
    expect(shared.calls).toHaveLength(alone.calls.length);
    expect(stateText(b.messages)).toBe(stateText(a.messages));
  });

  it('a lease past its time in a store that keeps no TTL (its holder crashed) is taken over', async () => {
    const inner = memoryStateStore();
    const leases: string[] = [];
    // a store that keeps no TTL
    const store: StateStore = {
      get: (key) => inner.get(key),
      set: (key, value) => inner.set(key, value),
      setIfAbsent: (key, value) => {
        if (key.includes(':lease:')) leases.push(key);
        return inner.setIfAbsent(key, value);
      },
      delete: (key) => inner.delete(key),
      deletePrefix: (prefix) => inner.deletePrefix(prefix),
    };
    const failing = counting(0, 1);
    await call(engineOn(store, { summarizer: failing.summarizer }), conversation(0));
    expect(failing.calls).toHaveLength(1);
    const key = leases[0] as string;
    // the lease a holder left when it crashed (this one gave it up), its time long over, kept for ever by the store
    await inner.set(key, { owner: 'crashed', until: Date.now() - 60_000 });
    const { calls, summarizer } = counting(10);
    const errors: CompressionErrorEvent[] = [];
    const out = await call(engineOn(store, { summarizer, foldLease: { waitMs: 200 }, errors }), conversation(1));
    expect(calls).toHaveLength(1);
    expect(out.event?.messagesFolded).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it('a holder whose result could not be stored gives the lease up: the other summarizes without waiting it out', async () => {
    const inner = memoryStateStore();
    const store: StateStore = {
      get: (key) => inner.get(key),
      set: async (key, value, options) => {
        if (key.includes(':fold:')) throw new Error('write refused');
        await inner.set(key, value, options);
      },
      setIfAbsent: (key, value, options) => inner.setIfAbsent(key, value, options),
      delete: (key) => inner.delete(key),
    };
    const first = counting(100);
    const second = counting(10);
    const errors: CompressionErrorEvent[] = [];
    const [, b] = await Promise.all([
      call(engineOn(store, { summarizer: first.summarizer }), conversation(0)),
      sleep(20).then(() =>
        // a different last question, so that it does not find the first one's record on its own
        call(engineOn(store, { summarizer: second.summarizer, foldLease: { waitMs: 5_000 }, errors }), conversation(1)),
      ),
    ]);
    expect(first.calls).toHaveLength(1);
    // it took the lease the first gave up and summarized, rather than waiting 5 s for a result that never came
    expect(second.calls).toHaveLength(1);
    expect(b.event?.messagesFolded).toBeGreaterThan(0);
    expect(errors.some((event) => SummarizerError.isInstance(event.error))).toBe(false);
  });

  it('a store without setIfAbsent, or the default store, takes no lease', async () => {
    const inner = memoryStateStore();
    const written: string[] = [];
    const plain: StateStore = {
      get: (key) => inner.get(key),
      set: (key, value, options) => {
        written.push(key);
        return inner.set(key, value, options);
      },
    };
    const { calls, summarizer } = counting(50);
    await Promise.all([0, 1].map((index) => call(engineOn(plain, { summarizer }), conversation(index))));
    expect(calls).toHaveLength(2);
    expect(written.some((key) => key.includes(':lease:') || key.includes(':fold:'))).toBe(false);
    expect(written.length).toBeGreaterThan(0);
  });

  it('rejects a bad foldLease option with a clear message', () => {
    expect(() => engineOn(memoryStateStore(), { foldLease: { waitMs: -1 } as never })).toThrow(/foldLease/);
    expect(() => engineOn(memoryStateStore(), { foldLease: true as never })).toThrow(
      /false or an object \{ waitMs\? \}/,
    );
  });
});
