import { describe, expect, it, vi } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { resultSites } from '../../src/masking/observation-masking.js';
import {
  DEFAULT_STALENESS_OPTIONS,
  findStaleObservations,
  findSupersededObservations,
  type StalenessOptions,
} from '../../src/masking/staleness.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { analyzeSteps } from '../../src/signals/transcript-signals.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import type { Message } from '../../src/transcript/transcript.js';
import { deepFreeze, SYSTEM } from '../helpers/fixtures.js';
import { bash, call, edit, note, read, result } from '../helpers/steps.js';

const meter = new MessageMeter(approximateCounter());

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
/** An assistant step with one tool call, optionally preceded by text. */

/** Results a later step superseded, keyed by tool call id. */
function superseded(messages: readonly Message[], from = 0) {
  const found = findSupersededObservations({
    steps: analyzeSteps(messages),
    sites: resultSites(messages, meter),
    from,
  });
  return new Map(found.map((observation) => [observation.key, observation]));
}

/** Results whose staleness score reaches the threshold, keyed by tool call id. */
function stale(messages: readonly Message[], options?: StalenessOptions, from = 0) {
  const found = findStaleObservations({
    messages,
    steps: analyzeSteps(messages),
    sites: resultSites(messages, meter),
    from,
    ...(options ? { options } : {}),
  });
  return new Map(found.map((observation) => [observation.key, observation]));
}

const fail = (target = '') => `=== 1 failed, 2 passed in 0.1s === ${target}`.trim();
const pass = '=== 3 passed in 0.1s ===';

describe('findSupersededObservations', () => {
  it.each<[string, Message[], string, string | undefined]>([
    [
      'a read of a file that a later step edited',
      [user('Fix it.'), ...read('r1', 'src/a.ts'), ...edit('e1', 'src/a.ts'), ...note('n1')],
      'r1',
      'superseded by the edit of src/a.ts at step 2',
    ],
    [
      'a read of a file edited twice later (the reason names the last edit)',
      [user('Fix it.'), ...read('r1', 'src/a.ts'), ...edit('e1', 'src/a.ts'), ...edit('e2', 'src/a.ts'), ...note('n1')],
      'r1',
      'superseded by the edit of src/a.ts at step 3',
    ],
    [
      'a read of a file never edited',
      [user('Fix it.'), ...read('r1', 'src/a.ts'), ...edit('e1', 'src/b.ts'), ...note('n1')],
      'r1',
      undefined,
    ],
    [
      'a read that follows the edit',
      [user('Fix it.'), ...edit('e1', 'src/a.ts'), ...read('r1', 'src/a.ts'), ...note('n1')],
      'r1',
      undefined,
    ],
    [
      'an edit result (the edit is not superseded by a later edit)',
      [user('Fix it.'), ...edit('e1', 'src/a.ts'), ...edit('e2', 'src/a.ts'), ...note('n1')],
      'e1',
      undefined,
    ],
    [
      'a test log followed by a later run of the same target',
      [
        user('Fix it.'),
        ...bash('t1', 'pytest tests/test_a.py', fail()),
        ...edit('e1', 'src/a.py'),
        ...bash('t2', 'pytest tests/test_a.py', pass),
        ...note('n1'),
      ],
      't1',
      'superseded by a later run of tests/test_a.py at step 3',
    ],
    [
      'a test log followed by a run of the whole suite',
      [user('Fix it.'), ...bash('t1', 'pytest tests/test_a.py', fail()), ...bash('t2', 'pytest', pass), ...note('n1')],
      't1',
      'superseded by a later run of the test suite at step 2',
    ],
    [
      'a test log followed by a run of another target',
      [
        user('Fix it.'),
        ...bash('t1', 'pytest tests/test_a.py', fail()),
        ...bash('t2', 'pytest tests/test_b.py', pass),
        ...note('n1'),
      ],
      't1',
      undefined,
    ],
    [
      'a run_tests tool log followed by a run of the whole suite by the same tool',
      [
        user('Fix it.'),
        call('t1', 'run_tests', { path: 'tests/test_a.py' }),
        result('t1', 'run_tests', fail()),
        call('t2', 'run_tests', {}),
        result('t2', 'run_tests', pass),
        ...note('n1'),
      ],
      't1',
      'superseded by a later run of the test suite at step 2',
    ],
    [
      'the latest run of a target',
      [user('Fix it.'), ...bash('t1', 'pytest tests/test_a.py', fail()), ...note('n1'), ...note('n2')],
      't1',
      undefined,
    ],
  ])('%s', (_name, messages, id, reason) => {
    const observation = superseded(messages).get(id);
    if (reason === undefined) expect(observation).toBeUndefined();
    else expect(observation).toEqual({ key: id, score: 1, superseded: true, reason });
  });

  it('a whole-suite log followed by another whole-suite run names the test suite', () => {
    const messages = [user('Fix it.'), ...bash('t1', 'pytest', fail()), ...bash('t2', 'pytest', pass), ...note('n1')];
    expect(superseded(messages).get('t1')?.reason).toBe('superseded by a later run of the test suite at step 2');
  });

  it('a step that reads and edits the same file is not superseded by a later edit', () => {
    const messages: Message[] = [
      user('Fix it.'),
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', id: 'r1', name: 'read_file', args: { path: 'src/app.ts' } },
          { type: 'tool-call', id: 'e1', name: 'edit_file', args: { path: 'src/app.ts', old_str: 'a', new_str: 'b' } },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', callId: 'r1', name: 'read_file', output: 'contents' },
          { type: 'tool-result', callId: 'e1', name: 'edit_file', output: 'edited' },
        ],
      },
      ...edit('e2', 'src/app.ts'),
      ...note('n1'),
    ];
    expect(superseded(messages).size).toBe(0);
  });

  it('never marks results of the current step', () => {
    // the current step both reads src/a.ts and runs the tests that an earlier run of the suite covered
    const messages: Message[] = [
      user('Fix it.'),
      ...bash('t1', 'pytest', fail()),
      ...read('r1', 'src/a.ts'),
      ...edit('e1', 'src/a.ts'),
      ...bash('t2', 'pytest', pass),
    ];
    const found = superseded(messages);
    expect(found.has('t2')).toBe(false);
    expect([...found.keys()].sort()).toEqual(['r1', 't1']);
  });

  it('the `from` argument excludes results before the fold point', () => {
    const messages = [
      user('Fix it.'),
      ...read('r1', 'src/a.ts'), // messages 1-2
      ...read('r2', 'src/a.ts'), // messages 3-4
      ...edit('e1', 'src/a.ts'),
      ...note('n1'),
    ];
    expect([...superseded(messages).keys()]).toEqual(['r1', 'r2']);
    expect([...superseded(messages, 3).keys()]).toEqual(['r2']);
    expect([...superseded(messages, messages.length).keys()]).toEqual([]);
  });
});

