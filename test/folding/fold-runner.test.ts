import { describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import { SummarizerError } from '../../src/errors.js';
import type { FoldPlan } from '../../src/folding/fold-plans.js';
import { FoldRunner, type SharedFolds, SUMMARIZER_RETRY_AFTER_MESSAGES } from '../../src/folding/fold-runner.js';
import type { FoldLease } from '../../src/persistence/fold-lease.js';
import { memoryStateStore } from '../../src/persistence/state-store.js';
import { SummarizerRetries } from '../../src/persistence/summarizer-retries.js';
import { sessionStateMessages } from '../../src/session-state/render-session-state.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { SummarizeInput, Summarizer } from '../../src/summarizers/summarizer.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, pointAt } from '../helpers/call-facts.js';
import { meter, readStep } from '../helpers/fixtures.js';

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });
/** A task and `steps` file reads: message 0 the task, then an assistant call and a tool result per step. */
const loop = (steps: number, lines = 40): Message[] => [
  user('Fix the failing test in src/app.ts.'),
  ...Array.from({ length: steps }, (_, index) => readStep(index, lines)).flat(),
];

const STATE: SessionState = {
  logos: ['The failing test is in src/app.test.ts.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'The assistant read the modules the test imports.',
};

const plan = (cut: number, from = 0): FoldPlan => ({
  cut,
  stateCap: 100_000,
  decision: { trigger: 'budget', scope: { kind: 'messages', from, to: cut }, confidence: 1, details: 'test fold' },
});

/** A summarizer answering `answer` (the state by default), recording what it was given. */
function summarizerOf(answer: (input: SummarizeInput) => unknown = () => STATE, name = 'test') {
  const summarize = vi.fn(async (input: SummarizeInput) => answer(input) as SessionState);
  const summarizer: Summarizer = { name, summarize };
  return { summarizer, summarize };
}

function runnerOf(
  summarizer: Summarizer,
  {
    timeoutMs = 1_000,
    contextWindow,
    lease,
    retries,
    shared,
  }: {
    timeoutMs?: number;
    contextWindow?: number;
    lease?: FoldLease;
    retries?: SummarizerRetries;
    shared?: SharedFolds;
  } = {},
): FoldRunner {
  return new FoldRunner(summarizer, { timeoutMs, contextWindow, meter, lease, retries, shared });
}

/** A lease on a memory store whose waits are a few milliseconds. */
function leaseOn(store: ReturnType<typeof memoryStateStore>): FoldLease {
  return { store, waitMs: 20, pollMs: 2, leaseMs: 10_000, resultTtlMs: 60_000 };
}

const stateTokens = (state: SessionState) =>
  sessionStateMessages(state).reduce((sum, message) => sum + meter.measure(message).tokens, 0);

/** The same facts with a history `extra` messages longer. */
const longer = (messages: readonly Message[], extra: number): CallFacts =>
  callFacts([...messages, ...Array.from({ length: extra }, (_, index) => assistant(`More work ${index}.`))]);

describe('FoldRunner.run', () => {
  it('folds the messages up to the cut into the summarized state and moves the point there', async () => {
    const messages = loop(4);
    const facts = callFacts(messages);
    const point = pointAt(facts);
    const { summarizer, summarize } = summarizerOf();
    const result = await runnerOf(summarizer).run(facts, point, plan(5));

    expect(result.failure).toBeUndefined();
    expect(result.point?.coveredCount).toBe(5);
    expect(result.point?.state).toMatchObject(STATE);
    expect(result.point?.state?.timeline).toHaveLength(1);
    expect(result.point?.state?.timeline?.[0]).toMatch(/^#1-5\b/);
    expect(result.point?.masked).toBe(point.masked);
    expect(result.summarizerCalls).toBe(1);
    expect(result.failure ?? result.quotesRejected).toBe(0);
    expect(summarize).toHaveBeenCalledOnce();
    expect(summarize.mock.calls[0]?.[0].messages).toEqual(messages.slice(0, 5));
    expect(summarize.mock.calls[0]?.[0].previous).toBeUndefined();
  });

  it('hands the summarizer the previous state without the engine fields, and extends its timeline', async () => {
    const facts = callFacts(loop(4));
    const previous: SessionState = { ...STATE, timeline: ['#1-3: earlier reads'] };
    const { summarizer, summarize } = summarizerOf(({ previous: before }) => ({
      ...STATE,
      logos: [...(before?.logos ?? []), 'Module m1 exports v1.'],
      timeline: ['a timeline of the summarizer'],
    }));
    const result = await runnerOf(summarizer).run(
      facts,
      pointAt(facts, { coveredCount: 3, state: previous }),
      plan(7, 3),
    );

    expect(summarize.mock.calls[0]?.[0].previous).toEqual(STATE);
    expect(summarize.mock.calls[0]?.[0].messages).toEqual(facts.messages.slice(3, 7));
    expect(result.point?.coveredCount).toBe(7);
    expect(result.point?.state?.logos).toEqual([...STATE.logos, 'Module m1 exports v1.']);
    expect(result.point?.state?.timeline).toHaveLength(2);
    expect(result.point?.state?.timeline?.[0]).toBe('#1-3: earlier reads');
    expect(result.point?.state?.timeline).not.toContain('a timeline of the summarizer');
  });

  it('drops the quotes that are not verbatim in the folded messages and counts them', async () => {
    const facts = callFacts(loop(4));
    const { summarizer } = summarizerOf(() => ({
      ...STATE,
      salience: ['export const v0 = 0;', 'the user wants the retry limit at 7'],
    }));
    const result = await runnerOf(summarizer).run(facts, pointAt(facts), plan(5));

    expect(result.failure ?? result.quotesRejected).toBe(1);
    expect(result.point?.state?.salience).toEqual(['export const v0 = 0;']);
  });

  it("fits a state larger than the plan's cap to that cap", async () => {
    const facts = callFacts(loop(4), { budget: 2_000 });
    const long = Array.from({ length: 60 }, (_, index) => `Fact ${index}: ${'detail '.repeat(20)}`);
    const { summarizer } = summarizerOf(() => ({ ...STATE, logos: long }));
    const runner = runnerOf(summarizer);
    const full = await runner.run(facts, pointAt(facts), { ...plan(5), stateCap: facts.limits.maxStateTokens });
    const small = await runner.run(facts, pointAt(facts), { ...plan(5), stateCap: facts.limits.maxStateTokens / 3 });

    expect(stateTokens({ ...STATE, logos: long })).toBeGreaterThan(facts.limits.maxStateTokens);
    const state = full.point?.state as SessionState;
    expect(stateTokens(state)).toBeLessThanOrEqual(facts.limits.maxStateTokens);
    expect(state.logos.length).toBeLessThan(long.length);
    const smaller = small.point?.state as SessionState;
    expect(stateTokens(smaller)).toBeLessThanOrEqual(facts.limits.maxStateTokens / 3);
    expect(smaller.logos.length).toBeLessThan(state.logos.length);
  });

  it('reports a summarizer that throws as a failure, with no point', async () => {
    const facts = callFacts(loop(4));
    const { summarizer } = summarizerOf(() => {
      throw new Error('the summarizer model is down');
    }, 'broken');
    const result = await runnerOf(summarizer).run(facts, pointAt(facts), plan(5));

    expect(result.point).toBeUndefined();
    expect(SummarizerError.isInstance(result.failure)).toBe(true);
    expect(result.failure?.reason).toBe('threw');
    expect(result.failure?.summarizer).toBe('broken');
    expect(result.summarizerMs).toBeGreaterThanOrEqual(0);
  });

  it('reports output that is not a state as invalid-output', async () => {
    const facts = callFacts(loop(4));
    const { summarizer } = summarizerOf(() => ({ summary: 'not a session state' }));
    const result = await runnerOf(summarizer).run(facts, pointAt(facts), plan(5));

    expect(result.point).toBeUndefined();
    expect(result.failure?.reason).toBe('invalid-output');
  });

  it('reports a summarizer slower than its timeout as a timeout', async () => {
    const facts = callFacts(loop(4));
    const { summarizer } = summarizerOf(() => new Promise(() => {}));
    const result = await runnerOf(summarizer, { timeoutMs: 5 }).run(facts, pointAt(facts), plan(5));

    expect(result.point).toBeUndefined();
    expect(result.failure?.reason).toBe('timeout');
  });

  it('runs the summarizer once for the same fold asked for by two calls at once', async () => {
    const facts = callFacts(loop(4));
    const point = pointAt(facts);
    const { summarizer, summarize } = summarizerOf();
    const runner = runnerOf(summarizer);
    const [first, second] = await Promise.all([runner.run(facts, point, plan(5)), runner.run(facts, point, plan(5))]);

    expect(summarize).toHaveBeenCalledOnce();
    expect(first.summarizerCalls).toBe(1);
    expect(second.summarizerCalls).toBe(0);
    expect(second.point).toEqual(first.point);
  });

  it('runs the summarizer again for another cut, or from another state', async () => {
    const facts = callFacts(loop(4));
    const { summarizer, summarize } = summarizerOf();
    const runner = runnerOf(summarizer);
    await runner.run(facts, pointAt(facts), plan(5));
    await runner.run(facts, pointAt(facts), plan(7));
    await runner.run(facts, pointAt(facts, { state: STATE }), plan(7));

    expect(summarize).toHaveBeenCalledTimes(3);
  });

  it('forgets a failed fold, so the next call of it runs the summarizer again', async () => {
    const facts = callFacts(loop(4));
    let calls = 0;
    const { summarizer, summarize } = summarizerOf(() => {
      calls++;
      if (calls === 1) throw new Error('a transient failure');
      return STATE;
    });
    const runner = runnerOf(summarizer);
    const failed = await runner.run(facts, pointAt(facts), plan(5));
    const retried = await runner.run(facts, pointAt(facts), plan(5));

    expect(failed.failure?.reason).toBe('threw');
    expect(retried.point?.coveredCount).toBe(5);
    expect(retried.summarizerCalls).toBe(1);
    expect(summarize).toHaveBeenCalledTimes(2);
  });

  it('summarizes a span larger than the summarizer window in chunks, each call extending the state before', async () => {
    const facts = callFacts(loop(8));
    const seen: { messages: number; previous: SessionState | undefined }[] = [];
    const { summarizer, summarize } = summarizerOf(({ messages, previous }) => {
      seen.push({ messages: messages.length, previous });
      return { ...STATE, logos: [...(previous?.logos ?? []), `chunk ${seen.length}`] };
    });
    const result = await runnerOf(summarizer, { contextWindow: 1_000 }).run(facts, pointAt(facts), plan(17));

    expect(summarize.mock.calls.length).toBeGreaterThan(1);
    expect(result.summarizerCalls).toBe(summarize.mock.calls.length);
    expect(seen.reduce((sum, each) => sum + each.messages, 0)).toBe(17);
    expect(seen[0]?.previous).toBeUndefined();
    expect(seen[1]?.previous?.logos).toEqual(['chunk 1']);
    expect(result.point?.coveredCount).toBe(17);
    expect(result.point?.state?.logos).toEqual(seen.map((_, index) => `chunk ${index + 1}`));
  });

  it('summarizes the same span in one call when the window is large enough', async () => {
    const facts = callFacts(loop(8));
    const { summarizer, summarize } = summarizerOf();
    const result = await runnerOf(summarizer, { contextWindow: 100_000 }).run(facts, pointAt(facts), plan(17));

    expect(summarize).toHaveBeenCalledOnce();
    expect(result.summarizerCalls).toBe(1);
  });

  it('measures how long summaries take, once one was made', async () => {
    const facts = callFacts(loop(4));
    const runner = runnerOf(summarizerOf().summarizer);
    expect(runner.summaryMs).toBeUndefined();
    await runner.run(facts, pointAt(facts), plan(5));
    expect(runner.summaryMs).toBeGreaterThanOrEqual(0);
    expect(runner.summarizerName).toBe('test');
  });
});

describe('FoldRunner.backingOff', () => {
  it('does not back off a conversation whose summarizer never failed', async () => {
    const runner = runnerOf(summarizerOf().summarizer);
    expect(await runner.backingOff(callFacts(loop(4)))).toBe(false);
  });

  it('backs off after a failure until the history grew by a few messages', async () => {
    const messages = loop(4);
    const facts = callFacts(messages);
    const { summarizer } = summarizerOf(() => {
      throw new Error('down');
    });
    const runner = runnerOf(summarizer);
    await runner.run(facts, pointAt(facts), plan(5));

    expect(await runner.backingOff(facts)).toBe(true);
    expect(await runner.backingOff(longer(messages, SUMMARIZER_RETRY_AFTER_MESSAGES - 1))).toBe(true);
    expect(await runner.backingOff(longer(messages, SUMMARIZER_RETRY_AFTER_MESSAGES))).toBe(false);
  });

  it('stops backing off once a fold of the conversation succeeds', async () => {
    const facts = callFacts(loop(4));
    let calls = 0;
    const { summarizer } = summarizerOf(() => {
      if (++calls === 1) throw new Error('down');
      return STATE;
    });
    const runner = runnerOf(summarizer);
    await runner.run(facts, pointAt(facts), plan(5));
    expect(await runner.backingOff(facts)).toBe(true);
    await runner.run(facts, pointAt(facts), plan(5));
    expect(await runner.backingOff(facts)).toBe(false);
  });

  it('backs off after a discarded fold on every runner sharing the store of waits', async () => {
    const messages = loop(4);
    const facts = callFacts(messages);
    const store = memoryStateStore();
    const first = runnerOf(summarizerOf().summarizer, { retries: new SummarizerRetries(store, undefined) });
    const second = runnerOf(summarizerOf().summarizer, { retries: new SummarizerRetries(store, undefined) });
    const alone = runnerOf(summarizerOf().summarizer);
    await first.discarded(facts);

    expect(await first.backingOff(facts)).toBe(true);
    expect(await second.backingOff(facts)).toBe(true);
    expect(await alone.backingOff(facts)).toBe(false);
    expect(await second.backingOff(longer(messages, SUMMARIZER_RETRY_AFTER_MESSAGES))).toBe(false);
  });

  it('keeps the wait of a failure to the runner it happened on', async () => {
    const facts = callFacts(loop(4));
    const store = memoryStateStore();
    const failing = runnerOf(
      summarizerOf(() => {
        throw new Error('down');
      }).summarizer,
      { retries: new SummarizerRetries(store, undefined) },
    );
    const other = runnerOf(summarizerOf().summarizer, { retries: new SummarizerRetries(store, undefined) });
    await failing.run(facts, pointAt(facts), plan(5));

    expect(await failing.backingOff(facts)).toBe(true);
    expect(await other.backingOff(facts)).toBe(false);
  });
});

describe('FoldRunner with a store shared by several instances', () => {
  it('takes the state another instance stored for the fold under its lease, calling no summarizer', async () => {
    const facts = callFacts(loop(4));
    const store = memoryStateStore();
    const first = summarizerOf();
    const second = summarizerOf(() => ({ ...STATE, conversationSummary: 'A different summary.' }));
    const made = await runnerOf(first.summarizer, { lease: leaseOn(store) }).run(facts, pointAt(facts), plan(5));
    const taken = await runnerOf(second.summarizer, { lease: leaseOn(store) }).run(facts, pointAt(facts), plan(5));

    expect(first.summarize).toHaveBeenCalledOnce();
    expect(second.summarize).not.toHaveBeenCalled();
    expect(made.summarizerCalls).toBe(1);
    expect(taken.summarizerCalls).toBe(0);
    expect(taken.point?.state).toEqual(made.point?.state);
  });

  it('gives up the lease once the fold is made, and after a failed fold', async () => {
    const facts = callFacts(loop(4));
    const store = memoryStateStore();
    const taken: string[] = [];
    const recording: FoldLease = {
      ...leaseOn(store),
      store: {
        get: (key) => store.get(key),
        set: (key, value, options) => store.set(key, value, options),
        delete: (key) => store.delete(key),
        setIfAbsent: async (key, value, options) => {
          taken.push(key);
          return store.setIfAbsent(key, value, options);
        },
      },
    };
    await runnerOf(summarizerOf().summarizer, { lease: recording }).run(facts, pointAt(facts), plan(5));
    const failing = summarizerOf(() => {
      throw new Error('down');
    });
    const failed = await runnerOf(failing.summarizer, { lease: recording }).run(facts, pointAt(facts), plan(7));

    expect(failed.failure?.reason).toBe('threw');
    expect(new Set(taken).size).toBe(2);
    for (const key of taken) expect(await store.get(key)).toBeUndefined();
  });

  it('reports a fold whose lease another instance holds past the wait as held-elsewhere, without backing off', async () => {
    const facts = callFacts(loop(4));
    const store = memoryStateStore();
    const lease: FoldLease = { ...leaseOn(store), store: { ...store, setIfAbsent: async () => false } };
    const { summarizer, summarize } = summarizerOf();
    const runner = runnerOf(summarizer, { lease });
    const result = await runner.run(facts, pointAt(facts), plan(5));

    expect(summarize).not.toHaveBeenCalled();
    expect(result.point).toBeUndefined();
    expect(result.failure?.reason).toBe('held-elsewhere');
    expect(await runner.backingOff(facts)).toBe(false);
  });

  it('keeps a summary made ahead of time for the other instances on the store, and only that one', async () => {
    const facts = callFacts(loop(4));
    const store = memoryStateStore();
    const shared: SharedFolds = { store, ttlMs: 60_000 };
    const ahead = summarizerOf();
    await runnerOf(ahead.summarizer, { shared }).run(facts, pointAt(facts), plan(5), { ahead: true });
    const later = summarizerOf();
    const taken = await runnerOf(later.summarizer, { shared }).run(facts, pointAt(facts), plan(5));

    expect(ahead.summarize).toHaveBeenCalledOnce();
    expect(later.summarize).not.toHaveBeenCalled();
    expect(taken.summarizerCalls).toBe(0);
    expect(taken.point?.coveredCount).toBe(5);

    const now = summarizerOf();
    await runnerOf(now.summarizer, { shared }).run(facts, pointAt(facts), plan(7));
    const again = summarizerOf();
    await runnerOf(again.summarizer, { shared }).run(facts, pointAt(facts), plan(7));
    expect(now.summarize).toHaveBeenCalledOnce();
    expect(again.summarize).toHaveBeenCalledOnce();
  });
});
