import type { ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { approximateCounter, explainCompression } from '../../../adapters/ai-sdk/index.js';
import { TRIGGER_NAMES } from '../../../src/reports/decisions.js';

/** ~1500 tokens with the approximate counter. */
const BIG = 'export function area(r: number) { return Math.PI * r * r; }\n'.repeat(100);

const step = (id: string, toolName: string, input: unknown, output: string, text?: string): ModelMessage[] => [
  {
    role: 'assistant',
    content: [
      ...(text ? [{ type: 'text' as const, text }] : []),
      { type: 'tool-call', toolCallId: id, toolName, input },
    ],
  },
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: output } }],
  },
];

/** A tool session: explore, edit, test, pass, then the next task begins. 15 messages. */
const session = (): ModelMessage[] => [
  { role: 'user', content: 'Fix the rounding bug in src/billing/tax.ts, then look at the mailer.' },
  ...step('r2', 'read_file', { path: 'src/billing/rates.ts' }, BIG, 'Let me look at the billing code.'),
  ...step('g1', 'bash', { command: 'grep -rn "round(" src/billing' }, BIG),
  ...step('r1', 'read_file', { path: 'src/billing/tax.ts' }, BIG + BIG),
  ...step('e1', 'edit_file', { path: 'src/billing/tax.ts', old_str: 'round(x)', new_str: 'round(x, 2)' }, 'edited'),
  ...step('t1', 'bash', { command: 'pytest tests/test_tax.py' }, '=== 3 passed in 0.1s ==='),
  ...step('r3', 'read_file', { path: 'lib/mail/send.ts' }, 'export function send() {}'),
  ...step('r4', 'read_file', { path: 'lib/mail/queue.ts' }, 'export function queue() {}'),
];

/** A long chat of plain turns, ~100 tokens each. */
const chat = (turns: number): ModelMessage[] =>
  Array.from({ length: turns * 2 }, (_, index) =>
    index % 2 === 0
      ? { role: 'user' as const, content: `Question ${index}: ${'please explain this part '.repeat(16)}` }
      : {
          role: 'assistant' as const,
          content: [{ type: 'text' as const, text: `Answer ${index}: ${'it works so '.repeat(36)}` }],
        },
  );

const counter = approximateCounter();
/**
 * A window far above these short sessions, without a prompt cache: a change below the threshold costs no rewrite, so
 * the triggers alone decide what the log shows (with a cache, so early in a run nothing below a far threshold pays).
 */
const UNCACHED = { contextWindow: 40_000, cachePricing: { read: 1, write: 1 } };

