import { describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import { SummarizerError } from '../../src/errors.js';
import type { FoldPlan } from '../../src/folding/fold-plans.js';
import { FoldRunner } from '../../src/folding/fold-runner.js';
import { FoldsAhead } from '../../src/folding/folds-ahead.js';
import type { AheadSettings } from '../../src/options/engine-settings.js';
import { FoldsAheadStore } from '../../src/persistence/folds-ahead-store.js';
import { memoryStateStore } from '../../src/persistence/state-store.js';
import { SummarizerRetries } from '../../src/persistence/summarizer-retries.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import { sessionStateMessages } from '../../src/session-state/render-session-state.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, pointAt, projectAt } from '../helpers/call-facts.js';
import { meter, readStep } from '../helpers/fixtures.js';

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
/** A task and `steps` file reads: 2 messages a model call, 1 + 2 * steps messages. */
const loop = (steps: number): Message[] => [
  user('Fix the failing test in src/app.ts.'),
  ...Array.from({ length: steps }, (_, index) => readStep(index)).flat(),
];
/** Budget 2000: threshold 1400; 6 steps are 1381 tokens, one step (228) below it. */
const factsOf = (steps: number): CallFacts => callFacts(loop(steps), { budget: 2_000 });

const STATE: SessionState = {
  logos: ['The failing test is in src/app.test.ts.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'The assistant read the modules the test imports.',
};

const plan = (cut: number): FoldPlan => ({
  cut,
  stateCap: 100_000,
  decision: { trigger: 'budget', scope: { kind: 'messages', from: 0, to: cut }, confidence: 1, details: 'test fold' },
});

function harness({
  answer = () => STATE,
  settings = {},
  store = memoryStateStore(),
}: {
  answer?: (input: SummarizeInput) => SessionState | Promise<SessionState>;
  settings?: AheadSettings;
  store?: ReturnType<typeof memoryStateStore>;
} = {}) {
  const summarize = vi.fn(async (input: SummarizeInput) => answer(input));
  const runner = new FoldRunner(
    { name: 'test', summarize },
    { timeoutMs: 1_000, meter, retries: new SummarizerRetries(store, undefined) },
  );
  const work: Promise<unknown>[] = [];
  const errors: CompressionErrorEvent[] = [];
  const ahead = new FoldsAhead(
    runner,
    new FoldsAheadStore(store, undefined),
    { waitUntil: (each) => work.push(each), ...settings },
    (event) => errors.push(event),
  );
  /** Waits for the summaries handed to `waitUntil` so far. */
  const settled = () => Promise.all(work);
  return { ahead, runner, summarize, work, errors, settled, store };
}

/** What `find` says of the fold pending for a call of `facts` at `point`. */
const findAt = (ahead: FoldsAhead, facts: CallFacts, point: CompressionPoint = pointAt(facts)) =>
  ahead.find(facts, point, projectAt(facts, point));

/** What `consider` is given after a call of `facts` at `point` that folded nothing. */
function consideredAt(facts: CallFacts, point: CompressionPoint = pointAt(facts), maskable = 0) {
  const projection = projectAt(facts, point);
  const stateTokens = point.state
    ? sessionStateMessages(point.state).reduce((sum, message) => sum + meter.measure(message).tokens, 0)
    : 0;
  return {
    point,
    projection,
    tokens: projection.layout.total(point.coveredCount, stateTokens),
    stateTokens,
    maskable: () => maskable,
  };
}

describe('FoldsAhead.plan and find', () => {
  it('finds a planned fold from later calls, due once the history grew by the calls a summary takes', async () => {
    const { ahead, summarize, settled, work } = harness();
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 11);
    await settled();

    expect(work).toHaveLength(1);
    expect(summarize).toHaveBeenCalledOnce();
    expect(summarize.mock.calls[0]?.[0].messages).toHaveLength(11);
    // 13 messages of 6 calls: 2 messages a call, 2 calls ahead before a summary was measured
    expect(await findAt(ahead, facts)).toEqual({ cut: 11, due: false, replaces: false });
    expect(await findAt(ahead, factsOf(7))).toEqual({ cut: 11, due: false, replaces: false });
    expect(await findAt(ahead, factsOf(8))).toEqual({ cut: 11, due: true, replaces: false });
  });

  it('makes the fold later with the summary made ahead, calling no summarizer then, and reports its call', async () => {
    const { ahead, runner, summarize, settled } = harness();
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 11);
    await settled();
    const later = factsOf(8);
    const result = await runner.run(later, pointAt(later), plan(11));

    expect(summarize).toHaveBeenCalledOnce();
    // the call that uses the summary reports the summarizer call made for it ahead of time; a later one reports none
    expect(result.summarizerCalls).toBe(1);
    expect((await runner.run(later, pointAt(later), plan(11))).summarizerCalls).toBe(0);
    expect(summarize).toHaveBeenCalledOnce();
    expect(result.point?.coveredCount).toBe(11);
    expect(result.point?.state).toMatchObject(STATE);
  });

  it('does not find the fold once the history no longer extends the planned one', async () => {
    const { ahead } = harness();
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 11);
    const edited = loop(8);
    edited[4] = readStep(1, 41)[1] as Message;

    expect(await findAt(ahead, callFacts(edited, { budget: 2_000 }))).toBeUndefined();
    expect(await findAt(ahead, factsOf(5))).toBeUndefined();
    expect(await findAt(ahead, factsOf(8))).toBeDefined();
  });

  it('does not find the fold from another fold point or another state', async () => {
    const { ahead } = harness();
    const facts = factsOf(8);
    await ahead.plan(facts, pointAt(facts), 11);

    expect(await findAt(ahead, facts, pointAt(facts, { coveredCount: 3, state: STATE }))).toBeUndefined();
    expect(await findAt(ahead, facts, pointAt(facts, { state: STATE }))).toBeUndefined();
    expect(await findAt(ahead, facts)).toBeDefined();
  });

  it('replaces the pending fold with the one planned last, marked as replacing it', async () => {
    const { ahead, summarize, settled } = harness();
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 5);
    await ahead.plan(facts, pointAt(facts), 11, true);
    await settled();

    expect(await findAt(ahead, factsOf(8))).toEqual({ cut: 11, due: true, replaces: true });
    expect(summarize.mock.calls.map((call) => call[0].messages.length)).toEqual([5, 11]);
  });

  it('runs the summaries of a conversation one at a time', async () => {
    let running = 0;
    let most = 0;
    const { ahead, settled } = harness({
      answer: async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
        return STATE;
      },
    });
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 5);
    await ahead.plan(facts, pointAt(facts), 9);
    await ahead.plan(facts, pointAt(facts), 11);
    await settled();

    expect(most).toBe(1);
  });

  it('finds a fold another instance on the store planned', async () => {
    const store = memoryStateStore();
    const facts = factsOf(6);
    await harness({ store }).ahead.plan(facts, pointAt(facts), 11);

    expect(await findAt(harness({ store }).ahead, factsOf(8))).toEqual({ cut: 11, due: true, replaces: false });
    expect(await findAt(harness().ahead, factsOf(8))).toBeUndefined();
  });

  it('plans nothing while the conversation backs off', async () => {
    const { ahead, runner, summarize, work } = harness();
    const facts = factsOf(6);
    await runner.discarded(facts);
    await ahead.plan(facts, pointAt(facts), 11);

    expect(await findAt(ahead, facts)).toBeUndefined();
    expect(work).toHaveLength(0);
    expect(summarize).not.toHaveBeenCalled();
  });

  it('reports a summary that failed in the background to onError and keeps the fold planned', async () => {
    const { ahead, errors, settled } = harness({
      answer: () => {
        throw new Error('the summarizer model is down');
      },
    });
    const facts = factsOf(6);
    await expect(ahead.plan(facts, pointAt(facts), 11)).resolves.toBeUndefined();
    await settled();

    expect(errors).toHaveLength(1);
    const [reported] = errors;
    expect(reported?.fallback).toBe('continued');
    expect(SummarizerError.isInstance(reported?.error)).toBe(true);
    expect(reported?.error).toMatchObject({ reason: 'threw' });
    expect(await findAt(ahead, factsOf(8))).toEqual({ cut: 11, due: true, replaces: false });
  });

  it('starts no summary once the signal aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { ahead, summarize, work } = harness({ settings: { signal: controller.signal } });
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 11);

    expect(work).toHaveLength(0);
    expect(summarize).not.toHaveBeenCalled();
  });

  it('reports nothing of a summary the signal aborted while it ran', async () => {
    const controller = new AbortController();
    const { ahead, errors, settled, summarize } = harness({
      settings: { signal: controller.signal },
      answer: () => {
        controller.abort();
        return new Promise<SessionState>(() => {});
      },
    });
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 11);
    await settled();

    expect(summarize).toHaveBeenCalledOnce();
    expect(errors).toEqual([]);
  });
});

