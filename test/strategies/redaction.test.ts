import { describe, expect, it, vi } from 'vitest';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { describeToolCall, redactedResultPlaceholder } from '../../src/options/prompts.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import {
  collectRedactions,
  DEFAULT_REDACTION_TOOL_NAME,
  MAX_REDACTION_IDS,
  MAX_REDACTION_REASON_CHARS,
  type RedactionRules,
  validateRedaction,
} from '../../src/strategies/redaction.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import { type Message, messageText, type ToolResultPart } from '../../src/transcript/transcript.js';
import { deepFreeze, expectSameObjects, setup, text } from '../helpers/fixtures.js';

const REDACT = DEFAULT_REDACTION_TOOL_NAME;

/** A distinctive read output of about 150 tokens. */
const OUT = (i: number) =>
  [
    `// src/f${i}.ts`,
    ...Array.from({ length: 12 }, (_, l) => `export const value${i}_${l} = ${i * 100 + l}; // f${i}`),
  ].join('\n');

/** An assistant message with the calls, then the tool message with their results. */
function step(calls: { id: string; name?: string; args?: unknown; output?: string }[], answered = true): Message[] {
  const assistant: Message = {
    role: 'assistant',
    parts: calls.map(({ id, name = 'read', args = { path: `src/${id}.ts` } }) => ({
      type: 'tool-call',
      id,
      name,
      args,
    })),
  };
  if (!answered) return [assistant];
  const results: Message = {
    role: 'tool',
    parts: calls.map(({ id, name = 'read', output = `output of ${id}` }) => ({
      type: 'tool-result',
      callId: id,
      name,
      output,
    })),
  };
  return [assistant, results];
}
const directive = (id: string, toolCallIds: unknown, reason: unknown = 'No longer needed.') => ({
  id,
  name: REDACT,
  args: { toolCallIds, reason },
  output: 'Redacted.',
});

