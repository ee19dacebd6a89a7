import { describe, expect, it } from 'vitest';
import {
  analyzeSteps,
  classifyIntent,
  DEFAULT_INTENT_TRANSITIONS,
  detectTestRun,
  extractPaths,
  type Intent,
  isCompletionStatement,
  moduleOf,
} from '../../src/signals/transcript-signals.js';
import type { Message } from '../../src/transcript/transcript.js';
import { fixtureTrajectories } from '../helpers/fixture-transcripts.js';

/** A bash-only step as mini-swe-agent records it: one call named after the command's first word. */
const bash = (id: string, command: string, text = ''): Message => ({
  role: 'assistant',
  parts: [
    ...(text ? [{ type: 'text' as const, text }] : []),
    { type: 'tool-call', id, name: command.split(/\s/)[0] ?? 'bash', args: { command } },
  ],
});
const call = (id: string, name: string, args: unknown, text = ''): Message => ({
  role: 'assistant',
  parts: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool-call', id, name, args }],
});
const result = (callId: string, output: string, name = 'bash', isError?: boolean): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId, name, output, ...(isError ? { isError } : {}) }],
});
const stepOf = (...messages: Message[]) => {
  const steps = analyzeSteps(messages);
  expect(steps).toHaveLength(1);
  return steps[0] as (typeof steps)[number];
};

describe('paths of shell commands', () => {
  it.each([
    ["cd /testbed && sed -i 's/a/b/' django/db/models/query.py", [], ['django/db/models/query.py']],
    ['cat django/db/models/aggregates.py', ['django/db/models/aggregates.py'], []],
    ['head -n 20 ./src/app.ts', ['src/app.ts'], []],
    ['tail -n 5 /testbed/setup.py', ['setup.py'], []],
    ["nl -ba astropy/table/table.py | sed -n '1293,1320p'", ['astropy/table/table.py'], []],
    ['grep -n "def clear" src/_pytest/logging.py', ['src/_pytest/logging.py'], []],
    ["sed -n '/class A:/,/def b/p' src/flask/blueprints.py", ['src/flask/blueprints.py'], []],
    [
      "cat <<'EOF' > reproduce_issue.py\nimport numpy as np\nprint(np.array([1]))\nEOF\npython reproduce_issue.py",
      [],
      ['reproduce_issue.py'],
    ],
    ['echo "AI Assistant" >> AUTHORS', [], ['AUTHORS']],
    ["printf 'x' | tee out/config.json", [], ['out/config.json']],
    ['mv src/old_name.py src/new_name.py', [], ['src/old_name.py', 'src/new_name.py']],
    ['cp a/core.py a/core.py.bak', ['a/core.py'], ['a/core.py.bak']],
    ['git checkout astropy/table/table.py', [], ['astropy/table/table.py']],
    ['cd /repo/app && cat /repo/app/lib/util.py', ['lib/util.py'], []],
    ['cd src && cat billing/tax.ts', ['src/billing/tax.ts'], []],
    ["python -c \"open('data/out.json', 'w').write('{}')\"", [], ['data/out.json']],
    [
      "git apply <<'EOF'\ndiff --git a/src/x.ts b/src/x.ts\n--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-a\n+b\nEOF",
      [],
      ['src/x.ts'],
    ],
  ])('%s', (command, reads, edits) => {
    const step = stepOf(bash('c1', command), result('c1', '<returncode>0</returncode>'));
    expect(step.reads).toEqual(reads);
    expect(step.edits).toEqual(edits);
    for (const path of [...reads, ...edits]) expect(step.files).toContain(path);
  });

  it('lists directories and searched folders as files, not as reads', () => {
    const step = stepOf(bash('c1', 'grep -r "Count" django/db/models | grep "distinct" | head -n 20'));
    expect(step.files).toEqual(['django/db/models']);
    expect(step.reads).toEqual([]);
  });

  it('does not take sed scripts, grep patterns, python code or heredoc bodies for paths', () => {
    expect(extractPaths("sed -i 's/foo\\/bar.py/baz/' lib/a.py")).toEqual(['lib/a.py']);
    expect(extractPaths('grep -rn "import os.path" src/')).toEqual(['src']);
    expect(extractPaths('python3 -c "import astropy; print(astropy.__version__)"')).toEqual([]);
    expect(extractPaths("cat <<'EOF' > t.py\nfrom pkg/mod.py import x\nEOF")).toEqual(['t.py']);
  });

  it('keeps URLs, versions, numbers, fractions and e.g. out', () => {
    const prose =
      "Let's look at `src/app.ts`, e.g. version 1.2.3 (50/50 split, and/or 3.14) see https://example.com/a/b.py.";
    expect(extractPaths(prose)).toEqual(['src/app.ts']);
    expect(extractPaths('curl -s https://example.com/api/v1/file.json -o data/file.json')).toEqual(['data/file.json']);
    expect(extractPaths('pip install numpy==1.26.4 requests')).toEqual([]);
  });

  it('ignores paths that only appear in a log line of the tool output (false friend)', () => {
    const step = stepOf(
      bash('c1', 'python reproduce_issue.py'),
      result(
        'c1',
        '<returncode>1</returncode>\n  File "/testbed/django/db/models/sql/compiler.py", line 413, in x\nKeyError',
      ),
    );
    expect(step.files).toEqual(['reproduce_issue.py']);
    expect(step.files).not.toContain('django/db/models/sql/compiler.py');
  });
});