describe('FoldsAhead.paced', () => {
  /** A harness whose fold runner measured a summary of at least 10 ms. */
  async function measured() {
    const made = harness({
      answer: async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return STATE;
      },
    });
    const earlier = factsOf(2);
    await made.runner.run(earlier, pointAt(earlier), plan(3));
    expect(made.runner.summaryMs).toBeGreaterThanOrEqual(9);
    return made;
  }

  it('plans as many calls ahead as a summary takes between two calls, at most eight', async () => {
    const { ahead } = await measured();
    const facts = factsOf(6);
    ahead.paced(facts, 0);
    ahead.paced(facts, 1);
    await ahead.plan(facts, pointAt(facts), 11);

    // 13 messages, 2 a call, 8 calls ahead: due from 29 messages
    expect((await findAt(ahead, factsOf(13)))?.due).toBe(false);
    expect((await findAt(ahead, factsOf(14)))?.due).toBe(true);
  });

  it('plans one call ahead when calls come slower than a summary', async () => {
    const { ahead } = await measured();
    const facts = factsOf(6);
    ahead.paced(facts, 0);
    ahead.paced(facts, 60_000);
    await ahead.plan(facts, pointAt(facts), 11);

    expect((await findAt(ahead, facts))?.due).toBe(false);
    expect((await findAt(ahead, factsOf(7)))?.due).toBe(true);
  });

  it('plans two calls ahead while the pace of the conversation is unknown', async () => {
    const { ahead } = await measured();
    const facts = factsOf(6);
    ahead.paced(facts, 0);
    await ahead.plan(facts, pointAt(facts), 11);

    expect((await findAt(ahead, factsOf(7)))?.due).toBe(false);
    expect((await findAt(ahead, factsOf(8)))?.due).toBe(true);
  });
});