describe('explainCompression', () => {
  it('logs a fold it put off, and why: the work after the segment still quotes one of its results', async () => {
    // the last step quotes a constant that only the rates.ts read showed
    const messages = [
      ...session().slice(0, 1),
      ...step('r2', 'read_file', { path: 'src/billing/rates.ts' }, `${BIG}const ROUNDING_MODE_V2 = 1;`),
      ...session().slice(3, -2),
      ...step('r4', 'read_file', { path: 'lib/mail/queue.ts' }, 'export function queue() {}', 'ROUNDING_MODE_V2 here?'),
    ];
    // the call with the whole history: replayed call by call, the segment folds before the quote is written
    const options = {
      ...UNCACHED,
      tokenCounter: counter,
      triggers: { staleness: false as const },
      mode: 'final' as const,
    };
    const log = await explainCompression(messages, options);
    const deferred = log.filter((entry) => entry.deferred);
    expect(deferred).toHaveLength(1);
    expect(deferred[0]?.trigger).toBe('subtask');
    expect(deferred[0]?.details).toMatch(
      /but waits: the work after it still quotes 1 of its results \(r2 \("ROUNDING_MODE_V2"\)\)/,
    );
    expect(log.filter((entry) => !entry.deferred && entry.trigger === 'subtask')).toEqual([]);
    // the same history without the quote: the fold is made
    const plain = [
      ...messages.slice(0, -2),
      ...step('r4', 'read_file', { path: 'lib/mail/queue.ts' }, 'export function queue() {}'),
    ];
    const made = await explainCompression(plain, options);
    expect(made.some((entry) => !entry.deferred && entry.trigger === 'subtask')).toBe(true);
    expect(made.filter((entry) => entry.deferred)).toEqual([]);
  });

  it('returns a decision log for AI SDK messages of a tool session', async () => {
    const messages = session();
    const log = await explainCompression(messages, { ...UNCACHED, tokenCounter: counter });
    expect(log.length).toBeGreaterThan(0);
    for (const entry of log) {
      expect(Object.keys(entry).sort()).toEqual(['atMessage', 'confidence', 'details', 'scope', 'trigger']);
      expect(TRIGGER_NAMES).toContain(entry.trigger);
      expect(entry.confidence).toBeGreaterThan(0);
      expect(entry.confidence).toBeLessThanOrEqual(1);
      expect(entry.details).not.toBe('');
      expect(['messages', 'observations']).toContain(entry.scope.kind);
      expect(entry.atMessage).toBeGreaterThan(0);
      expect(entry.atMessage).toBeLessThanOrEqual(messages.length);
    }
    // the call made after the edit masks the read of src/billing/tax.ts that the edit superseded (and, with a
    // rewrite that costs nothing, the other reads of the exploration)
    expect(log[0]).toMatchObject({ trigger: 'staleness', atMessage: 9 });
    expect(log[0]?.scope).toMatchObject({ kind: 'observations', toolCallIds: expect.arrayContaining(['r1']) });
    expect(log[0]?.details).toContain('r1: superseded by the edit of src/billing/tax.ts at step 4');
    // entries come in the order of the calls
    const at = log.map((entry) => entry.atMessage);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('replays one call per assistant turn: decisions are taken at assistant messages or at the end', async () => {
    const messages = session();
    const log = await explainCompression(messages, { ...UNCACHED, tokenCounter: counter });
    expect(log.length).toBeGreaterThan(0);
    for (const { atMessage } of log) {
      expect(atMessage === messages.length || messages[atMessage]?.role === 'assistant').toBe(true);
    }
  });

  it('gives the expected log with the default tokenizer and a small window, from every fresh engine', async () => {
    const small = { contextWindow: 8_000, instructions: 'Be brief.' };
    const first = await explainCompression(session(), small);
    expect(first.map(({ trigger, scope, atMessage }) => ({ trigger, scope, atMessage }))).toMatchInlineSnapshot(`
      [
        {
          "atMessage": 7,
          "scope": {
            "from": 0,
            "kind": "messages",
            "to": 5,
          },
          "trigger": "budget",
        },
        {
          "atMessage": 7,
          "scope": {
            "kind": "observations",
            "toolCallIds": [
              "r1",
            ],
          },
          "trigger": "oversized-result",
        },
      ]
    `);
    // each call builds its own engine: nothing a first run leaves behind may change a second one
    expect(await explainCompression(session(), small)).toEqual(first);
  });

  it('calls no model: a model passed as summarizer is never called', async () => {
    const doGenerate = vi.fn(async () => {
      throw new Error('the summarizer model must not be called');
    });
    const model = new MockLanguageModelV4({ doGenerate });
    const log = await explainCompression(chat(30), {
      contextWindow: 4_000,
      tokenCounter: counter,
      // @ts-expect-error `summarizer` is not an option of explainCompression
      summarizer: model,
    });
    expect(log.some((entry) => entry.trigger === 'budget')).toBe(true);
    expect(doGenerate).not.toHaveBeenCalled();
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('works without any model and logs nothing for a short chat', async () => {
    await expect(explainCompression(chat(3), { contextWindow: 8_000 })).resolves.toEqual([]);
    await expect(explainCompression([], { contextWindow: 8_000 })).resolves.toEqual([]);
  });

  it("mode 'final' explains only the call with the whole history", async () => {
    const messages = chat(30);
    const options = { contextWindow: 4_000, tokenCounter: counter };
    const replay = await explainCompression(messages, options);
    const final = await explainCompression(messages, { ...options, mode: 'final' });
    expect(final.length).toBeGreaterThan(0);
    for (const entry of final) expect(entry.atMessage).toBe(messages.length);
    // replaying makes several calls: decisions at earlier messages
    expect(replay.some((entry) => entry.atMessage < messages.length)).toBe(true);
    expect(await explainCompression(messages, { ...options, mode: 'replay' })).toEqual(replay);
  });

  it("logs 'budget' decisions with a small context window, none with a large one", async () => {
    const messages = chat(30);
    const small = await explainCompression(messages, { contextWindow: 4_000, tokenCounter: counter });
    const budget = small.filter((entry) => entry.trigger === 'budget');
    expect(budget.length).toBeGreaterThan(0);
    expect(budget[0]?.scope.kind).toBe('messages');
    expect(budget[0]?.details).toMatch(/of the budget passed the 70% threshold/);
    const large = await explainCompression(messages, { contextWindow: 200_000, tokenCounter: counter });
    expect(large.filter((entry) => entry.trigger === 'budget')).toEqual([]);
  });

  it('counts the instructions: a long system prompt makes budget decisions come earlier', async () => {
    const messages = chat(30);
    const options = { contextWindow: 4_000, tokenCounter: counter };
    const firstBudget = async (instructions?: string) =>
      (await explainCompression(messages, { ...options, instructions })).find((entry) => entry.trigger === 'budget')
        ?.atMessage ?? Number.POSITIVE_INFINITY;
    const without = await firstBudget();
    const short = await firstBudget('Be brief.');
    const long = await firstBudget(`You are a support agent. ${'Follow the policy exactly. '.repeat(120)}`);
    expect(Number.isFinite(without)).toBe(true);
    // a few tokens may move the crossing by a message; a long prompt moves it well before
    expect(short).toBeLessThanOrEqual(without);
    expect(long).toBeLessThan(short);
  });

  it('does not mutate the caller messages', async () => {
    const messages = session();
    const copy = structuredClone(messages);
    await explainCompression(messages, { contextWindow: 8_000, tokenCounter: counter, instructions: 'Be brief.' });
    expect(messages).toEqual(copy);
  });

  it('passes the engine options through: triggers off, no semantic or staleness decisions', async () => {
    const log = await explainCompression(session(), {
      contextWindow: 40_000,
      tokenCounter: counter,
      triggers: { semantic: false, staleness: false },
    });
    expect(log.filter((entry) => entry.trigger !== 'budget' && entry.trigger !== 'turns')).toEqual([]);
  });
});

describe('explainCompression with the options of a live model', () => {
  it('accepts cacheBreakpoints and never calls onCall: no request goes out, no call happens', async () => {
    const reports: unknown[] = [];
    const messages = chat(30);
    const log = await explainCompression(messages, {
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      cacheBreakpoints: true,
      onCall: (report) => reports.push(report),
    });
    expect(log.length).toBeGreaterThan(0);
    expect(reports).toEqual([]);
  });
});
