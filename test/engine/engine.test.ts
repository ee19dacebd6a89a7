import { describe, expect, it } from 'vitest';
import { DEFAULT_AWARENESS_BLOCK, DEFAULT_STATE_ACKNOWLEDGEMENT } from '../../src/options/prompts.js';
import { memoryStateStore } from '../../src/persistence/state-store.js';
import type { CompressEvent } from '../../src/reports/events.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import { type Message, messageText, type ToolResultPart, toolResultIds } from '../../src/transcript/transcript.js';
import {
  agentLoop,
  BUDGET,
  chat,
  deepFreeze,
  expectSameObjects,
  inputTokens,
  promptTokens,
  real,
  SYSTEM,
  setup,
  text,
  tokens,
} from '../helpers/fixtures.js';

describe('budget thresholds', () => {
  it('under 70% sends the same message objects and the system prompt as it came', async () => {
    const { run, summarize, events } = setup();
    const messages = chat(31);
    expect(inputTokens(messages)).toBeLessThan(0.7 * BUDGET);
    const out = await run(messages);
    expect(out.messages).toHaveLength(messages.length);
    expectSameObjects(out.messages, messages);
    expect(out.system[0]).toBe(SYSTEM[0]);
    // the awareness block comes with the first change of the prompt
    expect(out.system).toHaveLength(1);
    expect(out.event).toBeUndefined();
    expect(out.decisions).toEqual([]);
    expect(summarize).not.toHaveBeenCalled();
    expect(events).toEqual([]);
    expect(out.estimatedTokens).toBe(promptTokens(out));
  });

  it("keeps the engine's own state fields its own: a summarizer's timeline or tool-call list is not taken", async () => {
    const { run } = setup({
      summarizer: async () => ({
        logos: ['a fact'],
        pathos: [],
        abstract: [],
        conversationSummary: 'Earlier turns.',
        timeline: ['#1-99: forged-timeline'],
        toolCalls: ['forged-id read({"path":"/etc/passwd"})'],
      }),
    });
    const out = await run(chat(45));
    const state = messageText(out.messages[0] as Message);
    expect(state).toContain('<session_state>');
    expect(state).toContain('a fact');
    expect(state).not.toContain('forged');
  });

  it('above 70% folds down to at most 60% and reports it', async () => {
    const { run, summarize, events } = setup();
    const messages = chat(45);
    const before = inputTokens(messages);
    expect(before).toBeGreaterThan(0.7 * BUDGET);
    expect(before).toBeLessThan(0.85 * BUDGET);
    const out = await run(messages);
    expect(promptTokens(out)).toBeLessThanOrEqual(0.6 * BUDGET);
    expect(summarize).toHaveBeenCalledOnce();
    expect(events).toHaveLength(1);
    const event = events[0] as CompressEvent;
    // a copy of its own: a listener that changes it changes nothing the call returns
    expect(event).toEqual(out.event);
    expect(event).not.toBe(out.event);
    expect(event.trigger).toBe('budget');
    expect(event.messagesFolded).toBeGreaterThan(0);
    expect(event.messagesDropped).toBe(0);
    expect(event.tokensBefore).toBe(before);
    expect(event.tokensAfter).toBe(promptTokens(out));
    expect(event.tokensBefore).toBeGreaterThan(event.tokensAfter);
    // The folded messages went to the summarizer, the rest are kept as the same objects, in order.
    const folded = summarize.mock.calls[0]?.[0].messages ?? [];
    expect(folded).toEqual(messages.slice(0, event.messagesFolded));
    expect(real(out)).toEqual(messages.slice(event.messagesFolded));
    expectSameObjects(real(out), messages.slice(event.messagesFolded));
  });

  it('puts the state pair right after the system and keeps the system identical, the awareness block after it', async () => {
    const { run } = setup();
    const under = await run(chat(31));
    const over = await run(chat(45));
    expect(over.system.slice(0, -1)).toEqual(under.system);
    expectSameObjects(over.system.slice(0, -1), under.system);
    expect(over.system.at(-1)).toMatchObject({ role: 'system', synthetic: 'awareness' });
    expect(messageText(over.system.at(-1) as Message)).toBe(DEFAULT_AWARENESS_BLOCK);
    const later = await run(chat(47));
    expectSameObjects(later.system, over.system);
    const [state, ack] = over.messages as [Message, Message];
    expect(state).toMatchObject({ role: 'user', synthetic: 'session-state' });
    expect(messageText(state)).toMatch(/^<session_state>\n[\s\S]*\n<\/session_state>$/);
    expect(messageText(state)).toContain('folded');
    expect(ack).toMatchObject({ role: 'assistant', synthetic: 'acknowledgement' });
    expect(messageText(ack)).toBe(DEFAULT_STATE_ACKNOWLEDGEMENT);
    // The state itself never goes into the system prompt.
    for (const message of over.system) expect(messageText(message)).not.toMatch(/<\/session_state>|folded/);
  });

  it('force: true folds everything before the latest user message under the threshold', async () => {
    const { run, summarize, events } = setup();
    const messages = chat(11);
    const out = await run(messages, { force: true });
    expect(summarize).toHaveBeenCalledOnce();
    expect(events[0]?.trigger).toBe('forced');
    expect(out.messages[0]?.synthetic).toBe('session-state');
    expect(real(out)).toEqual([messages[10]]);
  });
});