describe('paths of JSON arguments', () => {
  it.each([
    ['read_file', { path: './src/billing/tax.ts' }, ['src/billing/tax.ts'], []],
    ['edit_file', { path: 'src/app.ts', old: 'a', new: 'b' }, [], ['src/app.ts']],
    ['write_file', { path: '/testbed/docs/guide.md', content: 'see lib/x.py' }, [], ['docs/guide.md']],
    ['str_replace_editor', { command: 'view', path: '/testbed/a/b.py' }, ['a/b.py'], []],
    ['str_replace_editor', { command: 'str_replace', path: 'a/b.py', old_str: 'x', new_str: 'y' }, [], ['a/b.py']],
    ['str_replace_editor', { command: 'create', path: 'tests/test_new.py', file_text: 'x' }, [], ['tests/test_new.py']],
    [
      'apply_patch',
      { patch: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch' },
      [],
      ['src/a.ts'],
    ],
    ['bash', { command: 'cat package.json' }, ['package.json'], []],
  ])('%s %j', (name, args, reads, edits) => {
    const task: Message = { role: 'user', parts: [{ type: 'text', text: 'Fix the bug. Repository: /testbed' }] };
    const step = stepOf(task, call('c1', name, args));
    expect(step.reads).toEqual(reads);
    expect(step.edits).toEqual(edits);
  });

  it('finds no paths in business tool arguments (tau-bench)', () => {
    const step = stepOf(
      call('c1', 'update_reservation_flights', {
        reservation_id: 'XEHM4B',
        cabin: 'economy',
        flights: [{ flight_number: 'HAT039', date: '2024-05-15', origin: 'ATL', destination: 'SEA' }],
      }),
    );
    expect(step.files).toEqual([]);
    expect(stepOf(call('c2', 'think', { thought: 'Price is 1/2 of e.g. 3.5 USD' })).files).toEqual([]);
  });
});

describe('moduleOf', () => {
  it.each([
    ['src/billing/tax.ts', 2, 'src/billing'],
    ['src/billing/tax.ts', 1, 'src'],
    ['/srv/django/db/models/query.py', 2, '/srv/django'],
    ['tax.ts', 2, '.'],
    ['./lib/a.py', 2, 'lib'],
  ])('%s depth %d → %s', (path, depth, expected) => expect(moduleOf(path, depth)).toBe(expected));
});

describe('test runs', () => {
  it.each([
    ['pytest tests/test_a.py', '===== 2 failed, 185 passed, 6 skipped in 1.94s =====', 'tests/test_a.py', 'fail'],
    ['cd /testbed && python -m pytest tests/a.py::T::t -k foo', '3 passed in 0.10s', 'tests/a.py::T::t', 'pass'],
    ['py.test', '=== 1 error in 0.08s ===', '*', 'error'],
    ['python -m unittest tests.test_x', 'Ran 2 tests in 0.001s\n\nOK', 'tests.test_x', 'pass'],
    ['python -m unittest', 'Ran 3 tests in 0.1s\n\nFAILED (failures=1)', '*', 'fail'],
    ['./tests/runtests.py aggregation', 'Ran 65 tests in 0.217s\n\nOK', 'aggregation', 'pass'],
    ['python tests/runtests.py queries ordering', 'Ran 9 tests\n\nFAILED (errors=2)', 'queries ordering', 'fail'],
    ['tox -e py39', '  py39: commands succeeded\n  congratulations :)', '*', 'pass'],
    ['nox', 'nox > Session tests failed.', '*', 'fail'],
    ['npm test', 'Tests:       1 failed, 2 passed, 3 total', '*', 'fail'],
    ['yarn test -- src/a.test.ts', ' Test Files  1 passed (1)\n      Tests  4 passed (4)', 'src/a.test.ts', 'pass'],
    ['pnpm test', '      Tests  1 failed | 3 passed (4)', '*', 'fail'],
    ['npx vitest run test/a.test.ts', '      Tests  4 passed (4)', 'test/a.test.ts', 'pass'],
    ['npx jest', 'Tests:       5 passed, 5 total', '*', 'pass'],
    ['mocha test/x.spec.js', '  3 passing (20ms)\n  1 failing', 'test/x.spec.js', 'fail'],
    ['go test ./...', 'ok  \tgithub.com/x/y\t0.1s', './...', 'pass'],
    ['go test ./pkg/...', '--- FAIL: TestX (0.00s)\nFAIL\tgithub.com/x/y/pkg\t0.1s', 'pkg/...', 'fail'],
    ['cargo test', 'test result: ok. 3 passed; 0 failed; 0 ignored', '*', 'pass'],
    ['cargo test parse', 'test result: FAILED. 1 passed; 1 failed', 'parse', 'fail'],
    ['mvn test', 'Tests run: 3, Failures: 0, Errors: 0\n[INFO] BUILD SUCCESS', '*', 'pass'],
    ['gradle test', 'BUILD FAILED in 3s', '*', 'fail'],
    ['./gradlew test', 'BUILD SUCCESSFUL in 9s', '*', 'pass'],
    ['bundle exec rspec spec/a_spec.rb', '3 examples, 0 failures', 'spec/a_spec.rb', 'pass'],
    ['rspec', '4 examples, 2 failures', '*', 'fail'],
    ['vendor/bin/phpunit tests/ATest.php', 'OK (3 tests, 5 assertions)', 'tests/ATest.php', 'pass'],
    ['dotnet test', 'Failed!  - Failed: 1, Passed: 4', '*', 'fail'],
    ['make test', '<returncode>2</returncode>\n<output>\nmake: *** [test] Error 1', '*', 'fail'],
    [
      'python reproduce_issue.py',
      '<returncode>1</returncode>\n<output>\nTraceback (most recent call last):',
      'reproduce_issue.py',
      'fail',
    ],
    ['python3 reproduce_issue.py', '<returncode>0</returncode>\n<output>\nAll good', 'reproduce_issue.py', 'pass'],
    [
      'python test_requests.py',
      '<returncode>1</returncode>\nRan 87 tests in 52s\n\nFAILED (errors=1)',
      'test_requests.py',
      'fail',
    ],
  ] as const)('%s', (command, output, target, outcome) => {
    expect(detectTestRun(command, output)).toMatchObject({ target, outcome });
  });

  it.each([
    ['pytest', 'bash: pytest: command not found'],
    ['python -m pytest tests', '<returncode>0</returncode>\n/usr/bin/python: No module named pytest'],
    ['pytest tests/nope.py', 'ERROR: file or directory not found: tests/nope.py\n\n===== no tests ran in 0.01s ====='],
    ['pytest -k nothing', 'collected 0 items\n\n===== no tests ran in 0.01s ====='],
    ['npm test', 'npm ERR! Missing script: "test"'],
    [
      'python reproduce_bug.py',
      "python: can't open file '/testbed/reproduce_bug.py': [Errno 2] No such file or directory",
    ],
    ['cargo test', 'error[E0425]: cannot find value `x` in this scope\nerror: could not compile `demo`'],
  ])('a test command that failed to start is an error, never a pass: %s', (command, output) => {
    expect(detectTestRun(command, output)?.outcome).toBe('error');
  });

  it('reports an errored tool call as an error and a missing result as unknown', () => {
    expect(detectTestRun('yarn test', 'boom', true)?.outcome).toBe('error');
    expect(detectTestRun('pytest', undefined)?.outcome).toBe('unknown');
  });

  it.each([
    'grep -r "pytest" src',
    'cat tests/runtests.py',
    'pip install pytest',
    'ls tests/',
    'python -m pylint mytest.py',
    'echo "run npm test later"',
  ])('%s is not a test run', (command) => expect(detectTestRun(command, 'x')).toBeUndefined());
});

describe('completion statements', () => {
  it.each([
    ['Done.', true],
    ['All done!', true],
    ['The fix is complete.', true],
    ['I have implemented the requested change.', true],
    ["I've fixed the bug in parser.ts.", true],
    ['All tests pass.', true],
    ['The issue is now fixed.', true],
    ['This completes the task.', true],
    ['Task complete.', true],
    ['echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', true],
    ['Is it done?', false],
    ['Are all tests passing now that the fix is complete?', false],
    ['It is not done yet.', false],
    ["The bug isn't fixed.", false],
    ['Not all tests pass.', false],
    ['Once this is done, run the tests.', false],
    ['When done, submit the patch.', false],
    ['I will be done after the next edit.', false],
    ['Let me verify that all tests pass.', false],
    ['This is done by calling foo() in the loop.', false],
    ['It seems `LogLocator.nonsingular` was implemented without considering inverted axes.', false],
    // every form the check knows, each with the word a text must hold to be read at all
    ['Resolved, and the parser reads both formats.', true],
    ['Finished: the parser reads both formats.', true],
    ['The crash is now solved.', true],
    ['The ticket has been addressed.', true],
    ['The guard is now in place.', true],
    ['We applied the patch.', true],
    ['I made the necessary changes.', true],
    ['The migration is now finished.', true],
    ['All 12 tests now passed.', true],
    ['Tests pass now.', true],
    ['That completes the refactor.', true],
    ['We went to the lake and had a lovely picnic with the kids.', false],
  ])('%s → %s', (text, expected) => expect(isCompletionStatement(text)).toBe(expected));

  it('marks a mini-swe-agent submit command as a completion of its step', () => {
    const step = stepOf(bash('c1', 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached'));
    expect(step.completion).toBe(true);
  });
});

describe('intents', () => {
  const cases: [string, Message, Intent][] = [
    [
      'listing and reading',
      bash('c', 'cat src/app.ts', 'Let me look at the code to understand the structure.'),
      'EXPLORE',
    ],
    ['searching', bash('c', 'grep -rn "def where" xarray/core'), 'EXPLORE'],
    ['editing code', bash('c', "sed -i 's/a/b/' src/app.ts", 'I will change the condition.'), 'IMPLEMENT'],
    ['running tests', bash('c', 'pytest tests/test_app.py', 'Let me run the tests to confirm.'), 'VERIFY'],
    ['writing a reproduction script', bash('c', "cat <<'EOF' > reproduce_issue.py\nprint(1)\nEOF"), 'DEBUG'],
    ['editing docs', call('c', 'edit_file', { path: 'README.md', old: 'a', new: 'b' }), 'DOCUMENT'],
    ['renaming', bash('c', 'git mv src/util.ts src/helpers.ts', 'Rename the module to clean up the code.'), 'REFACTOR'],
    ['a read tool', call('c', 'get_reservation_details', { reservation_id: 'JG7FMM' }), 'EXPLORE'],
    ['a state-changing tool', call('c', 'cancel_reservation', { reservation_id: 'JG7FMM' }), 'IMPLEMENT'],
  ];
  it.each(cases)('%s → %s', (_name, message, intent) => expect(stepOf(message).intent).toBe(intent));

  it('a failing reproduction run is DEBUG, a passing one after an edit is VERIFY', () => {
    const steps = analyzeSteps([
      bash('a', 'python reproduce_issue.py'),
      result('a', '<returncode>1</returncode>\n<output>\nTraceback (most recent call last):'),
      bash('b', "sed -i 's/x/y/' lib/core.py"),
      result('b', '<returncode>0</returncode>'),
      bash('c', 'python reproduce_issue.py'),
      result('c', '<returncode>0</returncode>\n<output>\nok'),
    ]);
    expect(steps.map((s) => s.intent)).toEqual(['DEBUG', 'IMPLEMENT', 'VERIFY']);
    expect(steps.map((s) => s.test?.outcome)).toEqual(['fail', undefined, 'pass']);
  });

  it('breaks score ties in a fixed order and defaults to EXPLORE', () => {
    expect(classifyIntent('', [], [], [], undefined)).toBe('EXPLORE');
    expect(classifyIntent('verify and implement', [], [], [], undefined)).toBe('IMPLEMENT');
    expect(DEFAULT_INTENT_TRANSITIONS).toContainEqual(['EXPLORE', 'IMPLEMENT']);
  });
});

describe('analyzeSteps', () => {
  it('groups a parallel-call step with its results and picks the failing test run', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Fix the failing test in src/app.ts.' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Run both suites and read the file.' },
          { type: 'tool-call', id: 'r1', name: 'read_file', args: { path: 'src/app.ts' } },
          { type: 'tool-call', id: 't1', name: 'run_tests', args: { command: 'npx vitest run test/a.test.ts' } },
          { type: 'tool-call', id: 't2', name: 'bash', args: { command: 'pytest tests/test_b.py' } },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', callId: 'r1', name: 'read_file', output: 'export const x = 1; // see lib/other.ts' },
          { type: 'tool-result', callId: 't1', name: 'run_tests', output: '      Tests  2 passed (2)' },
        ],
      },
      result('t2', '=== 1 failed, 3 passed in 0.2s ===', 'bash'),
      { role: 'assistant', parts: [{ type: 'text', text: 'The fix is complete.' }] },
    ];
    const steps = analyzeSteps(messages);
    expect(steps).toHaveLength(2);
    const [first, second] = steps as [(typeof steps)[number], (typeof steps)[number]];
    expect(first.messageIndex).toBe(1);
    expect(first.callIds).toEqual(['r1', 't1', 't2']);
    expect(first.resultIndexes).toEqual([2, 3]);
    expect(first.reads).toEqual(['src/app.ts']);
    expect(first.files).toEqual(['src/app.ts', 'test/a.test.ts', 'tests/test_b.py']);
    expect(first.test).toEqual({ command: 'pytest tests/test_b.py', target: 'tests/test_b.py', outcome: 'fail' });
    expect(first.intent).toBe('VERIFY');
    expect(first.completion).toBe(false);
    expect(second).toMatchObject({
      messageIndex: 4,
      callIds: [],
      resultIndexes: [],
      intent: 'EXPLORE',
      completion: true,
    });
  });

  it('skips engine-made synthetic messages', () => {
    const synthetic: Message = {
      role: 'assistant',
      synthetic: 'acknowledgement',
      parts: [{ type: 'text', text: 'Done.' }],
    };
    expect(analyzeSteps([synthetic])).toEqual([]);
  });
});

