import { describe, expect, it } from 'vitest';
import {
  applyResultEdits,
  DEFAULT_MASKING_OPTIONS,
  type MaskingOptions,
  maskableKeys,
  maskPlaceholderFor,
  planMaskingStep,
  type ResultEdit,
  type ResultSite,
  resultEdits,
  resultSites,
} from '../../src/masking/observation-masking.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import type { Message, ToolResultPart } from '../../src/transcript/transcript.js';
import { deepFreeze, expectSameObjects, meter, text } from '../helpers/fixtures.js';

/** Unit tests of the masking plan and of the edits that replace tool results. Engine level: masking-engine.test.ts. */

const BIG = (tag: string) => `${tag}: ${'lorem ipsum dolor sit amet '.repeat(30)}`; // ~200 tokens
const TINY = 'ok';

interface StepSpec {
  readonly id: string;
  readonly name?: string;
  readonly output?: string;
  readonly isError?: boolean;
}

/** One agent step: an assistant message with the calls, then one tool message with their results. */
function step(...specs: StepSpec[]): Message[] {
  return [
    {
      role: 'assistant',
      parts: specs.map(({ id, name = 'read' }) => ({ type: 'tool-call', id, name, args: { path: `src/${id}.ts` } })),
    },
    {
      role: 'tool',
      parts: specs.map(({ id, name = 'read', output = BIG(id), isError }) => ({
        type: 'tool-result',
        callId: id,
        name,
        output,
        ...(isError ? { isError: true } : {}),
      })),
    },
  ];
}

/** A task and one single-call step per spec; the last step is the current one. */
const loop = (...specs: StepSpec[]): Message[] => [text('user', 'Fix the bug.'), ...specs.flatMap((s) => step(s))];
const ids = (...names: string[]) => names.map((id) => ({ id }));

function plan(
  messages: readonly Message[],
  options: MaskingOptions = {},
  { covered = 0, hidden = [] as string[] } = {},
) {
  const resolved = { ...DEFAULT_MASKING_OPTIONS, clearAtLeast: 0, ...options };
  const sites = resultSites(messages, meter);
  return planMaskingStep({
    sites,
    covered,
    hidden: new Set(hidden),
    maskable: maskableKeys(messages, sites, resolved, DEFAULT_REDACTION_TOOL_NAME),
    keepRecent: resolved.keepRecent,
    meter,
  });
}

/** The part at `part` of message `index`, as a tool result. */
const partAt = (messages: readonly Message[], index: number, part: number) =>
  messages[index]?.parts[part] as ToolResultPart;

const siteOf = (messages: readonly Message[], id: string) =>
  resultSites(messages, meter).find((site) => site.callId === id) as ResultSite;

describe('resultSites', () => {
  it('lists every result in order with its call name, arguments, message index, error flag and tokens', () => {
    const messages = loop({ id: 'a' }, { id: 'b', name: 'grep', output: TINY, isError: true });
    expect(resultSites(messages, meter)).toEqual([
      { key: 'a', callId: 'a', name: 'read', args: { path: 'src/a.ts' }, messageIndex: 2, isError: false, tokens: 204 },
      { key: 'b', callId: 'b', name: 'grep', args: { path: 'src/b.ts' }, messageIndex: 4, isError: true, tokens: 1 },
    ]);
  });

  it('keys a call id that an agent reused by its occurrence, and pairs each result with the latest call', () => {
    const messages = [
      text('user', 'go'),
      ...step({ id: 'call_0' }),
      ...step({ id: 'call_0', name: 'grep' }),
      ...step({ id: 'call_0' }),
    ];
    expect(resultSites(messages, meter).map(({ key, name, messageIndex }) => [key, name, messageIndex])).toEqual([
      ['call_0', 'read', 2],
      ['call_0#1', 'grep', 4],
      ['call_0#2', 'read', 6],
    ]);
    expect(plan(messages, { keepRecent: 0 }).keys).toEqual(['call_0', 'call_0#1']);
    const edits = resultEdits({
      sites: resultSites(messages, meter),
      masked: new Set(['call_0#1']),
      redactions: new Map(),
      keepRecent: 10,
      meter,
    });
    const out = applyResultEdits(messages, edits);
    out.forEach((message, index) => {
      expect(message === messages[index]).toBe(index !== 4);
    });
    expect(partAt(out, 4, 0).edit).toBe('masked');
  });
});

