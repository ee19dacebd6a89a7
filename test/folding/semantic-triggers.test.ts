import { describe, expect, it, vi } from 'vitest';
import { type Boundary, findBoundaries, type SemanticTriggerOptions } from '../../src/folding/semantic-triggers.js';
import { SEMANTIC_TRIGGERS, type TriggerName } from '../../src/reports/decisions.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { analyzeSteps } from '../../src/signals/transcript-signals.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import type { Message } from '../../src/transcript/transcript.js';
import { deepFreeze, setup } from '../helpers/fixtures.js';
import { bash, call, edit, note, read, result } from '../helpers/steps.js';

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
/** An assistant step with one tool call, optionally preceded by text. */

/** A step with only text (no tool call). */
const say = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });

const PASS = '=== 3 passed in 0.1s ===';
const FAIL = '=== 1 failed, 2 passed in 0.1s ===';

/** Boundaries of a transcript as [trigger, stepIndex, messageIndex]. */
function boundaries(messages: readonly Message[], options?: SemanticTriggerOptions): [TriggerName, number, number][] {
  return findBoundaries(messages, analyzeSteps(messages), options).map((b) => [b.trigger, b.stepIndex, b.messageIndex]);
}
function only(messages: readonly Message[], trigger: TriggerName, options?: SemanticTriggerOptions): Boundary[] {
  return findBoundaries(messages, analyzeSteps(messages), options).filter((b) => b.trigger === trigger);
}

// Transcripts written for each detector. Steps are counted from 0; message 0 is the user's task.
const SUBTASK: Message[] = [
  user('Fix the rounding bug in src/app.ts.'),
  ...edit('e1', 'src/app.ts'), // step 0 (messages 1-2)
  ...bash('t1', 'pytest tests/test_app.py', PASS), // step 1 (3-4)
  ...note('n1'), // step 2 (5-6): the boundary, right after the passing step
  ...note('n2'), // step 3 (7-8), the current step
];
const COMPLETION: Message[] = [
  user('Add a changelog entry.'),
  ...note('n1'), // step 0
  say('The fix is complete.'), // step 1 (message 3)
  ...note('n2'), // step 2 (4-5): the boundary
  ...note('n3'), // step 3, the current step
];
const INTENT: Message[] = [
  user('Add a --verbose flag.'),
  ...note('n0'), // step 0
  ...read('r1', 'src/cli.ts'), // step 1: EXPLORE
  ...edit('e1', 'src/cli.ts'), // step 2 (5-6): IMPLEMENT, the boundary
  ...edit('e2', 'src/cli.ts'), // step 3, the current step
];
const FILE: Message[] = [
  user('Fix the two helpers.'),
  ...note('n0'), // step 0
  ...edit('e1', 'src/billing/tax.ts'), // step 1
  ...read('r1', 'src/billing/rates.ts'), // step 2 (5-6): another file of the same module
  ...note('n2'), // step 3, the current step
];
const MODULE: Message[] = [
  user('Fix billing, then mail.'),
  ...note('n0'), // step 0
  ...edit('e1', 'src/billing/tax.ts'), // step 1
  ...read('r1', 'lib/mail/send.ts'), // step 2 (5-6): another module
  ...note('n2'), // step 3, the current step
];
const TEST: Message[] = [
  user('The suite is flaky; check it.'),
  ...bash('t1', 'pytest tests/test_net.py', FAIL), // step 0
  ...bash('t2', 'pytest tests/test_net.py', PASS), // step 1: passes after failing, without edits
  ...note('n1'), // step 2 (5-6): the boundary
  ...note('n2'), // step 3, the current step
];
const API: Message[] = [
  user('Change my order to the blue one.'),
  ...note('n0'), // step 0
  call('u1', 'update_order', { order_id: 'W123', item: 'blue shirt' }), // step 1 (message 3)
  result('u1', 'update_order', '{"status":"updated"}'),
  ...note('n1'), // step 2 (5-6): the boundary
  ...note('n2'), // step 3, the current step
];

/** Every detector off; spread one back on to test it alone. */
const NONE: SemanticTriggerOptions = {
  subtask: false,
  intent: false,
  file: false,
  module: false,
  test: false,
  api: false,
};