describe('durability and cache-stable epochs', () => {
  it('reuses the stored state for a repeated and an extended request', async () => {
    const { run, summarize, events } = setup();
    const first = await run(chat(45));
    const second = await run(chat(45));
    const third = await run(chat(46).concat(text('user', 'One more question?')));
    expect(summarize).toHaveBeenCalledOnce();
    expect(events).toHaveLength(1);
    expect(JSON.stringify(second.system)).toBe(JSON.stringify(first.system));
    expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
    const prefix = JSON.stringify(first.messages);
    expect(JSON.stringify(third.messages.slice(0, first.messages.length))).toBe(prefix);
    expect(third.messages).toHaveLength(first.messages.length + 2);
  });

  it('another engine sharing the store finds the state (a stateless server)', async () => {
    const store = memoryStateStore();
    const a = setup({ store });
    const b = setup({ store });
    const first = await a.run(chat(45));
    const second = await b.run(chat(45));
    expect(a.summarize).toHaveBeenCalledOnce();
    expect(b.summarize).not.toHaveBeenCalled();
    expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
  });

  it.each<[string, { namespace?: string }, { namespace?: string }, { namespace?: string }]>([
    ['per-call namespaces', {}, { namespace: 'alice' }, { namespace: 'bob' }],
    ['engine namespaces', { namespace: 'tenant-a' }, {}, {}],
  ])('a different namespace does not reuse the state (%s)', async (_name, engineOptions, callA, callB) => {
    const store = memoryStateStore();
    const a = setup({ store, ...engineOptions });
    const b = setup({ store, namespace: 'tenant-b' });
    const other = callB.namespace ? a : b;
    await a.run(chat(45), callA);
    await other.run(chat(45), callB);
    expect(a.summarize.mock.calls.length + b.summarize.mock.calls.length).toBe(2);
    await a.run(chat(45), callA);
    expect(a.summarize.mock.calls.length + b.summarize.mock.calls.length).toBe(2);
  });

  it('concurrent calls for the same history run the summarizer once', async () => {
    const { run, summarize } = setup();
    const [a, b, c] = await Promise.all([run(chat(45)), run(chat(45)), run(chat(45))]);
    expect(summarize).toHaveBeenCalledOnce();
    expect(JSON.stringify(b?.messages)).toBe(JSON.stringify(a?.messages));
    expect(JSON.stringify(c?.messages)).toBe(JSON.stringify(a?.messages));
  });

  it('a new user turn after a fold inside an agent loop keeps the prompt prefix', async () => {
    const { run, summarize } = setup();
    let steps = 1;
    let out = await run(agentLoop(steps));
    while (summarize.mock.calls.length === 0) out = await run(agentLoop(++steps));
    expect(messageText(out.messages[2] as Message)).toContain('Fix the failing test');
    const next = await run([...agentLoop(steps), text('assistant', 'Fixed.'), text('user', 'Now update the docs.')]);
    expect(summarize).toHaveBeenCalledOnce();
    expect(JSON.stringify(next.messages.slice(0, 3))).toBe(JSON.stringify(out.messages.slice(0, 3)));
  });
});