describe('findStaleObservations: the score', () => {
  // one search at step 1 (touches no file, so no references), then three filler steps; the current step is step 5
  const messages: Message[] = [
    user('Find where the config is loaded.'),
    call('s1', 'search', { query: 'where is the config loaded' }),
    result('s1', 'search', 'no match for the query'),
    ...note('n1'),
    ...note('n2'),
    ...note('n3'),
    ...note('n4'),
  ];
  // the search is 4 steps older than the current step: age 4/20 = 0.2
  const age = 4 / DEFAULT_STALENESS_OPTIONS.maxAge;

  it.each([
    // relevance, expected score, stale at the default threshold 0.7
    [0, 0.3 * age + 0.4 + 0.3, true],
    [0.5, 0.3 * age + 0.4 + 0.15, false],
    [1, 0.3 * age + 0.4, false],
    // relevance is clamped to [0, 1]
    [-3, 0.3 * age + 0.4 + 0.3, true],
    [7, 0.3 * age + 0.4, false],
  ])('relevance %s gives score %s (stale: %s)', (relevance, score, isStale) => {
    const spy = vi.fn(() => relevance);
    expect(stale(messages, { relevance: spy }).has('s1')).toBe(isStale);
    // threshold 0 reveals the score of any observation
    const scored = stale(messages, { relevance: spy, threshold: 0 }).get('s1');
    expect(scored?.score).toBeCloseTo(score, 10);
    expect(scored?.superseded).toBe(false);
    expect(scored?.reason).toBe(
      `stale (score ${score.toFixed(2)}): 4 steps old, 0 references in the last 5 steps, relevance ${relevance.toFixed(2)}`,
    );
  });

  it('passes the observation and the recent context to the relevance function', () => {
    const spy = vi.fn((_observation: string, _context: string) => 0);
    stale(messages, { relevance: spy });
    const first = spy.mock.calls.find(([observation]) => observation === 'no match for the query');
    expect(first).toBeDefined();
    // the context is the text of the last `window` (5) steps, their calls included
    expect(first?.[1]).toContain('noop(');
    expect(first?.[1]).toContain('search(');
  });

  it.each<[string, { age: number; references: number; relevance: number }, number, number, string[]]>([
    // weights, maxAge, threshold, stale ids
    ['age only, fully aged after 4 steps', { age: 1, references: 0, relevance: 0 }, 4, 1, ['s1']],
    ['age only, fully aged after 2 steps', { age: 1, references: 0, relevance: 0 }, 2, 1, ['n1', 'n2', 's1']],
    ['age only, half aged is enough', { age: 1, references: 0, relevance: 0 }, 4, 0.5, ['n1', 'n2', 's1']],
    [
      'references only, nothing is referenced',
      { age: 0, references: 1, relevance: 0 },
      20,
      1,
      ['n1', 'n2', 'n3', 's1'],
    ],
  ])('custom weights: %s', (_name, weights, maxAge, threshold, ids) => {
    const found = stale(messages, { weights, maxAge, threshold, relevance: () => 1 });
    expect([...found.keys()].sort()).toEqual(ids);
  });

  it('threshold 0 makes every older result stale, never the current step; threshold 1.01 none', () => {
    const found = stale(messages, { threshold: 0 });
    expect([...found.keys()].sort()).toEqual(['n1', 'n2', 'n3', 's1']);
    expect(found.has('n4')).toBe(false);
    expect(stale(messages, { threshold: 1.01, relevance: () => 0 }).size).toBe(0);
  });

  it('leaves superseded results to findSupersededObservations, even at threshold 0', () => {
    const messages = [user('Fix it.'), ...read('r1', 'src/a.ts'), ...edit('e1', 'src/a.ts'), ...note('n1')];
    expect([...stale(messages, { threshold: 0 }).keys()]).toEqual(['e1']);
    expect([...superseded(messages).keys()]).toEqual(['r1']);
  });

  it('the `from` argument excludes results before the fold point', () => {
    expect(stale(messages, { threshold: 0 }).has('s1')).toBe(true);
    expect([...stale(messages, { threshold: 0 }, 3).keys()].sort()).toEqual(['n1', 'n2', 'n3']);
    expect(stale(messages, { threshold: 0 }, messages.length).size).toBe(0);
  });

  it('recent references to the observed file lower the score', () => {
    const referenced: Message[] = [
      user('Look at the helper.'),
      ...read('r1', 'src/helper.ts'),
      call('x1', 'noop', { note: 'a b' }, 'src/helper.ts has the parser.'),
      result('x1', 'noop', 'ok'),
      call('x2', 'noop', { note: 'a b' }, 'Still in src/helper.ts.'),
      result('x2', 'noop', 'ok'),
      call('x3', 'noop', { note: 'a b' }, 'src/helper.ts again.'),
      result('x3', 'noop', 'ok'),
      ...note('n1'),
    ];
    const unreferenced: Message[] = [
      user('Look at the helper.'),
      ...read('r1', 'src/helper.ts'),
      ...note('x1'),
      ...note('x2'),
      ...note('x3'),
      ...note('n1'),
    ];
    const options = { threshold: 0, relevance: () => 0 };
    // 4 steps old; 3 references (the maximum) remove the 0.4 reference share
    expect(stale(unreferenced, options).get('r1')?.score).toBeCloseTo(0.3 * (4 / 20) + 0.4 + 0.3, 10);
    const observation = stale(referenced, options).get('r1');
    expect(observation?.score).toBeCloseTo(0.3 * (4 / 20) + 0.3, 10);
    expect(observation?.reason).toContain('3 references in the last 5 steps');
    expect(stale(referenced, { relevance: () => 0 }).has('r1')).toBe(false);
    expect(stale(unreferenced, { relevance: () => 0 }).has('r1')).toBe(true);
  });

  it('a later step that quotes a value of the result refers to it, whatever the tool and wherever the value', () => {
    const record = JSON.stringify({ customer: { id: 'CU-482113', email: 'maria.lindqvist41@example.org' } });
    const session = (quote: boolean): Message[] => [
      user('Refund the duplicate charge of Maria Lindqvist.'),
      call('l1', 'lookup_customer', { query: 'Maria Lindqvist' }),
      result('l1', 'lookup_customer', record),
      ...note('x1'),
      ...note('x2'),
      // the id inside an SQL string, the address inside a JSON argument: no file named anywhere
      call('q1', 'query_db', { sql: `SELECT total FROM charges WHERE holder = '${quote ? 'CU-482113' : 'the one'}'` }),
      result('q1', 'query_db', 'total\n129.40'),
      call('m1', 'send_email', { to: quote ? 'maria.lindqvist41@example.org' : 'her', body: 'Refunded.' }),
      result('m1', 'send_email', 'queued'),
      ...note('n1'),
    ];
    const options = { threshold: 0, relevance: () => 0 };
    // 5 steps old; two of the last five steps quote it: 2 of the 3 references that remove the 0.4 share
    expect(stale(session(false), options).get('l1')?.reason).toContain('0 references in the last 5 steps');
    const observation = stale(session(true), options).get('l1');
    expect(observation?.reason).toContain('2 references in the last 5 steps');
    expect(observation?.score).toBeCloseTo(0.3 * (5 / 20) + 0.4 * (1 / 3) + 0.3, 10);
    expect(stale(session(true), { relevance: () => 0 }).has('l1')).toBe(false);
    expect(stale(session(false), { relevance: () => 0 }).has('l1')).toBe(true);
  });

  it('a value the agent had before the result, or one many results hold, is no reference to it', () => {
    const record = (id: string) =>
      JSON.stringify({ customer: { id: 'CU-482113', note: `batch ${id}`, tier: 'TIER_GOLD' } });
    const messages: Message[] = [
      user('Look up the account CU-482113.'),
      call('l1', 'lookup_customer', { query: 'Maria Lindqvist' }),
      result('l1', 'lookup_customer', record('B-1')),
      call('l2', 'lookup_customer', { query: 'Jonas Okafor' }),
      result('l2', 'lookup_customer', record('B-2')),
      call('l3', 'lookup_customer', { query: 'Aiko Brandt' }),
      result('l3', 'lookup_customer', record('B-3')),
      // the id came from the user, TIER_GOLD is in three results: neither is specific to l1
      call('q1', 'query_db', { sql: "SELECT total FROM charges WHERE holder = 'CU-482113' AND tier = 'TIER_GOLD'" }),
      result('q1', 'query_db', 'total\n129.40'),
      ...note('n1'),
    ];
    const observation = stale(messages, { threshold: 0, relevance: () => 0 }).get('l1');
    expect(observation?.reason).toContain('0 references in the last 5 steps');
  });

  it('scores with the default lexical relevance as expected', () => {
    const session = [
      user('Find where the config is loaded.'),
      ...read('r1', 'src/config.ts', 'export function loadConfig() { return readFileSync(path); }'),
      ...read('r2', 'src/other.ts', 'unrelated banana content'),
      call('x1', 'noop', { note: 'a b' }, 'loadConfig reads the config file.'),
      result('x1', 'noop', 'ok'),
      ...note('n1'),
    ];
    const first = [...stale(session, { threshold: 0 }).values()];
    expect(first.map(({ key, score }) => ({ key, score: Math.round(score * 1e6) / 1e6 }))).toMatchInlineSnapshot(`
      [
        {
          "key": "r1",
          "score": 0.56801,
        },
        {
          "key": "r2",
          "score": 0.73,
        },
        {
          "key": "x1",
          "score": 0.715,
        },
      ]
    `);
    const score = (id: string) => first.find((observation) => observation.key === id)?.score ?? Number.NaN;
    // the read whose loadConfig the last step quotes has one reference (0.4 / 3 off) and shares words with the
    // recent steps: it scores lower than the one that shares nothing
    expect(score('r1')).toBeLessThan(score('r2'));
  });
});