describe('findBoundaries: one detector at a time', () => {
  it.each<[string, Message[], SemanticTriggerOptions, [TriggerName, number, number][]]>([
    [
      'edit -> test -> pass gives a subtask boundary right after the passing step',
      SUBTASK,
      { subtask: true },
      [['subtask', 2, 5]],
    ],
    [
      'an explicit completion statement gives a subtask boundary after it',
      COMPLETION,
      { subtask: true },
      [['subtask', 2, 4]],
    ],
    [
      'EXPLORE -> IMPLEMENT gives an intent boundary at the implementing step',
      INTENT,
      { intent: true },
      [['intent', 2, 5]],
    ],
    [
      'moving to another file of the module after edits gives boundary:file',
      FILE,
      { file: true, module: true },
      [['boundary:file', 2, 5]],
    ],
    [
      'moving to another module after edits gives boundary:module',
      MODULE,
      { file: true, module: true },
      [['boundary:module', 2, 5]],
    ],
    ['a test passing after failing (no edits) gives boundary:test', TEST, { test: true }, [['boundary:test', 2, 5]]],
    ['a successful update_* call gives boundary:api after it', API, { api: true }, [['boundary:api', 2, 5]]],
  ])('%s', (_name, messages, enabled, expected) => {
    expect(boundaries(messages, { ...NONE, ...enabled })).toEqual(expected);
    // with every detector on, the boundary is still there (others may add their own at other steps)
    expect(boundaries(messages)).toContainEqual(expected[0]);
  });

  it.each<[string, Message[], [TriggerName, number, number][]]>([
    // the edit step (IMPLEMENT) is followed by the test step (VERIFY): an intent boundary too
    [
      'SUBTASK',
      SUBTASK,
      [
        ['intent', 1, 3],
        ['subtask', 2, 5],
      ],
    ],
    ['COMPLETION', COMPLETION, [['subtask', 2, 4]]],
    ['INTENT', INTENT, [['intent', 2, 5]]],
    // the step before the edit does nothing in particular (EXPLORE): EXPLORE -> IMPLEMENT at the edit
    [
      'FILE',
      FILE,
      [
        ['intent', 1, 3],
        ['boundary:file', 2, 5],
      ],
    ],
    [
      'MODULE',
      MODULE,
      [
        ['intent', 1, 3],
        ['boundary:module', 2, 5],
      ],
    ],
    ['TEST', TEST, [['boundary:test', 2, 5]]],
    // update_* calls count as IMPLEMENT
    [
      'API',
      API,
      [
        ['intent', 1, 3],
        ['boundary:api', 2, 5],
      ],
    ],
  ])('all detectors on: %s', (_name, messages, expected) => {
    expect(boundaries(messages)).toEqual(expected);
  });

  it.each<[string, Message[], TriggerName, number, string]>([
    [
      'subtask',
      SUBTASK,
      'subtask',
      0.9,
      'edit -> test -> pass: tests/test_app.py passed at step 2 after edits of src/app.ts',
    ],
    ['subtask (completion)', COMPLETION, 'subtask', 0.8, 'the assistant declared a task done at step 2'],
    ['intent', INTENT, 'intent', 0.6, 'intent changed from EXPLORE to IMPLEMENT at step 3'],
    ['file', FILE, 'boundary:file', 0.5, 'work moved from src/billing/tax.ts to src/billing/rates.ts at step 3'],
    ['module', MODULE, 'boundary:module', 0.7, 'work moved from src/billing to lib/mail at step 3'],
    ['test', TEST, 'boundary:test', 0.85, 'tests/test_net.py passed at step 2 after failing'],
    ['api', API, 'boundary:api', 0.6, 'update_order succeeded at step 2'],
  ])('confidence and details: %s', (_name, messages, trigger, confidence, details) => {
    expect(only(messages, trigger)).toEqual([expect.objectContaining({ trigger, confidence, details })]);
  });

  it.each<[string, Message[], SemanticTriggerOptions, TriggerName]>([
    ['subtask (edit -> test -> pass)', SUBTASK, { subtask: false }, 'subtask'],
    ['subtask (completion)', COMPLETION, { subtask: false }, 'subtask'],
    ['intent', INTENT, { intent: false }, 'intent'],
    ['intent, by an empty list of transitions', INTENT, { transitions: [] }, 'intent'],
    ['file', FILE, { file: false }, 'boundary:file'],
    ['module (and file)', MODULE, { module: false, file: false }, 'boundary:module'],
    ['test', TEST, { test: false }, 'boundary:test'],
    ['api', API, { api: false }, 'boundary:api'],
  ])('%s can be switched off', (_name, messages, options, trigger) => {
    expect(only(messages, trigger)).toHaveLength(1);
    expect(only(messages, trigger, options)).toEqual([]);
  });

  it('with module off, a move to another module is a file boundary', () => {
    expect(boundaries(MODULE, { ...NONE, file: true })).toEqual([['boundary:file', 2, 5]]);
    expect(boundaries(MODULE, { module: false })).toEqual([
      ['intent', 1, 3],
      ['boundary:file', 2, 5],
    ]);
  });

  it('custom transitions replace the default ones', () => {
    // SUBTASK goes IMPLEMENT (edit) -> VERIFY (test) -> EXPLORE (note): by default IMPLEMENT -> VERIFY is a boundary
    expect(boundaries(SUBTASK, { ...NONE, intent: true })).toEqual([['intent', 1, 3]]);
    expect(boundaries(SUBTASK, { ...NONE, intent: true, transitions: [['VERIFY', 'EXPLORE']] })).toEqual([
      ['intent', 2, 5],
    ]);
    expect(boundaries(INTENT, { transitions: [['IMPLEMENT', 'EXPLORE']] })).toEqual([]);
  });
});