describe('planMaskingStep', () => {
  const six = loop(...ids('r0', 'r1', 'r2', 'r3', 'r4', 'r5')); // r5 is the current step
  const sixDone = [...six, text('assistant', 'Done.'), text('user', 'Thanks, next task.')]; // no current step

  it.each([
    [0, six, ['r0', 'r1', 'r2', 'r3', 'r4']],
    [1, six, ['r0', 'r1', 'r2', 'r3', 'r4']],
    [2, six, ['r0', 'r1', 'r2', 'r3']],
    [5, six, ['r0']],
    [6, six, []],
    [10, six, []],
    [0, sixDone, ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']],
    [1, sixDone, ['r0', 'r1', 'r2', 'r3', 'r4']],
    [4, sixDone, ['r0', 'r1']],
  ])('keepRecent %i: the newest are kept, results of the current step never masked', (keepRecent, messages, want) => {
    expect(plan(messages, { keepRecent }).keys).toEqual(want);
  });

  it('never masks the results after the last assistant message, even with parallel calls', () => {
    const messages = [text('user', 'go'), ...step({ id: 'a' }), ...step({ id: 'b' }, { id: 'c' })];
    expect(plan(messages, { keepRecent: 0 }).keys).toEqual(['a']);
    // once the model answered (the last message is an assistant message with open calls) they are old enough
    const next: Message[] = [
      ...messages,
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'd', name: 'read', args: {} }] },
    ];
    expect(plan(next, { keepRecent: 0 }).keys).toEqual(['a', 'b', 'c']);
  });

  it('never masks excluded tools nor the redaction tool', () => {
    const messages = loop(
      { id: 'a' },
      { id: 'm1', name: 'memory' },
      { id: 'x', name: DEFAULT_REDACTION_TOOL_NAME },
      { id: 'b' },
      { id: 'now' },
    );
    expect(plan(messages, { keepRecent: 0 }).keys).toEqual(['a', 'm1', 'b']);
    expect(plan(messages, { keepRecent: 0, excludeTools: ['memory'] }).keys).toEqual(['a', 'b']);
    expect(plan(messages, { keepRecent: 0, excludeTools: ['memory', 'read'] }).keys).toEqual([]);
  });

  it.each([
    [
      'the latest failed attempt of a tool is kept',
      [
        { id: 'e', isError: true },
        { id: 'g', name: 'grep' },
      ],
      ['g'],
    ],
    [
      'an error retried by a later call of the same tool may be masked',
      [{ id: 'e', isError: true }, { id: 'ok' }],
      ['e', 'ok'],
    ],
    [
      'only the latest of several errors of a tool is kept',
      [
        { id: 'e1', isError: true },
        { id: 'e2', isError: true },
        { id: 'g', name: 'grep' },
      ],
      ['e1', 'g'],
    ],
    [
      'a later result of another tool is no retry',
      [
        { id: 'e', isError: true },
        { id: 'g', name: 'grep' },
        { id: 'h', name: 'grep' },
      ],
      ['g', 'h'],
    ],
  ] satisfies [string, StepSpec[], string[]][])('%s', (_name, specs, want) => {
    expect(plan(loop(...specs, { id: 'now', name: 'ls' }), { keepRecent: 0 }).keys).toEqual(want);
  });

  it('ignores folded, hidden and tiny results', () => {
    const messages = loop(
      { id: 'a' },
      { id: 'b' },
      { id: 'tiny', output: TINY },
      { id: 'c' },
      { id: 'd' },
      { id: 'now' },
    );
    // messages: 0 task, a at 2, b at 4, tiny at 6, c at 8, d at 10, now at 12
    expect(plan(messages, { keepRecent: 0 }).keys).toEqual(['a', 'b', 'c', 'd']);
    expect(plan(messages, { keepRecent: 0 }, { covered: 3 }).keys).toEqual(['b', 'c', 'd']);
    expect(plan(messages, { keepRecent: 0 }, { covered: 9, hidden: ['d'] }).keys).toEqual([]);
    expect(plan(messages, { keepRecent: 0 }, { hidden: ['a', 'c'] })).toMatchObject({
      keys: ['b', 'd'],
      firstMessageIndex: 4,
    });
  });

  it('reports the tokens freed and the first message it changes; placeholders are always shorter', () => {
    const messages = loop(
      { id: 'a' },
      { id: 'b', output: BIG('b').repeat(3) },
      { id: 'c', output: 'x'.repeat(600) },
      {
        id: 'now',
      },
    );
    const step = plan(messages, { keepRecent: 0 });
    expect(step.keys).toEqual(['a', 'b', 'c']);
    expect(step.firstMessageIndex).toBe(2);
    let freed = 0;
    for (const id of step.keys) {
      const site = siteOf(messages, id);
      const placeholder = maskPlaceholderFor(site, 0);
      expect(meter.countText(placeholder)).toBeLessThan(site.tokens);
      expect(placeholder.length).toBeLessThan(BIG(id).length);
      freed += site.tokens - meter.countText(placeholder);
    }
    expect(step.freed).toBe(freed);
    expect(plan(loop({ id: 'now' }))).toEqual({ keys: [], freed: 0, firstMessageIndex: Number.POSITIVE_INFINITY });
  });

  it('masks a result exactly when its placeholder is shorter', () => {
    const outcomes = Array.from({ length: 80 }, (_, tokens) => {
      const messages = loop({ id: 'p', output: 'abcd'.repeat(tokens) }, { id: 'now' });
      const site = siteOf(messages, 'p');
      const placeholderTokens = meter.countText(maskPlaceholderFor(site, 0));
      const step = plan(messages, { keepRecent: 0, excludeTools: [] });
      const masked = step.keys.includes('p');
      expect(masked).toBe(placeholderTokens < tokens);
      expect(step.freed).toBe(masked ? tokens - placeholderTokens : 0);
      return masked;
    });
    expect(outcomes.indexOf(true)).toBeGreaterThan(20); // tiny results stay
    expect(outcomes.slice(outcomes.indexOf(true)).every(Boolean)).toBe(true);
  });

  it('describes the call in the placeholder: name, arguments, size, and that the tool can be called again', () => {
    const messages = loop({ id: 'a' }, { id: 'now' });
    expect(maskPlaceholderFor(siteOf(messages, 'a'), 7)).toBe(
      '[Result of read({"path":"src/a.ts"}) cleared to save context: 204 tokens, older than the 7 most recent tool results. Call the tool again if you need it.]',
    );
  });
});