describe('staleness in the engine', () => {
  /** ~9000 tokens with the approximate counter: a masking step over it pays for its cache break. */
  const BIG = 'export function area(r: number) { return Math.PI * r * r; }\n'.repeat(600);

  const session = (): Message[] => [
    user('Fix the rounding bug in src/app.ts.'),
    ...read('r1', 'src/app.ts', BIG), // step 1
    ...edit('e1', 'src/app.ts'), // step 2
    ...bash('t1', 'pytest tests/test_app.py', '=== 3 passed in 0.1s ==='), // step 3, the current step
  ];

  function setup(options: CompressionOptions = {}) {
    const engine = new CompressionEngine({
      contextWindow: 200_000,
      reserveOutputTokens: 4_000,
      tokenCounter: approximateCounter(),
      triggers: { semantic: false },
      summarizer: async () => {
        throw new Error('no fold expected');
      },
      ...options,
    });
    const run = (messages: readonly Message[]) =>
      engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });
    return { engine, run };
  }

  it('masks a superseded read with a placeholder that gives the reason, and keeps its call', async () => {
    const { run } = setup();
    const messages = deepFreeze(session());
    const copy = structuredClone(messages);
    const out = await run(messages);
    expect(out.decisions).toHaveLength(1);
    const [decision] = out.decisions;
    expect(decision?.trigger).toBe('staleness');
    expect(decision?.scope).toEqual({ kind: 'observations', toolCallIds: ['r1'] });
    expect(decision?.details).toContain('r1: superseded by the edit of src/app.ts at step 2');
    expect(out.messages).toHaveLength(messages.length);
    // the call stays the very same message; only the result changes
    expect(out.messages[1]).toBe(messages[1]);
    const masked = out.messages[2]?.parts[0];
    expect(masked).toMatchObject({ type: 'tool-result', callId: 'r1', name: 'read_file', edited: true });
    const output = masked?.type === 'tool-result' ? masked.output : '';
    expect(output).toContain('superseded by the edit of src/app.ts at step 2');
    expect(output).toMatch(/^\[Result of read_file\(.*src\/app\.ts.*\) cleared to save context: /);
    expect(output.length).toBeLessThan(300);
    for (let index = 3; index < messages.length; index++) expect(out.messages[index]).toBe(messages[index]);
    expect(findPairingProblems(out.messages)).toEqual([]);
    expect(messages).toEqual(copy);
  });

  it('keeps a result of a tool that names no file while a recent step quotes it; masks the unquoted one', async () => {
    // which results a step takes, apart from whether it pays (no cache: a rewrite costs nothing more)
    const { run } = setup({ cachePricing: { read: 1, write: 1 } });
    const orders = Array.from({ length: 60 }, (_unused, index) => ({ id: `ORD-${7_100_000 + index}`, total: index }));
    const record = JSON.stringify({ customer: { id: 'CU-482113', email: 'maria.lindqvist41@example.org' }, orders });
    const page = `<html><body>${'<p>Rotate the cache keys weekly; keep two spare nodes.</p>\n'.repeat(120)}</body></html>`;
    const messages = deepFreeze([
      user('Refund the duplicate charge of Maria Lindqvist, then fix the rounding bug in src/app.ts.'),
      call('l1', 'lookup_customer', { query: 'Maria Lindqvist' }),
      result('l1', 'lookup_customer', record),
      call('h1', 'http_get', { url: 'https://console.internal/runbooks/cache' }),
      result('h1', 'http_get', page),
      ...read('r1', 'src/app.ts', BIG),
      ...edit('e1', 'src/app.ts'),
      call('q1', 'query_db', { sql: "SELECT total FROM charges WHERE holder = 'CU-482113'" }),
      result('q1', 'query_db', 'total\n129.40'),
      ...bash('t1', 'pytest tests/test_app.py', '=== 3 passed in 0.1s ==='),
    ]);
    const out = await run(messages);
    expect(out.decisions.map((decision) => decision.trigger)).toEqual(['staleness']);
    const masked = out.decisions[0]?.scope.kind === 'observations' ? out.decisions[0].scope.toolCallIds : [];
    expect([...masked].sort()).toEqual(['h1', 'r1']);
    expect(out.messages[2]).toBe(messages[2]);
  });

  it('masks the superseded read with cachePricing { read: 1, write: 1 }, too', async () => {
    const { run } = setup({ cachePricing: { read: 1, write: 1 } });
    const out = await run(session());
    expect(out.decisions.map((decision) => decision.trigger)).toEqual(['staleness']);
  });

  it('leaves a superseded read alone when masking it would not pay (too small to clear)', async () => {
    const { run } = setup();
    const messages = [
      user('Fix the rounding bug in src/app.ts.'),
      ...read('r1', 'src/app.ts', 'export const x = 1;\n'.repeat(20)),
      ...edit('e1', 'src/app.ts'),
      ...bash('t1', 'pytest tests/test_app.py', '=== 3 passed in 0.1s ==='),
    ];
    const out = await run(messages);
    expect(out.decisions).toEqual([]);
    expect(out.messages).toEqual(messages);
  });

  it('staleness: false turns it off', async () => {
    const { run } = setup({ triggers: { semantic: false, staleness: false } });
    const messages = session();
    const out = await run(messages);
    expect(out.decisions).toEqual([]);
    for (const [index, message] of out.messages.entries()) expect(message).toBe(messages[index]);
  });

  it('masking: false turns staleness off with it', async () => {
    const { run } = setup({ masking: false });
    const out = await run(session());
    expect(out.decisions).toEqual([]);
  });

  it('scored staleness (custom options) adds results to a masking step that happens anyway', async () => {
    const { run } = setup({
      triggers: { semantic: false, staleness: { threshold: 0, relevance: () => 0 } },
      cachePricing: { read: 1, write: 1 },
    });
    const messages = [
      user('Fix the rounding bug in src/app.ts.'),
      ...bash('l1', 'cat logs/a.log', BIG), // step 1
      ...read('r1', 'src/app.ts', BIG), // step 2
      ...edit('e1', 'src/app.ts'), // step 3: supersedes r1
      ...note('n1'), // step 4, the current step
    ];
    const out = await run(messages);
    expect(out.decisions.map((decision) => decision.trigger)).toEqual(['staleness']);
    expect(out.decisions[0]?.scope).toEqual({ kind: 'observations', toolCallIds: ['l1', 'r1'] });
    // 0.3 x 3/20 + 0.4 x 1 + 0.3 x 1 = 0.745, printed as 0.74 (floating point)
    expect(out.decisions[0]?.details).toMatch(/l1: stale \(score 0\.74\): 3 steps old, 0 references/);
    expect(out.decisions[0]?.details).toContain('r1: superseded by the edit of src/app.ts at step 3');
    const outputOf = (index: number) => {
      const part = out.messages[index]?.parts[0];
      return part?.type === 'tool-result' ? part.output : '';
    };
    expect(outputOf(2)).toContain('stale (score 0.74): 3 steps old');
    expect(outputOf(4)).toContain('superseded by the edit of src/app.ts at step 3');
    expect(findPairingProblems(out.messages)).toEqual([]);
  });

  it('scored staleness alone does not start a masking step (only superseded or old results do)', async () => {
    const { run } = setup({ triggers: { semantic: false, staleness: { threshold: 0, relevance: () => 0 } } });
    const messages = [
      user('Summarize the logs.'),
      ...bash('l1', 'cat logs/a.log', BIG), // step 1: stale by score, not superseded
      ...note('n1'),
      ...note('n2'), // the current step
    ];
    const out = await run(messages);
    expect(out.decisions).toEqual([]);
    expect(out.messages).toEqual(messages);
  });

  it('replays a stale mask identically on the next call: the prefix stays byte-identical', async () => {
    const { run } = setup();
    const first = session();
    const out1 = await run(first);
    expect(out1.decisions.map((decision) => decision.trigger)).toEqual(['staleness']);
    const second = [...first, ...read('r2', 'src/util.ts')];
    const out2 = await run(second);
    expect(out2.decisions).toEqual([]);
    expect(JSON.stringify(out2.system)).toBe(JSON.stringify(out1.system));
    expect(JSON.stringify(out2.messages.slice(0, out1.messages.length))).toBe(JSON.stringify(out1.messages));
    // the very same edited object, not just equal text
    expect(out2.messages[2]).toBe(out1.messages[2]);
    // and repeating the first request gives the same prompt again
    const out3 = await run(first);
    expect(JSON.stringify(out3.messages)).toBe(JSON.stringify(out1.messages));
    expect(findPairingProblems(out2.messages)).toEqual([]);
  });

  it('a fresh engine (a stateless server) masks the same history the same way', async () => {
    const out1 = await setup().run(session());
    const out2 = await setup().run(session());
    expect(JSON.stringify(out2.messages)).toBe(JSON.stringify(out1.messages));
    expect(out2.decisions).toEqual(out1.decisions);
  });
});
