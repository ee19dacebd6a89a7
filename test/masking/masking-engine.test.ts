import { describe, expect, it } from 'vitest';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import {
  DEFAULT_MASKING_OPTIONS,
  maskableKeys,
  maskPlaceholderFor,
  planMaskingStep,
  resultSites,
} from '../../src/masking/observation-masking.js';
import { type CompressionOptions, DEFAULT_CACHE_PRICING } from '../../src/options/options.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../src/options/prompts.js';
import { memoryStateStore } from '../../src/persistence/state-store.js';
import { UNFORCED_PAYOFF_MARGIN } from '../../src/strategies/cache-economics.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import type { Message, ToolResultPart } from '../../src/transcript/transcript.js';
import {
  agentLoop,
  BUDGET,
  deepFreeze,
  expectSameObjects,
  meter,
  promptTokens,
  setup,
  text,
} from '../helpers/fixtures.js';

/** Observation masking through CompressionEngine.compress. Unit level: observation-masking.test.ts. */

const BIG_WINDOW = { contextWindow: 200_000, reserveOutputTokens: 4_000 } as const; // no budget pressure
const REDACT = DEFAULT_REDACTION_TOOL_NAME;
const STEPS = 60;
const LOOP = deepFreeze(agentLoop(STEPS, 1_200)); // read results of 320 tokens, grep results of a few
const LOOP_COPY = structuredClone(LOOP);
const history = (steps: number, loop: readonly Message[] = LOOP) => loop.slice(0, 1 + 2 * steps);

const resultParts = (out: CompressOutput) =>
  out.messages.flatMap((message) =>
    message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result'),
  );
const maskedIds = (out: CompressOutput) =>
  resultParts(out)
    .filter((part) => part.edit === 'masked')
    .map((part) => part.callId);
const json = (messages: readonly Message[]) => messages.map((message) => JSON.stringify(message));

/** Runs the loop call by call, one more step each time, as an agent does. */
async function replay(run: (messages: readonly Message[]) => Promise<CompressOutput>, loop = LOOP, steps = STEPS) {
  const outs: CompressOutput[] = [];
  for (let step = 1; step <= steps; step++) outs.push(await run(history(step, loop)));
  return outs;
}

/** Indexes of the calls whose masked set differs from the call before. */
const maskingCalls = (outs: readonly CompressOutput[]) =>
  outs
    .map((_out, index) => index)
    .filter(
      (index) =>
        index > 0 &&
        maskedIds(outs[index] as CompressOutput).join() !== maskedIds(outs[index - 1] as CompressOutput).join(),
    );