describe('findBoundaries: combined detectors, one boundary per step', () => {
  it('a pass after a failure with edits in between is a subtask (0.9), not boundary:test (0.85)', () => {
    const messages: Message[] = [
      user('Fix the failing test.'),
      ...bash('t1', 'pytest tests/test_app.py', FAIL), // step 0
      ...edit('e1', 'src/app.ts'), // step 1
      ...bash('t2', 'pytest tests/test_app.py', PASS), // step 2 (5-6): IMPLEMENT -> VERIFY
      ...note('n1'), // step 3 (7-8): subtask and boundary:test both land here
      ...note('n2'), // step 4, the current step
    ];
    expect(boundaries(messages)).toEqual([
      ['intent', 2, 5],
      ['subtask', 3, 7],
    ]);
    // without the subtask detector, the test detector has that step
    expect(boundaries(messages, { subtask: false })).toEqual([
      ['intent', 2, 5],
      ['boundary:test', 3, 7],
    ]);
  });

  it('an edit -> test -> pass that also states completion keeps the more confident subtask boundary', () => {
    const messages: Message[] = [
      user('Fix it.'),
      ...note('n0'),
      ...edit('e1', 'src/app.ts'),
      call('t1', 'bash', { command: 'pytest tests/test_app.py' }, 'The fix is complete.'),
      result('t1', 'bash', PASS),
      ...note('n1'),
      ...note('n2'),
    ];
    const [subtask] = only(messages, 'subtask');
    expect(subtask).toMatchObject({ stepIndex: 3, confidence: 0.9 });
  });

  it('returns at most one boundary per step, in step order', () => {
    for (const messages of [SUBTASK, COMPLETION, INTENT, FILE, MODULE, TEST, API]) {
      const steps = boundaries(messages).map(([, step]) => step);
      expect(steps.length).toBeGreaterThan(0);
      expect(steps).toEqual([...new Set(steps)].sort((a, b) => a - b));
    }
  });

  it.each<[string, Message[], TriggerName, number]>([
    [
      'the passing step is the one before the current step (its boundary would be the current step)',
      [user('Fix it.'), ...edit('e1', 'src/app.ts'), ...bash('t1', 'pytest tests/test_app.py', PASS), ...note('n1')],
      'subtask',
      1,
    ],
    [
      'the passing step is the current step',
      [user('Fix it.'), ...edit('e1', 'src/app.ts'), ...bash('t1', 'pytest', PASS)],
      'subtask',
      2,
    ],
    [
      'a completion right before the current step',
      [user('Fix it.'), ...note('n0'), say('All done.'), ...note('n1')],
      'subtask',
      1,
    ],
    [
      'a completion in the current step',
      [user('Fix it.'), ...note('n0'), ...note('n1'), say('All done.')],
      'subtask',
      2,
    ],
    [
      'an update_* call right before the current step',
      [user('Go.'), ...note('n0'), call('u1', 'update_order', {}), result('u1', 'update_order', 'ok'), ...note('n1')],
      'boundary:api',
      1,
    ],
    [
      'an intent change at the current step',
      [user('Go.'), ...note('n0'), ...read('r1', 'src/cli.ts'), ...edit('e1', 'src/cli.ts')],
      'intent',
      1,
    ],
    [
      'a move to another module at the current step',
      [user('Go.'), ...note('n0'), ...edit('e1', 'src/billing/tax.ts'), ...read('r1', 'lib/mail/send.ts')],
      'boundary:module',
      1,
    ],
  ])('never a boundary at the current step: %s', (_name, messages, trigger, more) => {
    expect(only(messages, trigger)).toEqual([]);
    // once `more` steps follow, the boundary appears: it was only held back because it was the current step
    const longer = [...messages, ...Array.from({ length: more }, (_, index) => note(`later${index}`)).flat()];
    expect(only(longer, trigger).map((boundary) => boundary.stepIndex)).toEqual([
      analyzeSteps(messages).length - 2 + more,
    ]);
  });

  it("every boundary lies after the first step and before the current one, at its step's message", () => {
    for (const messages of [SUBTASK, COMPLETION, INTENT, FILE, MODULE, TEST, API]) {
      const steps = analyzeSteps(messages);
      expect(findBoundaries(messages, steps).length).toBeGreaterThan(0);
      for (const boundary of findBoundaries(messages, steps)) {
        expect(boundary.stepIndex).toBeGreaterThan(0);
        expect(boundary.stepIndex).toBeLessThan(steps.length - 1);
        expect(boundary.messageIndex).toBe(steps[boundary.stepIndex]?.messageIndex);
      }
    }
  });

  it('finds the expected boundaries in every transcript of this file', () => {
    const all = { SUBTASK, COMPLETION, INTENT, FILE, MODULE, TEST, API };
    expect(Object.fromEntries(Object.entries(all).map(([name, messages]) => [name, boundaries(messages)]))).toEqual({
      SUBTASK: [
        ['intent', 1, 3],
        ['subtask', 2, 5],
      ],
      COMPLETION: [['subtask', 2, 4]],
      INTENT: [['intent', 2, 5]],
      FILE: [
        ['intent', 1, 3],
        ['boundary:file', 2, 5],
      ],
      MODULE: [
        ['intent', 1, 3],
        ['boundary:module', 2, 5],
      ],
      TEST: [['boundary:test', 2, 5]],
      API: [
        ['intent', 1, 3],
        ['boundary:api', 2, 5],
      ],
    });
  });
});