const trajectories = fixtureTrajectories();

describe.skipIf(!trajectories)('every fixture trajectory', () => {
  it('finds the expected steps, with edits and test runs in every mini-swe-agent run', () => {
    const runs = trajectories ?? [];
    expect(runs.length).toBeGreaterThan(0);
    const perIntent: Record<string, number> = {};
    const perSource: Record<
      string,
      { steps: number; reads: number; edits: number; tests: number; completions: number }
    > = {};
    for (const run of runs) {
      const { messages } = run;
      const steps = analyzeSteps(messages);
      expect(steps.length).toBeGreaterThan(0);
      const source = run.source.split('/')[0] as string;
      const totals = perSource[source] ?? { steps: 0, reads: 0, edits: 0, tests: 0, completions: 0 };
      perSource[source] = totals;
      for (const step of steps) {
        perIntent[step.intent] = (perIntent[step.intent] ?? 0) + 1;
        totals.steps++;
        if (step.reads.length > 0) totals.reads++;
        if (step.edits.length > 0) totals.edits++;
        if (step.test) totals.tests++;
        if (step.completion) totals.completions++;
        for (const path of step.files) expect(path).not.toMatch(/^\/testbed\/|^\.\/|:\/\//);
      }
      if (run.id.startsWith('mini-swe-agent/')) {
        expect(
          steps.some((step) => step.edits.length > 0),
          `${run.id} has an edit`,
        ).toBe(true);
        expect(
          steps.some((step) => step.test !== undefined),
          `${run.id} has a test-like run`,
        ).toBe(true);
        expect(steps.at(-1)?.completion, `${run.id} ends with its submit command`).toBe(true);
      }
      if (source === 'swe-agent') {
        // an ACI edit names no file: it changes the file an earlier open or create made the open one
        const edits = steps.filter((step) => {
          const message = messages[step.messageIndex];
          return message?.parts.some((part) => part.type === 'tool-call' && part.name === 'edit');
        });
        expect(edits.length, `${run.id} has edits`).toBeGreaterThan(0);
        for (const step of edits) expect(step.edits, `${run.id} step at ${step.messageIndex}`).toHaveLength(1);
      }
      if (source === 'tau-bench') for (const step of steps) expect(step.files).toEqual([]);
    }
    // what the heuristics find in the fixtures: a change here is a change of behaviour, to be looked at
    expect(perIntent).toMatchInlineSnapshot(`
      {
        "DEBUG": 247,
        "DOCUMENT": 2,
        "EXPLORE": 569,
        "IMPLEMENT": 143,
        "REFACTOR": 2,
        "VERIFY": 204,
      }
    `);
    expect(perSource).toMatchInlineSnapshot(`
      {
        "mini-swe-agent": {
          "completions": 28,
          "edits": 139,
          "reads": 244,
          "steps": 630,
          "tests": 114,
        },
        "swe-agent": {
          "completions": 3,
          "edits": 185,
          "reads": 32,
          "steps": 308,
          "tests": 4,
        },
        "tau-bench": {
          "completions": 3,
          "edits": 0,
          "reads": 0,
          "steps": 229,
          "tests": 0,
        },
      }
    `);
  });
});