describe('resultEdits', () => {
  const messages = loop({ id: 'a' }, { id: 'b' }, { id: 'tiny', output: TINY }, { id: 'now' });
  const sites = resultSites(messages, meter);
  const edits = (masked: string[], redactions: [string, string][] = []) =>
    resultEdits({ sites, masked: new Set(masked), redactions: new Map(redactions), keepRecent: 10, meter });

  it('masks with the placeholder, skips edits that would not be shorter, and lets a redaction win', () => {
    const result = edits(['a', 'b', 'tiny'], [['b', 'Superseded by a newer read.']]);
    expect([...result.keys()]).toEqual(['a', 'b']);
    expect(result.get('a')).toEqual({ kind: 'masked', text: maskPlaceholderFor(siteOf(messages, 'a'), 10) });
    expect(result.get('b')).toEqual({
      kind: 'redacted',
      text: `[Result of read({"path":"src/b.ts"}) redacted at the assistant's request: Superseded by a newer read.]`,
    });
    // a redaction whose placeholder (its reason) is longer than the result is skipped too
    expect(edits([], [['tiny', 'No longer needed.']]).size).toBe(0);
    expect(edits([], [['a', 'x'.repeat(1_000)]]).size).toBe(0);
    expect(edits([]).size).toBe(0);
  });

  it('ignores ids that are not results of the transcript', () => {
    expect(edits(['nope'], [['gone', 'Not needed.']]).size).toBe(0);
  });
});

describe('applyResultEdits', () => {
  const messages = deepFreeze(
    loop({ id: 'a' }, { id: 'b' }, { id: 'c', name: 'grep', isError: true }, { id: 'now' }).concat(
      step({ id: 'p1' }, { id: 'p2' }),
    ),
  );
  const before = structuredClone(messages);
  const sites = resultSites(messages, meter);
  const edits = resultEdits({
    sites,
    masked: new Set(['a', 'c', 'p1']),
    redactions: new Map([['b', 'Not needed.']]),
    keepRecent: 10,
    meter,
  });

  it('replaces only the edited outputs, keeps calls, ids, names and error flags, and never mutates', () => {
    const out = applyResultEdits(messages, edits);
    expect(messages).toEqual(before);
    expect(out).toHaveLength(messages.length);
    expect(findPairingProblems(out)).toEqual([]);
    const edited = new Set([2, 4, 6, 10]);
    out.forEach((message, index) => {
      const original = messages[index] as Message;
      if (!edited.has(index)) {
        expect(message).toBe(original);
        return;
      }
      expect(message).not.toBe(original);
      expect(message).toMatchObject({ role: 'tool', edited: true });
      message.parts.forEach((part, partIndex) => {
        const source = original.parts[partIndex] as ToolResultPart;
        const result = part as ToolResultPart;
        const edit = edits.get(source.callId) as ResultEdit | undefined;
        if (!edit) {
          expect(part).toBe(source); // a parallel result that was not edited is the same part object
          return;
        }
        expect(result).toEqual({ ...source, output: edit.text, edited: true, edit: edit.kind });
      });
    });
    expect(partAt(out, 6, 0).isError).toBe(true);
    expect(partAt(out, 4, 0).edit).toBe('redacted');
    expect(partAt(out, 10, 1).output).toBe(BIG('p2'));
    // assistant messages, and so every call part (id, name, args), are the caller's objects
    for (const index of [1, 3, 5, 7, 9]) expect(out[index]).toBe(messages[index]);
  });

  it('leaves messages before `from` alone', () => {
    const out = applyResultEdits(messages, edits, 5);
    expect(out.slice(0, 5)).toEqual(messages.slice(0, 5));
    for (let index = 0; index < 5; index++) expect(out[index]).toBe(messages[index]);
    expect(out[6]).not.toBe(messages[6]);
  });

  it('without edits returns a new array of the same message objects', () => {
    const out = applyResultEdits(messages, new Map());
    expect(out).not.toBe(messages);
    expectSameObjects(out, messages);
  });
});