/** A transcript where `middle` is step 1, between two neutral steps and before the current step. */
const around = (...middle: Message[]): Message[] => [
  user('Go.'),
  ...note('n0'),
  ...middle,
  ...note('n1'),
  ...note('n2'),
];
/** The same after an edit (step 0), so a passing test would end an edit -> test -> pass sequence. */
const afterEdit = (...middle: Message[]): Message[] => [
  user('Fix it.'),
  ...edit('e0', 'src/app.py'),
  ...middle,
  ...note('n1'),
  ...note('n2'),
];

describe('findBoundaries: false friends', () => {
  it.each<[string, Message[], TriggerName]>([
    ['"Is it done?" is a question, not a completion', around(say('Is it done?')), 'subtask'],
    ['"Are all tests passing now?" is a question', around(say('Are all tests passing now?')), 'subtask'],
    ['"not done yet" is a negation', around(say('The fix is not done yet.')), 'subtask'],
    ['"I will be done after this step" is in the future', around(say('I will be done after this step.')), 'subtask'],
    [
      'a test command that failed to start is not a pass',
      afterEdit(
        ...bash('t1', 'pytest tests/test_app.py', 'bash: pytest: command not found\n<returncode>127</returncode>'),
      ),
      'subtask',
    ],
    [
      'a test run whose module is missing is not a pass, even with exit code 0',
      afterEdit(
        ...bash(
          't1',
          'python -m pytest tests/test_app.py',
          '/usr/bin/python: No module named pytest\n<returncode>0</returncode>',
        ),
      ),
      'subtask',
    ],
    [
      'a test run that collected no tests is not a pass',
      afterEdit(...bash('t1', 'pytest tests/test_app.py', 'collected 0 items\n\n=== no tests ran in 0.01s ===')),
      'subtask',
    ],
    [
      'a failing test run after edits is not a subtask',
      afterEdit(...bash('t1', 'pytest tests/test_app.py', FAIL)),
      'subtask',
    ],
    [
      'a pass without a failure before is not a test boundary',
      around(...bash('t1', 'pytest tests/test_app.py', PASS)),
      'boundary:test',
    ],
    [
      'a failed update_* call (error result) is not an API boundary',
      around(call('u1', 'update_order', { order_id: 'W123' }), result('u1', 'update_order', 'order not found', true)),
      'boundary:api',
    ],
    [
      'an update_* call answered with "Error: ..." text is not an API boundary',
      around(call('u1', 'update_order', { order_id: 'W123' }), result('u1', 'update_order', 'Error: card declined')),
      'boundary:api',
    ],
    [
      'a read-only get_* call is not an API boundary',
      around(call('g1', 'get_order', { order_id: 'W123' }), result('g1', 'get_order', '{"status":"shipped"}')),
      'boundary:api',
    ],
    [
      'reading another file without earlier edits is not a file boundary',
      around(...read('r1', 'src/a.ts'), ...read('r2', 'lib/b.ts')),
      'boundary:module',
    ],
    [
      'going back to the edited file is not a file boundary',
      [
        user('Fix it.'),
        ...note('n0'),
        ...edit('e1', 'src/a.ts'),
        ...read('r1', 'src/a.ts'),
        ...note('n1'),
        ...note('n2'),
      ],
      'boundary:file',
    ],
  ])('%s', (_name, messages, trigger) => {
    expect(only(messages, trigger)).toEqual([]);
  });

  it('"finished once the tests pass" is a condition, not a completion', () => {
    expect(only(around(say('We are finished once the tests pass.')), 'subtask')).toEqual([]);
    expect(only(around(say('The fix is complete as soon as CI passes.')), 'subtask')).toEqual([]);
  });
});

