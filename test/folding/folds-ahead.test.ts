import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  type CompressEvent,
  type CompressionErrorEvent,
  contextCompression,
  extractiveSummarizer,
  memoryStateStore,
  type StateStore,
} from '../../adapters/ai-sdk/index.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { engineSettings } from '../../src/options/engine-settings.js';
import { type CompressionOptions, resolveOptions } from '../../src/options/options.js';
import { scopePrefix } from '../../src/persistence/state-records.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';

const model = new MockLanguageModelV4({ modelId: 'mock-model' });
const offline = extractiveSummarizer();

/** A loop of `steps` tool steps, each reading a file of about 300 tokens, after one task message. */
function loop(steps: number): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [
    { role: 'user', content: [{ type: 'text', text: 'Find where the retry limit is set and raise it to 5.' }] },
  ];
  for (let step = 0; step < steps; step++) {
    const toolCallId = `call-${step}`;
    prompt.push(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/module-${step}.ts` } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId,
            toolName: 'read_file',
            output: {
              type: 'text',
              value: `// module ${step}\n${`export const value${step} = ${step};\n`.repeat(60)}`,
            },
          },
        ],
      },
    );
  }
  return prompt;
}

/** A loop of file reads after one task message, read `i` of `lines[i]` lines (about 7 tokens each). */
function sizedLoop(lines: readonly number[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [
    { role: 'user', content: [{ type: 'text', text: 'Find where the retry limit is set.' }] },
  ];
  lines.forEach((count, step) => {
    const toolCallId = `call-${step}`;
    const value = `// m${step}\n${`export const v${step}_${'x'.repeat(step % 5)} = ${step};\n`.repeat(count)}`;
    prompt.push(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/m${step}.ts` } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId, toolName: 'read_file', output: { type: 'text', value } }],
      },
    );
  });
  return prompt;
}

/** A summarizer whose calls wait until the test releases them, counted. */
function gatedSummarizer() {
  const calls: SummarizeInput[] = [];
  let release: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    calls,
    release: () => release(),
    close: () => {
      gate = Promise.resolve();
      release();
    },
    summarizer: {
      name: 'gated',
      summarize: async (input: SummarizeInput) => {
        calls.push(input);
        await gate;
        return offline.summarize(input);
      },
    },
  };
}

/**
 * A summarizer whose calls, while held, wait until the test releases them; each state it makes says which call made
 * it (`made by summary N`, N from 0).
 */
function heldSummarizer(delayMs = 0) {
  const calls: { input: SummarizeInput; release: () => void }[] = [];
  let holding = false;
  return {
    calls,
    hold: (on: boolean) => {
      holding = on;
    },
    releaseAll: () => {
      for (const call of calls) call.release();
    },
    summarizer: {
      name: 'held',
      summarize: async (input: SummarizeInput) => {
        const index = calls.length;
        let release: () => void = () => {};
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        calls.push({ input, release });
        if (holding) await gate;
        else await new Promise((resolve) => setTimeout(resolve, delayMs));
        const state = await offline.summarize(input);
        return { ...state, logos: [...state.logos, `made by summary ${index}`] };
      },
    },
  };
}

/** The middleware of a loop summarized by `held`, its compressions told to `events` (no semantic folds, no masking). */
function heldMiddleware(held: ReturnType<typeof heldSummarizer>, events: CompressEvent[]) {
  return contextCompression({
    ...LIMITS,
    summarizer: held.summarizer,
    triggers: { semantic: false },
    masking: false,
    onCompress: (event) => events.push(event),
  });
}

const LIMITS = {
  contextWindow: 8_000,
  reserveOutputTokens: 0,
  tokenCounter: approximateCounter(),
  summarizeAhead: {},
} as const;

/** The middleware's prompt for a history: what the model would receive. */
async function send(middleware: ReturnType<typeof contextCompression>, prompt: LanguageModelV4Prompt) {
  const params = (await middleware.transformParams?.({
    type: 'generate',
    params: { prompt: structuredClone(prompt) } as LanguageModelV4CallOptions,
    model,
  })) as LanguageModelV4CallOptions;
  return params.prompt;
}

const EMPTY = { logos: [], pathos: [], abstract: [], conversationSummary: '' };
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const json = (prompt: LanguageModelV4Prompt) => prompt.map((message) => JSON.stringify(message));

describe('summaries made ahead of time', () => {
  it('summarizes in the background while calls go on unchanged, and folds without waiting once the summary is due', async () => {
    const gated = gatedSummarizer();
    const events: CompressEvent[] = [];
    const callsAtFold: number[] = [];
    const middleware = contextCompression({
      ...LIMITS,
      summarizer: gated.summarizer,
      triggers: { semantic: false },
      masking: false,
      onCompress: (event) => {
        events.push(event);
        if (event.messagesFolded > 0) callsAtFold.push(gated.calls.length);
      },
    });
    const sent: LanguageModelV4Prompt[] = [];
    let step = 1;
    for (; gated.calls.length === 0 && step < 60; step++) {
      sent.push(await send(middleware, loop(step)));
      await settle();
    }
    // the summary started after a call below the threshold: nothing folded yet
    expect(gated.calls.length).toBe(1);
    expect(events.filter((event) => event.messagesFolded > 0)).toEqual([]);
    // the next call goes on while it runs (it would hang on the gated summarizer if it waited)
    sent.push(await send(middleware, loop(step++)));
    // nothing sent changed while it ran: every prompt extends the one before
    for (let index = 1; index < sent.length; index++) {
      const before = json(sent[index - 1] as LanguageModelV4Prompt);
      expect(json(sent[index] as LanguageModelV4Prompt).slice(0, before.length)).toEqual(before);
    }
    gated.release();
    await settle();
    // the summary is ready: the fold comes when it is due, with no summarizer call of its own
    for (; callsAtFold.length === 0 && step < 60; step++) await send(middleware, loop(step));
    const fold = events.find((event) => event.messagesFolded > 0);
    expect(fold?.decisions.some((decision) => decision.details.includes('summarized ahead of time'))).toBe(true);
    expect(callsAtFold[0]).toBe(1);
    // the call that folds made no summarizer call of its own (the summarizer ran once, before it), and reports the
    // one made ahead of time for its fold
    expect(gated.calls.length).toBe(1);
    expect(fold?.summarizerCalls).toBe(1);
    gated.close();
  });

  it('folds the same span with the same summary in a new instance on the store, calling no summarizer', async () => {
    const store = memoryStateStore();
    const first = gatedSummarizer();
    first.close();
    const options = { ...LIMITS, store, triggers: { semantic: false }, masking: false, foldLease: false } as const;
    const one = contextCompression({ ...options, summarizer: first.summarizer });
    let step = 1;
    for (; first.calls.length === 0 && step < 60; step++) {
      await send(one, loop(step));
      await settle();
    }
    expect(first.calls.length).toBe(1);
    // the fold comes due in another instance, which takes the summary from the store
    const second = gatedSummarizer();
    second.close();
    const events: CompressEvent[] = [];
    const two = contextCompression({
      ...options,
      summarizer: second.summarizer,
      onCompress: (event) => events.push(event),
    });
    for (; events.length === 0 && step < 60; step++) await send(two, loop(step));
    expect(events[0]?.messagesFolded).toBeGreaterThan(0);
    expect(second.calls.length).toBe(0);
  });

  it('plans a deeper fold in place of a pending one too short for a jump of the prompt: one cache break, not two', async () => {
    const events: CompressEvent[] = [];
    const middleware = contextCompression({
      ...LIMITS,
      // room between the threshold and the hard limit: a large result can wait for a deeper fold's summary
      compressAt: 0.5,
      compressTo: 0.45,
      hardLimit: 0.95,
      summarizer: offline,
      triggers: { semantic: false },
      masking: false,
      onCompress: (event) => events.push(event),
    });
    // reads of about 150 tokens, one of about 1,500 when the fold planned ahead is due, then small ones again
    const lines = [...Array.from({ length: 26 }, () => 20), 220, ...Array.from({ length: 8 }, () => 20)];
    for (let step = 1; step <= lines.length; step++) {
      await send(middleware, sizedLoop(lines.slice(0, step)));
      await settle();
    }
    const folds = events.filter((event) => event.messagesFolded > 0);
    expect(folds.length).toBeGreaterThan(0);
    expect(folds.every((event) => event.decisions.some((decision) => decision.details.includes('ahead of time')))).toBe(
      true,
    );
    // the fold planned before the jump would leave the prompt over the threshold (and a second fold two calls on): the
    // call waits for the deeper one instead, which takes it below
    for (const fold of folds) expect(fold.tokensAfter).toBeLessThanOrEqual(0.5 * 8_000);
  });

  it('masks no batch that does not pay while the fold under pressure waits for its summary', async () => {
    const events: CompressEvent[] = [];
    const gated = gatedSummarizer();
    const middleware = contextCompression({
      ...LIMITS,
      compressAt: 0.5,
      compressTo: 0.45,
      hardLimit: 0.95,
      summarizer: gated.summarizer,
      triggers: { semantic: false },
      onCompress: (event) => events.push(event),
    });
    // a long task, thirty one-line reads, then a read large enough to take the prompt over the threshold (not the
    // hard limit) at once
    const task = `Migrate the retry settings. ${'Keep every caller working and note each file you touch. '.repeat(90)}`;
    const lines = [...Array.from({ length: 30 }, () => 10), 100];
    for (let step = 1; step <= lines.length; step++) {
      const prompt = sizedLoop(lines.slice(0, step));
      prompt[0] = { role: 'user', content: [{ type: 'text', text: task }] };
      await send(middleware, prompt);
    }
    await settle();
    // the fold waits for its summary (the call did not hang on the gated summarizer), so nothing breaks the cache:
    // masking the small stale results would free a few hundred tokens for a rewrite of the whole prompt
    expect(gated.calls.length).toBe(1);
    expect(events.filter((event) => event.toolResultsMasked.count > 0)).toEqual([]);
    gated.close();
  });

  it('does not wait past the hard limit for a summary not due yet: the offline summarizer stands in, and the next fold starts from that summary once made', async () => {
    // summaries that take several calls (about 300 ms against calls 20 ms apart): a fold planned ahead is due calls later
    const held = heldSummarizer(300);
    const events: CompressEvent[] = [];
    const middleware = heldMiddleware(held, events);
    const folds = () => events.filter((event) => event.messagesFolded > 0);
    // reads of about 150 tokens: the first fold is the summarizer's (not held)
    const lines: number[] = [];
    for (let step = 1; folds().length === 0 && step < 120; step++) {
      lines.push(20);
      await send(middleware, sizedLoop(lines));
      await settle();
    }
    expect(folds()).toHaveLength(1);
    // then held: a summary is started ahead of the next fold, and a read of about 2,400 tokens takes the prompt from
    // below the threshold past the hard limit before it is made
    held.hold(true);
    const started = held.calls.length;
    for (let step = 1; held.calls.length === started && step < 80; step++) {
      lines.push(20);
      await send(middleware, sizedLoop(lines));
      await settle();
    }
    expect(held.calls.length).toBe(started + 1);
    lines.push(400);
    // the call would hang on the held summary if it waited
    await send(middleware, sizedLoop(lines));
    const standIn = folds().at(-1);
    expect(folds()).toHaveLength(2);
    expect(standIn?.decisions.some((decision) => decision.details.includes('summarized offline'))).toBe(true);
    expect(standIn?.tokensAfter).toBeLessThanOrEqual(0.85 * 8_000);
    expect(standIn?.summarizerCalls).toBe(0);
    // the summary made ahead arrives: the next fold's summarizer extends it, not the offline state
    held.releaseAll();
    held.hold(false);
    await settle();
    const before = held.calls.length;
    for (let step = 1; held.calls.length === before && step < 80; step++) {
      lines.push(20);
      await send(middleware, sizedLoop(lines));
      await settle();
    }
    expect(held.calls.at(-1)?.input.previous?.logos).toContain(`made by summary ${started}`);
  });

  it("waits for the summarizer when a conversation's first fold is over the hard limit: no state made offline", async () => {
    const held = heldSummarizer();
    const events: CompressEvent[] = [];
    const middleware = heldMiddleware(held, events);
    held.hold(true);
    // a history that arrives over the hard limit
    const sending = send(middleware, sizedLoop(Array.from({ length: 50 }, () => 20)));
    await settle();
    expect(held.calls).toHaveLength(1);
    expect(events).toEqual([]);
    held.releaseAll();
    await sending;
    expect(events[0]?.messagesFolded).toBeGreaterThan(0);
    expect(events[0]?.decisions.some((decision) => decision.details.includes('offline'))).toBe(false);
  });

  it('reports a summary that failed in the background, and the fold is made when due by the call', async () => {
    const errors: CompressionErrorEvent[] = [];
    let calls = 0;
    const middleware = contextCompression({
      ...LIMITS,
      triggers: { semantic: false },
      masking: false,
      summarizer: async (input) => {
        calls++;
        if (calls === 1) throw new Error('summarizer down');
        return offline.summarize(input);
      },
      onError: (event) => errors.push(event),
    });
    for (let step = 1; calls === 0 && step < 60; step++) {
      await send(middleware, loop(step));
      await settle();
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fallback).toBe('continued');
    expect(errors[0]?.error.name).toBe('SummarizerError');
  });

  it('hands each summary to waitUntil, and starts none once the signal aborted', async () => {
    const handed: Promise<unknown>[] = [];
    const controller = new AbortController();
    let calls = 0;
    const options = {
      ...LIMITS,
      triggers: { semantic: false },
      masking: false,
      summarizer: async (input: SummarizeInput) => {
        calls++;
        return offline.summarize(input);
      },
    } as const;
    const middleware = contextCompression({
      ...options,
      summarizeAhead: { waitUntil: (work) => handed.push(work), signal: controller.signal },
    });
    for (let step = 1; calls === 0 && step < 60; step++) {
      await send(middleware, loop(step));
      await settle();
    }
    expect(handed).toHaveLength(1);
    await Promise.all(handed);

    let aborted = 0;
    const stopped = new AbortController();
    stopped.abort();
    const closed = contextCompression({
      ...options,
      summarizer: async (input: SummarizeInput) => {
        aborted++;
        return offline.summarize(input);
      },
      summarizeAhead: { signal: stopped.signal },
    });
    const events: CompressEvent[] = [];
    const watched = contextCompression({
      ...options,
      summarizeAhead: false,
      onCompress: (event) => events.push(event),
    });
    // with the signal aborted nothing runs in the background: folds are made by the calls, as with the option off
    for (let step = 1; step < 30; step++) {
      await send(closed, loop(step));
      await send(watched, loop(step));
    }
    await settle();
    expect(aborted).toBe(events.filter((event) => event.messagesFolded > 0).length);
  });

  it('is on by default with a model summarizer, off with a function, the extractive one or `false`', () => {
    const ahead = (options: CompressionOptions) => engineSettings(resolveOptions(options)).ahead !== undefined;
    expect(ahead({})).toBe(false);
    expect(ahead({ summarizer: extractiveSummarizer() })).toBe(false);
    expect(ahead({ summarizer: async () => EMPTY })).toBe(false);
    expect(ahead({ summarizer: async () => EMPTY, summarizeAhead: {} })).toBe(true);
    expect(ahead({ summarizer: { name: 'mine', summarize: offline.summarize } })).toBe(false);
    expect(ahead({ summarizer: { name: 'model:x', summarize: offline.summarize } })).toBe(true);
    expect(ahead({ summarizer: { name: 'model:x', summarize: offline.summarize }, summarizeAhead: false })).toBe(false);
    expect(ahead({ summarizeAhead: {} })).toBe(true);
    expect(ahead({ folding: false, summarizer: { name: 'model:x', summarize: offline.summarize } })).toBe(false);
    expect(() => new CompressionEngine({ summarizeAhead: { waitUntil: 3 } as never })).toThrow(/summarizeAhead/);
  });

  it('stores the plan under the namespace, so erasing the namespace erases it', async () => {
    const keys: string[] = [];
    const base = memoryStateStore();
    const store: StateStore = {
      get: (key) => base.get(key),
      set: (key, value, options) => {
        keys.push(key);
        return base.set(key, value, options);
      },
    };
    let calls = 0;
    const middleware = contextCompression({
      ...LIMITS,
      store,
      namespace: 'tenant-a',
      triggers: { semantic: false },
      masking: false,
      summarizer: async (input) => {
        calls++;
        return offline.summarize(input);
      },
    });
    for (let step = 1; calls === 0 && step < 60; step++) {
      await send(middleware, loop(step));
      await settle();
    }
    const planKeys = keys.filter((key) => key.includes('ahead:'));
    expect(planKeys.length).toBeGreaterThan(0);
    expect(planKeys.every((key) => key.startsWith(scopePrefix('tenant-a')))).toBe(true);
  });
});