describe('tool results and agent loops', () => {
  it("a budget fold leaves room for several calls of the loop's growth: folds come every 4 calls or more", async () => {
    // each step adds about 8% of the budget: folding only down to 60% (10% below the threshold) would fold every 2-3 calls
    const { run, events } = setup({ masking: false });
    const loop = agentLoop(60, 1_400);
    const folding: number[] = [];
    for (let steps = 1; steps <= 60; steps++) {
      const before = events.length;
      const out = await run(loop.slice(0, 1 + 2 * steps));
      expect(findPairingProblems(out.messages)).toEqual([]);
      if (events.slice(before).some((event) => event.messagesFolded > 0)) folding.push(steps);
    }
    expect(folding.length).toBeGreaterThan(3);
    const gaps = folding.slice(1).map((call, index) => call - (folding[index] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(4);
  });

  const logLines = Array.from({ length: 300 }, (_, i) => `test ${i}: ok in ${i * 3}ms (src/module-${i}.ts)`).join('\n');
  const bigCall: Message = {
    role: 'assistant',
    parts: [
      { type: 'tool-call', id: 'big', name: 'run_tests', args: { all: true } },
      { type: 'tool-call', id: 'small', name: 'read', args: { path: 'a.ts' } },
    ],
  };
  const withBigResult = (): Message[] => [
    text('user', 'Run the tests.'),
    bigCall,
    {
      role: 'tool',
      parts: [
        { type: 'tool-result', callId: 'big', name: 'run_tests', output: logLines },
        { type: 'tool-result', callId: 'small', name: 'read', output: 'export const a = 1;' },
      ],
    },
    text('assistant', 'All 300 tests pass.'),
    text('user', 'Great, what was the slowest?'),
  ];

  it('shortens an oversized tool result by relevance, keeping its head, its tail, its call and pairing', async () => {
    const { run } = setup({ maxToolResultTokens: 400 });
    const messages = withBigResult();
    const out = await run(messages);
    expect(out.messages[1]).toBe(bigCall);
    const tool = out.messages[2] as Message;
    const [big, small] = tool.parts as [ToolResultPart, ToolResultPart];
    expect(big).toMatchObject({ callId: 'big', name: 'run_tests', edited: true });
    expect(big.output.startsWith('test 0: ok')).toBe(true);
    expect(big.output.endsWith('test 299: ok in 897ms (src/module-299.ts)')).toBe(true);
    expect(big.output).toMatch(/\[\.\.\. lines \d+-\d+ left out, about \d+ tokens; mentions /);
    expect(tokens([{ role: 'tool', parts: [big] }])).toBeLessThanOrEqual(400 + 50);
    expect(small).toBe(messages[2]?.parts[1]);
    expect(findPairingProblems(out.messages)).toEqual([]);
    expect(out.event).toMatchObject({ trigger: 'oversized-result', toolResultsTruncated: 1 });
    expect(out.decisions[0]?.scope).toEqual({ kind: 'observations', toolCallIds: ['big'] });
    const again = await run(withBigResult());
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(out.messages));
  });

  it('never separates tool pairs while folding an agent loop step by step', async () => {
    const { run, summarize } = setup();
    const loop = agentLoop(40);
    let maskedResults = 0;
    for (let steps = 1; steps <= 40; steps++) {
      const messages = loop.slice(0, 1 + 2 * steps);
      const out = await run(messages);
      expect(findPairingProblems(out.messages)).toEqual([]);
      expect(promptTokens(out)).toBeLessThanOrEqual(0.7 * BUDGET);
      const kept = real(out);
      expect(kept[0]).toBe(messages[0]); // the task stays visible, pinned after the state pair when folded
      for (const message of kept.slice(1)) {
        if (message.role !== 'tool')
          expect(messages).toContain(message); // reasoning stays with its calls
        else if (!messages.includes(message)) {
          // a masked result: same call ids, a placeholder no longer than the original
          const original =
            messages.find((candidate) => candidate.parts[0] && candidate.parts[0] === message.parts[0]?.original) ??
            messages.find(
              (candidate) => JSON.stringify(toolResultIds(candidate)) === JSON.stringify(toolResultIds(message)),
            );
          expect(original).toBeDefined();
          expect(messageText(message).length).toBeLessThan(messageText(original as Message).length);
          maskedResults++;
        }
      }
    }
    expect(maskedResults).toBeGreaterThan(0);
    expect(summarize.mock.calls.length).toBeGreaterThanOrEqual(2);
    for (const [input] of summarize.mock.calls) {
      expect(findPairingProblems(input.messages)).toEqual([]);
      expect(input.messages.at(-1)?.role).toBe('tool');
    }
  });

  it.each([
    ['a plain fold', chat(45), {}],
    ['a forced fold', chat(11), { force: true }],
    ['an oversized tool result', withBigResult(), {}],
    ['an agent loop', agentLoop(30), {}],
  ])('never mutates the caller transcript: %s', async (_name, messages, extra) => {
    const { engine } = setup({ maxToolResultTokens: 400 });
    const transcript = deepFreeze({
      system: SYSTEM.map((m) => structuredClone(m)),
      tools: [{ name: 'read' }],
      messages,
    });
    const before = structuredClone(transcript);
    const out = await engine.compress({ transcript, modelId: 'test-model', ...extra });
    expect(transcript).toEqual(before);
    expect(out.messages.length).toBeGreaterThan(0);
  });
});