describe('validateRedaction', () => {
  const messages = deepFreeze<Message[]>([
    { role: 'system', id: 'msg-system-1', parts: [{ type: 'text', text: 'Be careful.' }] },
    { ...text('user', 'Fix the bug in src/app.ts.'), id: 'msg-user-1' },
    ...step([{ id: 'read-1' }, { id: 'read-2' }, { id: 'mem-1', name: 'memory' }]),
    ...step([directive('redact-0', ['read-2'])]),
    ...step([{ id: 'approve-1', name: 'deploy' }], false), // waiting for approval: no result yet
  ]);
  const NO_CALL = 'no earlier tool call has this id (results of the current step cannot be redacted yet)';

  it.each<[string, unknown, RedactionRules, string[], [string, string][]]>([
    ['one id', ['read-1'], {}, ['read-1'], []],
    ['duplicates once', ['read-1', 'read-2', 'read-1'], {}, ['read-1', 'read-2'], []],
    ['an unknown id', ['nope'], {}, [], [['nope', NO_CALL]]],
    [
      'a user message id',
      ['msg-user-1'],
      {},
      [],
      [['msg-user-1', 'it is a user message; only tool results can be redacted']],
    ],
    [
      'a system message id',
      ['msg-system-1'],
      {},
      [],
      [['msg-system-1', 'it is a system message; only tool results can be redacted']],
    ],
    ['a call without a result yet', ['approve-1'], {}, [], [['approve-1', 'this tool call has no result yet']]],
    ['a redaction directive', ['redact-0'], {}, [], [['redact-0', 'redaction directives cannot be redacted']]],
    [
      'an excluded tool',
      ['mem-1', 'read-1'],
      { excludeTools: ['memory'] },
      ['read-1'],
      [['mem-1', 'results of memory are protected']],
    ],
    ['a tool that is not excluded', ['mem-1'], { excludeTools: ['grep'] }, ['mem-1'], []],
    ['a directive under another tool name', ['redact-0'], { toolName: 'forget' }, ['redact-0'], []],
    ['accepted and rejected ids together', ['nope', 'read-2'], {}, ['read-2'], [['nope', NO_CALL]]],
  ])('%s', (_name, toolCallIds, rules, accepted, rejected) => {
    const outcome = validateRedaction(messages, { toolCallIds, reason: '  Already used.  ' }, rules);
    expect(outcome.accepted).toEqual(accepted);
    expect(outcome.rejected.map((entry) => [entry.toolCallId, entry.reason])).toEqual(rejected);
    expect(outcome.reason).toBe('Already used.');
    expect(outcome.message).toContain(`Redacted ${accepted.length} tool result${accepted.length === 1 ? '' : 's'}`);
    for (const id of accepted) expect(outcome.message).toContain(id);
    for (const [id, why] of rejected) expect(outcome.message).toContain(`${id} (${why})`);
  });

  it('names the accepted ids in its answer', () => {
    expect(validateRedaction(messages, { toolCallIds: ['read-1', 'nope'], reason: 'Used.' }).message).toBe(
      `Redacted 1 tool result (read-1). Rejected: nope (${NO_CALL}).`,
    );
  });

  const many = (count: number) => ['read-1', ...Array.from({ length: count - 1 }, (_, i) => `x-${i}`)];
  it.each<[string, unknown, RegExp]>([
    ['an empty reason', { toolCallIds: ['read-1'], reason: '' }, /1 to 500 characters \(got 0\)/],
    ['a whitespace reason', { toolCallIds: ['read-1'], reason: ' \n\t ' }, /1 to 500 characters \(got 0\)/],
    [
      'a 10,000-character reason',
      { toolCallIds: ['read-1'], reason: 'x'.repeat(10_000) },
      /1 to 500 characters \(got 10000\)/,
    ],
    ['a 501-character reason', { toolCallIds: ['read-1'], reason: 'x'.repeat(501) }, /1 to 500 characters \(got 501\)/],
    ['no ids', { toolCallIds: [], reason: 'Used.' }, /Name 1 to 100 tool call ids \(got 0\)/],
    [
      'too many ids',
      { toolCallIds: many(MAX_REDACTION_IDS + 1), reason: 'Used.' },
      /Name 1 to 100 tool call ids \(got 101\)/,
    ],
    ['a missing reason', { toolCallIds: ['read-1'] }, /^The directive is invalid: reason: /],
    [
      'ids that are not an array',
      { toolCallIds: 'read-1', reason: 'Used.' },
      /^The directive is invalid: toolCallIds: /,
    ],
    [
      'ids that are not strings',
      { toolCallIds: [1, 2], reason: 'Used.' },
      /^The directive is invalid: toolCallIds\.0: /,
    ],
    ['no input', undefined, /^The directive is invalid: input: /],
    ['null', null, /^The directive is invalid: input: /],
    ['a string', 'read-1', /^The directive is invalid: input: /],
  ])('rejects the whole directive with %s, without throwing', (_name, input, message) => {
    const outcome = validateRedaction(messages, input);
    expect(outcome.accepted).toEqual([]);
    expect(outcome.reason).toBe('');
    expect(outcome.message).toMatch(message);
    expect(outcome.message).toMatch(/nothing was redacted|invalid/);
    // a directive that parsed rejects each id it named, with the message as the reason; one that did not names none
    const named = (input as { toolCallIds?: unknown } | undefined)?.toolCallIds;
    const parsed = !/^The directive is invalid/.test(outcome.message) && Array.isArray(named);
    expect(outcome.rejected.map((entry) => entry.toolCallId)).toEqual(parsed ? named.slice(0, MAX_REDACTION_IDS) : []);
    for (const entry of outcome.rejected) expect(entry.reason).toBe(outcome.message);
  });

  it('accepts the limits themselves: a 500-character reason (after trimming) and 100 ids', () => {
    expect(MAX_REDACTION_REASON_CHARS).toBe(500);
    const reason = validateRedaction(messages, { toolCallIds: ['read-1'], reason: ` ${'x'.repeat(500)} ` });
    expect(reason.accepted).toEqual(['read-1']);
    expect(reason.reason).toHaveLength(500);
    const ids = validateRedaction(messages, { toolCallIds: many(MAX_REDACTION_IDS), reason: 'Used.' });
    expect(ids.accepted).toEqual(['read-1']);
    expect(ids.rejected).toHaveLength(99);
  });

  it('says "an assistant message" for the id of an assistant message', () => {
    const withIds = [
      ...messages.slice(0, 2),
      { ...(messages[2] as Message), id: 'msg-assistant-1' },
      ...messages.slice(3),
    ];
    const outcome = validateRedaction(withIds, { toolCallIds: ['msg-assistant-1'], reason: 'Used.' });
    expect(outcome.rejected[0]?.reason).toBe('it is an assistant message; only tool results can be redacted');
  });
});