describe('observation masking below the budget threshold', () => {
  it('masks in batches and keeps every prompt a byte-identical prefix of the next between two steps', async () => {
    const { run, summarize } = setup(BIG_WINDOW);
    const outs = await replay(run);
    const steps = maskingCalls(outs);
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps.length).toBeLessThanOrEqual(STEPS / 6);
    expect(summarize).not.toHaveBeenCalled();
    outs.forEach((out, index) => {
      const messages = history(index + 1);
      expect(findPairingProblems(out.messages)).toEqual([]);
      expect(out.messages).toHaveLength(messages.length); // nothing folded, nothing dropped
      out.messages.forEach((message, at) => {
        // untouched messages are the caller's objects: the calls (id, name, args) and reasoning stay as they were
        if (message.role !== 'tool') expect(message).toBe(messages[at]);
        else if (!message.edited) expect(message).toBe(messages[at]);
      });
      // the 10 newest results are never masked
      for (const part of resultParts(out).slice(-DEFAULT_MASKING_OPTIONS.keepRecent)) expect(part.edit).toBeUndefined();
      if (index === 0) return;
      const previous = outs[index - 1] as CompressOutput;
      // the awareness block follows the system prompt from the first masking step on
      if (index === steps[0]) expect(out.system.slice(0, -1)).toEqual(previous.system);
      else expect(out.system).toEqual(previous.system);
      const before = json(previous.messages);
      const after = json(out.messages);
      expect(maskedIds(out)).toEqual(expect.arrayContaining(maskedIds(previous))); // the boundary only moves forward
      if (!steps.includes(index)) {
        expect(after.slice(0, before.length)).toEqual(before);
        expect(out.event).toBeUndefined();
        return;
      }
      // a masking step rewrites from its first newly masked result on, never before it
      const fresh = maskedIds(out).filter((id) => !maskedIds(previous).includes(id));
      const first = out.messages.findIndex((message) =>
        message.parts.some((part) => part.type === 'tool-result' && fresh.includes(part.callId)),
      );
      expect(after.slice(0, first)).toEqual(before.slice(0, first));
      expect(after[first]).not.toBe(before[first]);
    });
  });

  it('reports each step once, with the results it masked and the tokens it freed', async () => {
    const { run, events } = setup(BIG_WINDOW);
    const outs = await replay(run);
    const steps = maskingCalls(outs);
    expect(events).toHaveLength(steps.length);
    steps.forEach((index, nth) => {
      const out = outs[index] as CompressOutput;
      const event = events[nth];
      expect(event).toEqual(out.event); // a copy: the listener's own
      const fresh = maskedIds(out).filter((id) => !maskedIds(outs[index - 1] as CompressOutput).includes(id));
      const sites = resultSites(history(index + 1), meter);
      const freed = fresh.reduce((sum, id) => {
        const site = sites.find((candidate) => candidate.callId === id);
        return sum + (site?.tokens ?? 0) - meter.countText(maskPlaceholderFor(site as never, 10));
      }, 0);
      expect(event?.trigger).toBe('turns');
      expect(event?.toolResultsMasked).toEqual({ count: fresh.length, tokensFreed: freed });
      expect(freed).toBeGreaterThanOrEqual(DEFAULT_MASKING_OPTIONS.clearAtLeast);
      expect(event?.tokensBefore).toBe((event?.tokensAfter ?? 0) + freed);
      expect(event).toMatchObject({ messagesFolded: 0, messagesDropped: 0 });
      expect(event?.decisions).toEqual([
        {
          trigger: 'turns',
          scope: { kind: 'observations', toolCallIds: fresh },
          confidence: 1,
          details: expect.stringContaining(`frees ${freed} tokens`),
        },
      ]);
      // the economics in the decision log: savings at least twice the cache break
      const [, savings, cost] =
        /expected savings (\d+) .* costing (\d+)/.exec(event?.decisions[0]?.details ?? '') ?? [];
      expect(Number(savings)).toBeGreaterThanOrEqual(2 * Number(cost));
    });
  });

  it('is durable: calls alternating between two engines on one store give the prompts of one engine', async () => {
    const alone = await replay(setup(BIG_WINDOW).run);
    const store = memoryStateStore();
    const [first, second] = [setup({ ...BIG_WINDOW, store }), setup({ ...BIG_WINDOW, store })];
    for (let step = 1; step <= STEPS; step++) {
      const messages = history(step);
      const expected = json((alone[step - 1] as CompressOutput).messages);
      // each call goes to one instance; the other then sees the same request again (a retry on another server)
      const [serving, retrying] = step % 2 ? [first, second] : [second, first];
      expect(json((await serving.run(messages)).messages)).toEqual(expected);
      expect(json((await retrying.run(messages)).messages)).toEqual(expected);
      expect(json((await serving.run(messages)).messages)).toEqual(expected);
    }
    // each masking step is reported once, by the instance that made it; retries and repeats are silent
    expect(first.events.length + second.events.length).toBe(maskingCalls(alone).length);
  });

  it('never masks the current step or the newest results of an earlier history requested again', async () => {
    const { run } = setup(BIG_WINDOW);
    await replay(run, LOOP, 30);
    for (let step = 1; step <= 30; step++) {
      const out = await run(history(step));
      const parts = resultParts(out);
      for (const part of parts.slice(-DEFAULT_MASKING_OPTIONS.keepRecent)) expect(part.edit).toBeUndefined();
    }
  });

  it.each<[string, CompressionOptions]>([
    ['masking: false', { masking: false }],
    ['a clearAtLeast no step reaches', { masking: { clearAtLeast: 1_000_000 } }],
    ['free cache reads', { cachePricing: { read: 0 } }],
    ['every result in excludeTools', { masking: { excludeTools: ['read', 'grep'] } }],
  ])('masks nothing with %s', async (_name, options) => {
    const { run, events } = setup({ ...BIG_WINDOW, ...options });
    const outs = await replay(run);
    outs.forEach((out, index) => {
      expect(out.messages).toHaveLength(2 * index + 3);
      expectSameObjects(out.messages, LOOP.slice(0, out.messages.length));
    });
    expect(events).toEqual([]);
  });

  it('without a cache-write premium, masks as soon as a step frees clearAtLeast tokens', async () => {
    const { run } = setup({ ...BIG_WINDOW, cachePricing: { read: 1, write: 1 } });
    const outs = await replay(run, LOOP, 20);
    const [first] = maskingCalls(outs);
    const freed = (steps: number) => stepFor(history(steps)).freed;
    expect(first).toBeDefined();
    expect(freed((first as number) + 1)).toBeGreaterThanOrEqual(DEFAULT_MASKING_OPTIONS.clearAtLeast);
    expect(freed(first as number)).toBeLessThan(DEFAULT_MASKING_OPTIONS.clearAtLeast);
  });

  /** The masking step the planner proposes on `messages` when nothing is masked yet. */
  function stepFor(messages: readonly Message[]) {
    const sites = resultSites(messages, meter);
    return planMaskingStep({
      sites,
      covered: 0,
      hidden: new Set(),
      maskable: maskableKeys(messages, sites, DEFAULT_MASKING_OPTIONS, REDACT),
      keepRecent: DEFAULT_MASKING_OPTIONS.keepRecent,
      meter,
    });
  }

  /**
   * Whether the documented rule takes a masking step on `messages` when nothing is masked yet: the conversation's first
   * change adds the awareness block and rewrites the prompt from it; far below the threshold of a 200k window, the
   * savings must be UNFORCED_PAYOFF_MARGIN times the cost.
   */
  function rulePays(messages: readonly Message[]): boolean {
    const step = stepFor(messages);
    const awareness = meter.measure({ role: 'system', parts: [{ type: 'text', text: DEFAULT_AWARENESS_BLOCK }] });
    const after = messages.reduce((sum, message) => sum + meter.measure(message).tokens, awareness.tokens);
    const calls = Math.min(50, Math.max(4, messages.filter((message) => message.role === 'assistant').length));
    const { read, write } = DEFAULT_CACHE_PRICING;
    const savings = read * step.freed * calls;
    const breakCost = (write - read) * Math.max(0, after - step.freed);
    return (
      step.keys.length > 0 &&
      step.freed >= DEFAULT_MASKING_OPTIONS.clearAtLeast &&
      savings >= UNFORCED_PAYOFF_MARGIN * breakCost
    );
  }

  /** The first call of a loop that masks, and the first call for which the documented rule pays. */
  async function firstSteps(loop: readonly Message[], head: number) {
    const { run } = setup(BIG_WINDOW);
    let rule: number | undefined;
    for (let step = 1; 2 * step + head <= loop.length; step++) {
      const messages = loop.slice(0, head + 2 * step);
      rule ??= rulePays(messages) ? step : undefined;
      if ((await run(messages)).decisions.length > 0) return { engine: step, rule };
    }
    return { engine: undefined, rule };
  }

  it('takes its first step on the first call where savings reach the margin times the cache break', async () => {
    const { engine, rule } = await firstSteps(LOOP, 1);
    expect(engine).toBeDefined();
    expect(engine).toBe(rule);
  });

  it('is not delayed by an early result too small to mask', async () => {
    const head: Message[] = [
      text('user', 'Fix the failing test in src/app.ts.'),
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'ls', name: 'ls', args: {} }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'ls', name: 'ls', output: 'ok' }] },
      text('assistant', 'Listed.'),
      text('user', `Here is the log: ${'log line '.repeat(1_500)}`),
    ];
    const { engine, rule } = await firstSteps(deepFreeze([...head, ...LOOP.slice(1)]), head.length);
    expect(rule).toBeDefined();
    expect(engine).toBe(rule);
  });

  it('does not mutate the caller messages', async () => {
    const { run } = setup(BIG_WINDOW);
    await replay(run);
    expect(LOOP).toEqual(LOOP_COPY);
  });

  it('counts each masked result once when parallel results of one message are masked in different steps', async () => {
    const wide = deepFreeze(
      LOOP.map(
        (message): Message =>
          message.role !== 'tool'
            ? message
            : {
                ...message,
                parts: message.parts.map((part) => ({
                  ...part,
                  output: `${(part as ToolResultPart).output} `.repeat(20),
                })),
              },
      ),
    );
    const { run, events } = setup({ ...BIG_WINDOW, masking: { keepRecent: 3 } });
    await replay(run, wide, 20);
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const event of events) {
      const masking = event.decisions.find((decision) => decision.scope.kind === 'observations');
      const ids = masking?.scope.kind === 'observations' ? masking.scope.toolCallIds : [];
      expect(event.toolResultsMasked.count).toBe(ids.length);
    }
  });
});