describe('FoldsAhead.consider', () => {
  it('plans the fold the call crossing the threshold will need, when that call is a summary away', async () => {
    const { ahead, summarize, settled } = harness();
    const facts = factsOf(6);
    await ahead.consider(facts, consideredAt(facts));
    await settled();

    const found = await findAt(ahead, factsOf(8));
    expect(found?.due).toBe(true);
    expect(found?.cut).toBeGreaterThan(0);
    expect(summarize).toHaveBeenCalledOnce();
    expect(summarize.mock.calls[0]?.[0].messages).toHaveLength(found?.cut ?? -1);
  });

  it('plans nothing while the threshold is further than the calls a summary takes', async () => {
    const { ahead, summarize, work } = harness();
    const facts = factsOf(3);
    await ahead.consider(facts, consideredAt(facts));

    expect(await findAt(ahead, factsOf(8))).toBeUndefined();
    expect(work).toHaveLength(0);
    expect(summarize).not.toHaveBeenCalled();
  });

  it('plans nothing when masking alone takes the crossing call below the target', async () => {
    const { ahead, work } = harness();
    const facts = factsOf(6);
    await ahead.consider(facts, consideredAt(facts, pointAt(facts), 1_000));

    expect(await findAt(ahead, factsOf(8))).toBeUndefined();
    expect(work).toHaveLength(0);
  });

  it('keeps the fold pending from the same point instead of planning another', async () => {
    const { ahead, summarize, settled } = harness();
    const facts = factsOf(6);
    await ahead.plan(facts, pointAt(facts), 5);
    await ahead.consider(facts, consideredAt(facts));
    await settled();

    expect((await findAt(ahead, factsOf(8)))?.cut).toBe(5);
    expect(summarize).toHaveBeenCalledOnce();
  });

  it('plans anew when the pending fold extends another state', async () => {
    const { ahead, summarize, settled } = harness();
    const facts = factsOf(6);
    const before = pointAt(facts, { coveredCount: 3, state: STATE });
    const now = pointAt(facts, { coveredCount: 3, state: { ...STATE, logos: ['Module m0 exports v0.'] } });
    await ahead.plan(facts, before, 5);
    await ahead.consider(facts, consideredAt(facts, now));
    await settled();

    expect((await findAt(ahead, factsOf(8), now))?.cut).toBeGreaterThan(5);
    expect(await findAt(ahead, factsOf(8), before)).toBeUndefined();
    expect(summarize).toHaveBeenCalledTimes(2);
    expect(summarize.mock.calls[1]?.[0].previous).toEqual(now.state);
  });

  it('plans anew when the pending fold is of another history', async () => {
    const { ahead, summarize, settled } = harness();
    const facts = factsOf(6);
    const edited = loop(6);
    edited[2] = readStep(0, 41)[1] as Message;
    const other = callFacts(edited, { budget: 2_000 });
    await ahead.plan(facts, pointAt(facts, { coveredCount: 3, state: STATE }), 5);
    await ahead.consider(other, consideredAt(other, pointAt(other, { coveredCount: 3, state: STATE })));
    await settled();

    expect(summarize).toHaveBeenCalledTimes(2);
    expect(await findAt(ahead, other, pointAt(other, { coveredCount: 3, state: STATE }))).toBeDefined();
  });

  it('plans nothing once the signal aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { ahead, work } = harness({ settings: { signal: controller.signal } });
    const facts = factsOf(6);
    await ahead.consider(facts, consideredAt(facts));

    expect(await findAt(ahead, factsOf(8))).toBeUndefined();
    expect(work).toHaveLength(0);
  });
});