describe('semantic folds in the engine', () => {
  /** ~1500 tokens with the approximate counter. */
  const BIG = 'export function area(r: number) { return Math.PI * r * r; }\n'.repeat(100);

  /** Six small reads that start the exploration: a run of 13 calls, so that a fold below a far threshold may pay. */
  const survey = (): Message[] =>
    ['index', 'config', 'money', 'locale', 'format', 'types'].flatMap((name, index) =>
      read(`s${index}`, `src/billing/${name}.ts`, `export const ${name} = ${index};`),
    );

  /**
   * A finished subtask (explore, edit, test, pass) with big outputs, then the start of the next one: 13 calls, the
   * segment is messages 0-22.
   */
  const session = (): Message[] => [
    user('Fix the rounding bug in src/billing/tax.ts, then look at the mailer.'),
    ...survey(),
    ...read('r1', 'src/billing/tax.ts', BIG),
    ...read('r2', 'src/billing/rates.ts', BIG),
    ...bash('g1', 'grep -rn "round(" src/billing', BIG),
    ...edit('e1', 'src/billing/tax.ts'),
    ...bash('t1', 'pytest tests/test_tax.py', PASS),
    ...read('r3', 'lib/mail/send.ts', 'export function send() {}'), // the boundary: messages 23-24
    ...read('r4', 'lib/mail/queue.ts', 'export function queue() {}'), // the current step
  ];

  // contextWindow 40_000 (budget 39_500): the session (~4_600 tokens) is far below the 70% threshold
  const options = { contextWindow: 40_000, reserveOutputTokens: 500 };

  it('folds the finished segment below the threshold when the fold frees at least minTokens', async () => {
    const { run, summarize, events } = setup({ ...options, triggers: { staleness: false } });
    const messages = deepFreeze(session());
    const copy = structuredClone(messages);
    const out = await run(messages);
    expect(summarize).toHaveBeenCalledTimes(1);
    expect(out.decisions).toHaveLength(1);
    const [decision] = out.decisions;
    expect(SEMANTIC_TRIGGERS).toContain(decision?.trigger);
    expect(decision?.trigger).toBe('subtask');
    expect(decision?.scope).toEqual({ kind: 'messages', from: 0, to: 23 });
    expect(decision?.details).toMatch(/folded the finished segment \(23 messages\), freeing about \d+ tokens/);
    // the summarizer saw exactly the folded segment
    expect(summarize.mock.calls[0]?.[0].messages).toHaveLength(23);
    expect(events).toHaveLength(1);
    expect(events[0]?.trigger).toBe('subtask');
    expect(events[0]?.messagesFolded).toBe(23);
    // [state pair] [pinned task] [kept messages from the boundary on]
    expect(out.messages.map((message) => message.synthetic)).toEqual([
      'session-state',
      'acknowledgement',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(out.messages[2]).toBe(messages[0]);
    expect(out.messages.slice(3)).toEqual(messages.slice(23));
    expect(findPairingProblems(out.messages)).toEqual([]);
    expect(messages).toEqual(copy);
  });

  it('keeps the invariants across calls: same system prompt, pairs intact, the fold reused', async () => {
    const { run, summarize } = setup({ ...options, triggers: { staleness: false } });
    const first = session();
    const out1 = await run(first);
    const second = [...first, ...read('r5', 'lib/mail/retry.ts', 'export function retry() {}')];
    const out2 = await run(second);
    expect(JSON.stringify(out2.system)).toBe(JSON.stringify(out1.system));
    expect(findPairingProblems(out1.messages)).toEqual([]);
    expect(findPairingProblems(out2.messages)).toEqual([]);
    // the second call reuses the fold: no new summary, the prompt prefix is byte-identical
    expect(summarize).toHaveBeenCalledTimes(1);
    expect(out2.decisions).toEqual([]);
    expect(JSON.stringify(out2.messages.slice(0, out1.messages.length))).toBe(JSON.stringify(out1.messages));
  });

  it.each<[string, SemanticTriggerOptions | false]>([
    ['minTokens very high', { minTokens: 1_000_000 }],
    ['semantic: false', false],
    ['every detector off', { subtask: false, intent: false, file: false, module: false, test: false, api: false }],
  ])('does not fold with %s', async (_name, semantic) => {
    const { run, summarize } = setup({ ...options, triggers: { semantic, staleness: false } });
    const messages = session();
    const out = await run(messages);
    expect(summarize).not.toHaveBeenCalled();
    expect(out.decisions).toEqual([]);
    expect(out.messages).toEqual(messages);
  });

  it('does not fold with folding: false', async () => {
    const { run, summarize } = setup({ ...options, triggers: {}, folding: false });
    await run(session());
    expect(summarize).not.toHaveBeenCalled();
  });

  /** The session with every tool output cut to `chars` characters: a finished segment of a few hundred tokens. */
  const shrunk = (chars: number): Message[] =>
    session().map((message) =>
      message.role === 'tool'
        ? {
            ...message,
            parts: message.parts.map((part) =>
              part.type === 'tool-result' ? { ...part, output: part.output.slice(0, chars) } : part,
            ),
          }
        : message,
    );

  // without a prompt cache (a rewrite costs nothing more) only minTokens decides
  const uncached = { ...options, cachePricing: { read: 1, write: 1 } };

  it('does not fold a segment that frees less than minTokens (the default 2000)', async () => {
    const { run, summarize } = setup({ ...uncached, triggers: { staleness: false } });
    const out = await run(shrunk(800));
    expect(summarize).not.toHaveBeenCalled();
    expect(out.decisions).toEqual([]);
  });

  it('a lower minTokens lets the same smaller segment fold', async () => {
    const { run, summarize } = setup({ ...uncached, triggers: { staleness: false, semantic: { minTokens: 100 } } });
    const out = await run(shrunk(800));
    expect(summarize).toHaveBeenCalledTimes(1);
    expect(out.decisions.map((decision) => decision.trigger)).toEqual(['subtask']);
  });
  /** The session whose finished segment found a constant in rates.ts, and a current step that quotes it or not. */
  const quoting = (quote: boolean): Message[] => [
    ...session().slice(0, 15),
    ...read('r2', 'src/billing/rates.ts', `${BIG}const ROUNDING_MODE_V2 = 'half-even';\n`),
    ...session().slice(17, -2),
    call('r4', 'read_file', { path: 'lib/mail/queue.ts' }, quote ? 'The mailer rounds like ROUNDING_MODE_V2 too?' : ''),
    result('r4', 'read_file', 'export function queue() {}'),
  ];

  it('puts a fold off while the work after the segment still quotes one of its results, and says why', async () => {
    const { run, summarize } = setup({ ...options, triggers: { staleness: false } });
    const out = await run(quoting(true));
    expect(summarize).not.toHaveBeenCalled();
    expect(out.decisions).toEqual([]);
    expect(out.deferred).toHaveLength(1);
    expect(out.deferred[0]?.trigger).toBe('subtask');
    expect(out.deferred[0]?.scope).toEqual({ kind: 'messages', from: 0, to: 23 });
    expect(out.deferred[0]?.details).toMatch(
      /would free about \d+ tokens and pay for its cache rewrite, but waits: the work after it still quotes 1 of its results \(r2 \("ROUNDING_MODE_V2"\)\)/,
    );
  });

  it('folds the same segment when nothing after it quotes its results, or when deferWhileQuoted is off', async () => {
    const quiet = setup({ ...options, triggers: { staleness: false } });
    const folded = await quiet.run(quoting(false));
    expect(folded.decisions.map((decision) => decision.trigger)).toEqual(['subtask']);
    expect(folded.decisions[0]?.details).toMatch(/the work after it quotes none of its results/);
    expect(folded.deferred).toEqual([]);
    const off = setup({ ...options, triggers: { staleness: false, semantic: { deferWhileQuoted: false } } });
    const anyway = await off.run(quoting(true));
    expect(anyway.decisions.map((decision) => decision.trigger)).toEqual(['subtask']);
  });

  it('does not fold when the kept part is so large that the cache rewrite costs more than twice the savings', async () => {
    // the current step reads a large file: folding the segment would rewrite all of it in the provider's cache
    const heavy = [...session().slice(0, -2), ...read('r4', 'lib/mail/queue.ts', BIG.repeat(6))];
    const priced = setup({ ...options, triggers: { staleness: false } });
    const out = await priced.run(heavy);
    expect(priced.summarize).not.toHaveBeenCalled();
    expect(out.decisions).toEqual([]);
    // with cache writes as cheap as reads, the same fold pays
    const free = setup({ ...options, triggers: { staleness: false }, cachePricing: { read: 1, write: 1 } });
    const folded = await free.run(heavy);
    expect(free.summarize).toHaveBeenCalledTimes(1);
    expect(folded.decisions.map((decision) => decision.trigger)).toEqual(['subtask']);
  });

  /** An engine whose summarizer is a model's (priced), made at once (not ahead), with these cache prices. */
  const withModel = (cachePricing: { read?: number; write?: number } = {}) => {
    const summarize = vi.fn(
      async ({ messages }: SummarizeInput): Promise<SessionState> => ({
        logos: [`folded ${messages.length} messages`],
        pathos: [],
        abstract: [],
        conversationSummary: 'Earlier turns were condensed.',
      }),
    );
    const summarizer = { name: 'model:test', summarize };
    return {
      ...setup({ ...options, triggers: { staleness: false }, summarizer, summarizeAhead: false, cachePricing }),
      summarize,
    };
  };

  it("does not fold a finished segment when a model's summary of it costs more than the fold saves", async () => {
    // four calls expected: the fold's cache reads saved pay for its rewrite, not for a model's summary request (the
    // span sent again, the state written at 5x an input token); with cache reads priced as input, they pay for both
    const free = setup({ ...options, triggers: { staleness: false } });
    expect((await free.run(session())).decisions.map((decision) => decision.trigger)).toEqual(['subtask']);
    const priced = withModel();
    expect((await priced.run(session())).decisions).toEqual([]);
    expect(priced.summarize).not.toHaveBeenCalled();
    const dearReads = withModel({ read: 1, write: 1.25 });
    expect((await dearReads.run(session())).decisions.map((decision) => decision.trigger)).toEqual(['subtask']);
  });
});

describe('semantic triggers in a chat', () => {
  const talk = (role: 'user' | 'assistant', body: string): Message => ({ role, parts: [{ type: 'text', text: body }] });

  it('finds no boundary in a conversation without tools, whatever the words say', () => {
    const messages = [
      talk('user', 'I finally finished the pottery class project!'),
      talk('assistant', 'Congrats, the task is complete and done. Let me look into your next plan.'),
      talk('user', 'Next I want to implement a garden. I will build raised beds.'),
      talk('assistant', "Done! That's finished. Now let's implement and fix the garden layout."),
      talk('user', 'Let me investigate which plants to buy first.'),
      talk('assistant', 'The plan is complete. I implemented the list.'),
      talk('user', 'Thanks!'),
      talk('assistant', 'All done.'),
    ];
    expect(boundaries(messages)).toEqual([]);
  });

  it('reads a completion only in a turn that acted with tools', () => {
    // the text-only step follows a new user message, not a tool step of its own turn
    const messages = [
      talk('user', 'Add a changelog entry.'),
      ...note('n1'),
      talk('user', 'Thanks. How was your weekend?'),
      talk('assistant', 'The fix is complete.'),
      ...note('n2'),
      ...note('n3'),
    ];
    expect(boundaries(messages).filter(([trigger]) => trigger === 'subtask')).toEqual([]);
  });
});
