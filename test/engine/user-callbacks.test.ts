import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import type { Message } from '../../src/transcript/transcript.js';
import { agentLoop, chat, SYSTEM } from '../helpers/fixtures.js';

/** Changes everything reachable from `value` that can be changed: strings rewritten, arrays grown, numbers bumped. */
function vandalize(value: unknown, seen = new Set<unknown>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  for (const [key, inner] of Object.entries(value)) {
    vandalize(inner, seen);
    try {
      const record = value as Record<string, unknown>;
      if (typeof inner === 'string') record[key] = `${inner} (changed)`;
      else if (typeof inner === 'number') record[key] = inner + 1;
      else if (typeof inner === 'boolean') record[key] = !inner;
    } catch {
      // frozen: the engine kept it from being changed
    }
  }
  if (Array.isArray(value)) {
    try {
      value.push('pushed by a callback');
    } catch {
      // frozen
    }
  }
}

/** A memory store whose written keys can be listed, to compare every record before and after. */
function listedStore() {
  const inner = memoryStateStore();
  const keys = new Set<string>();
  const store: StateStore = {
    get: (key) => inner.get(key),
    set: async (key, value, options) => {
      keys.add(key);
      await inner.set(key, value, options);
    },
    setIfAbsent: (key, value, options) => {
      keys.add(key);
      return inner.setIfAbsent(key, value, options);
    },
    delete: (key) => inner.delete(key),
    compareAndSet: (key, expected, value, options) => {
      keys.add(key);
      return inner.compareAndSet(key, expected, value, options);
    },
  };
  const snapshot = async () =>
    JSON.stringify(await Promise.all([...keys].sort().map(async (key) => [key, await inner.get(key)])));
  return { store, snapshot };
}

type Mutation = 'previous' | 'messages' | 'kept' | 'onCompress' | 'onCall' | 'onError' | 'output';

/**
 * A conversation sent at growing lengths through an engine whose summarizer and listeners change what they get (the
 * `mutations`), then its last request again: the prompts sent, the store's records before the replay and after, and
 * whether the caller's history is as it was. The summarizer's answer depends on its input as it came, not on what it
 * changed afterwards, so a run without mutations sends the same prompts.
 */
async function scenario(mutations: ReadonlySet<Mutation>, lengths: readonly number[], outputChars = 1_500) {
  // a chat for outputChars 0, else an agent loop with tool results of that size
  const kept: unknown[] = [];
  const summarizer = async ({ messages, previous }: SummarizeInput): Promise<SessionState> => {
    const entry = `folded ${messages.length} messages from ${messages[0]?.role}`;
    const summary = `${previous?.conversationSummary ?? ''}+`;
    let answer: SessionState = {
      logos: [...(previous?.logos ?? []), entry],
      pathos: [],
      abstract: [],
      conversationSummary: summary,
    };
    // a summarizer that builds its answer in `previous`
    if (mutations.has('previous') && previous) {
      previous.logos.push(entry);
      previous.conversationSummary = summary;
      answer = previous;
    }
    if (mutations.has('messages')) vandalize(messages);
    // a summarizer that keeps what it was given and changes it on a later call
    if (mutations.has('kept')) {
      for (const value of kept) vandalize(value);
      kept.push(previous, messages);
    }
    return answer;
  };
  const { store, snapshot } = listedStore();
  const engine = new CompressionEngine({
    contextWindow: 4_000,
    reserveOutputTokens: 500,
    tokenCounter: approximateCounter(),
    store,
    summarizer,
    onCompress: (event) => void (mutations.has('onCompress') && vandalize(event)),
    onCall: (report) => void (mutations.has('onCall') && vandalize(report)),
    onError: (event) => void (mutations.has('onError') && vandalize(event)),
  });
  const history = outputChars === 0 ? chat(121) : agentLoop(60, outputChars);
  const original = JSON.stringify(history);
  const send = async (messages: readonly Message[]) => {
    const output = await engine.compress({
      transcript: { system: SYSTEM, tools: [], messages },
      modelId: 'test-model',
    });
    // the summarizer's time aside (a clock reading)
    const sent = JSON.stringify([output.messages, output.event, output.decisions], (key, value) =>
      key === 'summarizerMs' ? undefined : value,
    );
    if (mutations.has('output')) vandalize([output.event, output.decisions]);
    return sent;
  };
  const prompts: string[] = [];
  for (const length of lengths) prompts.push(await send(history.slice(0, length)));
  const stored = await snapshot();
  const last = lengths.at(-1) as number;
  const replayed = [await send(history.slice(0, last)), await send(history.slice(0, last))];
  return { prompts, replayed, stored, storedAfter: await snapshot(), untouched: JSON.stringify(history) === original };
}

const EVERY: readonly Mutation[] = ['previous', 'messages', 'kept', 'onCompress', 'onCall', 'onError', 'output'];

describe('user code cannot change what the engine keeps', () => {
  it('a summarizer and listeners that change what they get: the replay sends the same prompts, the store is unchanged', async () => {
    const lengths = [41, 61, 81];
    const clean = await scenario(new Set(), lengths, 0);
    const changed = await scenario(new Set(EVERY), lengths, 0);
    expect(clean.stored).toContain('folded');
    expect(changed.prompts).toEqual(clean.prompts);
    expect(changed.replayed).toEqual(clean.replayed);
    expect(JSON.parse(clean.replayed[0] as string)[0]).toEqual(JSON.parse(clean.prompts.at(-1) as string)[0]);
    expect(changed.storedAfter).toBe(changed.stored);
    expect(changed.stored).toBe(clean.stored);
    expect(changed.untouched).toBe(true);
  });

  it("a summarizer that changes the messages it gets: the call goes on and the caller's messages stay as they were", async () => {
    const clean = await scenario(new Set(), [41]);
    const changed = await scenario(new Set(['messages']), [41]);
    expect(changed.prompts).toEqual(clean.prompts);
    expect(changed.untouched).toBe(true);
  });

  it("an onCompress listener that changes its event changes neither the call's output nor the next listener's event", async () => {
    const clean = await scenario(new Set(), [41]);
    const changed = await scenario(new Set(['onCompress']), [41]);
    expect(changed.prompts).toEqual(clean.prompts);
  });

  it('any mix of changing callbacks, at any lengths: the same prompts as without, the records unchanged by replays', async () => {
    const baselines = new Map<string, Awaited<ReturnType<typeof scenario>>>();
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...EVERY], { minLength: 1 }),
        fc.uniqueArray(fc.integer({ min: 3, max: 60 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(0, 600, 1_500),
        async (mutations, steps, outputChars) => {
          const lengths = [...steps].sort((a, b) => a - b).map((step) => step * 2 + 1);
          const key = `${lengths.join()}:${outputChars}`;
          const clean = baselines.get(key) ?? (await scenario(new Set(), lengths, outputChars));
          baselines.set(key, clean);
          const changed = await scenario(new Set(mutations), lengths, outputChars);
          expect(changed.prompts).toEqual(clean.prompts);
          expect(changed.replayed).toEqual([clean.replayed[0], clean.replayed[1]]);
          expect(changed.storedAfter).toBe(changed.stored);
          expect(changed.stored).toBe(clean.stored);
          expect(changed.untouched).toBe(true);
        },
      ),
      { numRuns: 25, seed: 11 },
    );
  });
});