const redactionsOf = (...args: Parameters<typeof collectRedactions>) => collectRedactions(...args).reasons;

describe('collectRedactions', () => {
  const base = deepFreeze<Message[]>([
    text('user', 'Fix the bug.'),
    ...step([{ id: 'read-1' }, { id: 'read-2' }]),
    // read-3 is called in the same step as the directive: not an earlier result, so not redacted
    ...step([directive('d1', ['read-1', 'read-3'], 'Stale.'), { id: 'read-3' }]),
  ]);

  it('replays executed directives against the messages before them', () => {
    expect(redactionsOf(base)).toEqual(new Map([['read-1', 'Stale.']]));
    expect(redactionsOf(base.slice(0, 3))).toEqual(new Map());
  });

  it('ignores a directive that has no result (not executed)', () => {
    const pending = [...base, ...step([directive('d2', ['read-3', 'read-2'], 'Done.')], false)];
    expect(redactionsOf(pending)).toEqual(new Map([['read-1', 'Stale.']]));
    const executed = [...base, ...step([directive('d2', ['read-3', 'read-2'], 'Done.')])];
    expect(redactionsOf(executed)).toEqual(
      new Map([
        ['read-1', 'Stale.'],
        ['read-3', 'Done.'],
        ['read-2', 'Done.'],
      ]),
    );
  });

  it('treats a repeated directive as a no-op and lets the latest reason win', () => {
    const repeated = [...base, ...step([directive('d2', ['read-1'], 'Stale.')])];
    expect(redactionsOf(repeated)).toEqual(redactionsOf(base));
    const updated = [...repeated, ...step([directive('d3', ['read-1'], 'Superseded by the fix.')])];
    expect(redactionsOf(updated)).toEqual(new Map([['read-1', 'Superseded by the fix.']]));
  });

  it('ignores ids that are no longer in the history, malformed directives and rejected ids', () => {
    // the client trimmed the oldest messages: the directive's ids are gone
    expect(redactionsOf(base.slice(3))).toEqual(new Map());
    const odd = [
      ...base,
      ...step([{ id: 'bad-1', name: REDACT, args: 'read-2', output: 'invalid' }]),
      ...step([directive('bad-2', ['read-2'], '')]),
      ...step([directive('bad-3', ['d1', 'read-2'], 'Both.')]),
    ];
    expect(redactionsOf(odd)).toEqual(
      new Map([
        ['read-1', 'Stale.'],
        ['read-2', 'Both.'],
      ]),
    );
  });

  it('follows the rules: another tool name, excluded tools', () => {
    const renamed = [
      text('user', 'go'),
      ...step([{ id: 'read-1' }, { id: 'mem-1', name: 'memory' }]),
      ...step([{ ...directive('f1', ['read-1', 'mem-1'], 'Used.'), name: 'forget' }]),
    ];
    expect(redactionsOf(renamed)).toEqual(new Map());
    expect(redactionsOf(renamed, { toolName: 'forget' })).toEqual(
      new Map([
        ['read-1', 'Used.'],
        ['mem-1', 'Used.'],
      ]),
    );
    expect(redactionsOf(renamed, { toolName: 'forget', excludeTools: ['memory'] })).toEqual(
      new Map([['read-1', 'Used.']]),
    );
  });
});