describe('observation masking under budget pressure', () => {
  it('masks every candidate before folding, logged with the budget trigger', async () => {
    const { run, events } = setup(); // contextWindow 4_000
    const outs = await replay(run, deepFreeze(agentLoop(40)), 40);
    const decided = outs.filter((out) => out.decisions.length > 0);
    expect(decided.length).toBeGreaterThanOrEqual(2);
    expect(events).toHaveLength(decided.length);
    let foldedAfterMasking = 0;
    let oldReads = 0;
    for (const out of decided) {
      const [masking, fold] = out.decisions;
      expect(out.event?.trigger).toBe('budget');
      expect(masking).toMatchObject({ trigger: 'budget', scope: { kind: 'observations' } });
      expect(out.event?.tokensBefore).toBeGreaterThan(0.7 * BUDGET);
      expect(promptTokens(out)).toBeLessThanOrEqual(0.6 * BUDGET);
      expect(findPairingProblems(out.messages)).toEqual([]);
      // every old read result still in the prompt is masked: the step took all candidates at once
      const old = resultParts(out).slice(0, -DEFAULT_MASKING_OPTIONS.keepRecent);
      for (const part of old.filter((candidate) => candidate.name === 'read')) {
        expect(part.edit).toBe('masked');
        oldReads++;
      }
      if (fold) {
        expect(fold).toMatchObject({ trigger: 'budget', scope: { kind: 'messages' } });
        foldedAfterMasking++;
      }
    }
    expect(foldedAfterMasking).toBeGreaterThan(0);
    expect(oldReads).toBeGreaterThan(0);
  });

  it('reuses the masks of the budget step on the next calls without reporting them', async () => {
    const loop = deepFreeze(agentLoop(40));
    const index = (await replay(setup().run, loop, 40)).findIndex((out) => out.decisions.length > 0);
    // the store as it stands one call after the masking step (later calls may store folds that reach back)
    const store = memoryStateStore();
    const { run, events } = setup({ store });
    const outs = await replay(run, loop, index + 2);
    const expected = json((outs[index] as CompressOutput).messages);
    const next = outs[index + 1] as CompressOutput;
    expect(next.event).toBeUndefined();
    expect(json(next.messages).slice(0, expected.length)).toEqual(expected);
    const again = setup({ store });
    const rerun = await again.run(history(index + 1, loop));
    expect(rerun.event).toBeUndefined();
    expect(json(rerun.messages)).toEqual(expected);
    expect(again.events).toEqual([]);
    expect(events.length).toBeGreaterThan(0);
  });

  it('logs a fold after masking with the share that passed the threshold', async () => {
    const { run } = setup();
    const outs = await replay(run, deepFreeze(agentLoop(40)), 40);
    const folds = outs.flatMap((out) => out.decisions).filter((decision) => decision.scope.kind === 'messages');
    expect(folds.length).toBeGreaterThan(0);
    for (const fold of folds) {
      const [, share, threshold] =
        /prompt at ([\d.]+)% of the budget passed the ([\d.]+)% threshold/.exec(fold.details) ?? [];
      expect(Number(share)).toBeGreaterThan(Number(threshold));
    }
  });
});