describe('redaction in the engine', () => {
  const BIG_WINDOW = { contextWindow: 200_000, reserveOutputTokens: 4_000 } as const;
  const REASON = 'Read both files already; the fix is in f5.';
  const readStep = (i: number) => step([{ id: `read-${i}`, output: OUT(i) }]);
  /** A task, then `steps` reads; at step `at` the model also redacts read-1 and read-2. */
  const conversation = (steps: number, at = 5, name = REDACT): Message[] =>
    deepFreeze([
      text('user', 'Fix the bug in src/app.ts.'),
      ...Array.from({ length: steps }, (_, i) =>
        i === at
          ? step([
              { ...directive('redact-1', ['read-1', 'read-2'], REASON), name },
              { id: `read-${i}`, output: OUT(i) },
            ])
          : readStep(i),
      ).flat(),
    ]);
  const placeholder = (i: number) =>
    redactedResultPlaceholder({ call: describeToolCall('read', { path: `src/read-${i}.ts` }), reason: REASON });
  const resultOf = (out: CompressOutput, id: string) =>
    out.messages
      .flatMap((message) => message.parts)
      .find((part) => part.type === 'tool-result' && part.callId === id) as ToolResultPart | undefined;
  const everything = (out: CompressOutput) => [...out.system, ...out.messages].map(messageText).join('\n');

  it('replaces a redacted result by a placeholder with the reason and keeps its call', async () => {
    const { run, events } = setup(BIG_WINDOW);
    // the call of the step right after the directive: its history ends with the directive's result
    const messages = conversation(6);
    expect(resultOf(await run(messages.slice(0, 11)), 'read-1')?.output).toBe(OUT(1)); // before the directive
    const out = await run(messages);
    expect(findPairingProblems(out.messages)).toEqual([]);
    for (const i of [1, 2]) {
      expect(resultOf(out, `read-${i}`)).toMatchObject({ output: placeholder(i), edit: 'redacted', edited: true });
      expect(placeholder(i)).toContain(REASON);
      expect(everything(out)).not.toContain(OUT(i));
    }
    out.messages.forEach((message, index) => {
      if (index !== 4 && index !== 6) expect(message).toBe(messages[index]); // calls and other results untouched
    });
    expect(events).toHaveLength(1);
    const freed = [1, 2].reduce(
      (sum, i) => sum + Math.ceil(OUT(i).length / 4) - Math.ceil(placeholder(i).length / 4),
      0,
    );
    expect(out.event).toMatchObject({ trigger: 'redaction', toolResultsRedacted: { count: 2, tokensFreed: freed } });
    expect(out.decisions).toEqual([
      expect.objectContaining({
        trigger: 'redaction',
        scope: { kind: 'observations', toolCallIds: ['read-1', 'read-2'] },
      }),
    ]);
    // a repeated request, and the next step, reuse the same view silently
    expect(JSON.stringify((await run(messages)).messages)).toBe(JSON.stringify(out.messages));
    const next = await run(conversation(9));
    expect(JSON.stringify(next.messages.slice(0, out.messages.length))).toBe(JSON.stringify(out.messages));
    expect(events).toHaveLength(1);
  });

  it.each<[string, CompressionOptions, string]>([
    ['redaction: false', { redaction: false }, REDACT],
    ['another tool name', { redaction: { toolName: 'forget' } }, REDACT],
    ['an excluded tool', { masking: { excludeTools: ['read'] } }, REDACT],
  ])('does not replay with %s', async (_name, options, name) => {
    const { run, events } = setup({ ...BIG_WINDOW, ...options });
    const messages = conversation(8, 5, name);
    const out = await run(messages);
    expectSameObjects(out.messages, messages);
    expect(events).toEqual([]);
  });

  it('replays a directive under the configured tool name', async () => {
    const { run } = setup({ ...BIG_WINDOW, redaction: { toolName: 'forget' } });
    expect(resultOf(await run(conversation(8, 5, 'forget')), 'read-1')?.output).toBe(placeholder(1));
  });

  it('redacts only the occurrences of a reused call id that came before the directive', async () => {
    const { run } = setup(BIG_WINDOW);
    const reused = (i: number) => ({ id: 'call_0', args: { path: `src/f${i}.ts` }, output: OUT(i) });
    const messages: Message[] = deepFreeze([
      text('user', 'Fix the bug.'),
      ...[0, 1, 2].flatMap((i) => step([reused(i)])),
      ...step([reused(3), directive('call_1', ['call_0'], 'Old reads.')]),
      ...[4, 5].flatMap((i) => step([reused(i)])),
    ]);
    const outputs = (await run(messages)).messages.flatMap((message) =>
      message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result' && part.callId === 'call_0'),
    );
    const edits = outputs.map((part) => part.edit);
    expect(edits.slice(0, 3)).toContain('redacted'); // which earlier occurrences is a choice; at least one
    expect(edits.slice(3)).toEqual([undefined, undefined, undefined]); // its own step and the later ones stay
  });

  /** A summarizer spy that keeps the text of everything it folds, so a leak would show in the state. */
  const echo = () =>
    vi.fn(
      async ({ messages, previous }: SummarizeInput): Promise<SessionState> => ({
        logos: [...(previous?.logos ?? []), ...messages.map(messageText)],
        pathos: [],
        abstract: [],
        conversationSummary: `Folded ${messages.length} messages.`,
      }),
    );

  it('gives the summarizer the placeholder, never the redacted content, and keeps the prompt valid (force)', async () => {
    const summarize = echo();
    const { run } = setup({ ...BIG_WINDOW, summarizer: summarize });
    const messages = conversation(8);
    const out = await run(messages, { force: true });
    expect(summarize).toHaveBeenCalledOnce();
    const folded = summarize.mock.calls[0]?.[0].messages ?? [];
    expect(folded.length).toBeGreaterThan(12); // the directive itself is folded too
    const texts = folded.map(messageText).join('\n');
    for (const i of [1, 2]) {
      expect(texts).not.toContain(OUT(i));
      expect(texts).toContain(placeholder(i));
      expect(everything(out)).not.toContain(OUT(i));
    }
    expect(texts).toContain(OUT(3));
    folded.forEach((message, index) => {
      // copies of the caller's messages, the redacted ones (4 and 6) with placeholders
      if (index !== 4 && index !== 6) expect(message).toEqual(messages[index]);
    });
    expect(findPairingProblems(out.messages)).toEqual([]);
    expect(messageText(out.messages[0] as Message)).toContain(REASON);
  });

  it('never lets a redacted result back in while a small window folds the directive away', async () => {
    // a state that quotes the start of each folded message: smaller than what it replaces, so every fold is kept
    const summarize = vi.fn(
      async ({ messages, previous }: SummarizeInput): Promise<SessionState> => ({
        logos: [...(previous?.logos ?? []), ...messages.map((message) => messageText(message).slice(0, 60))],
        pathos: [],
        abstract: [],
        conversationSummary: `Folded ${messages.length} messages.`,
      }),
    );
    const { run, errors } = setup({ summarizer: summarize }); // contextWindow 4_000
    const messages = conversation(30, 3);
    let foldedDirective = 0;
    for (let steps = 4; steps <= 30; steps++) {
      const out = await run(messages.slice(0, 1 + 2 * steps));
      expect(findPairingProblems(out.messages)).toEqual([]);
      for (const i of [1, 2]) expect(everything(out)).not.toContain(OUT(i));
      if (
        !out.messages.some((message) =>
          message.parts.some((part) => part.type === 'tool-call' && part.id === 'redact-1'),
        )
      )
        foldedDirective++;
    }
    expect(foldedDirective).toBeGreaterThan(5);
    expect(summarize.mock.calls.length).toBeGreaterThan(0);
    for (const [input] of summarize.mock.calls) {
      const texts = input.messages.map(messageText).join('\n');
      for (const i of [1, 2]) expect(texts).not.toContain(OUT(i));
    }
    expect(errors).toEqual([]);
  });
});
