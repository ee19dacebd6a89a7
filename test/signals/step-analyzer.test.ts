import { describe, expect, it } from 'vitest';
import {
  createStepAnalyzer,
  type StepAnalyzer,
  type StepMemo,
  startingCarry,
} from '../../src/signals/step-analyzer.js';
import type { StepSignals } from '../../src/signals/step-signals.js';
import type { Message } from '../../src/transcript/transcript.js';
import { bash, call, result } from '../helpers/steps.js';

const task: Message = { role: 'user', parts: [{ type: 'text', text: 'Repository: /home/dev/app. Fix the crash.' }] };

/** Every message analyzed in order: the signals of each step, by message index. */
function analyzeAll(analyzer: StepAnalyzer, messages: readonly Message[], from = 0) {
  const steps = new Map<number, StepSignals>();
  for (let index = from; index < messages.length; index++) {
    const step = analyzer.analyzeStep(index);
    if (step) steps.set(index, step);
  }
  return steps;
}

describe('startingCarry', () => {
  it('starts with no scripts, no test run, no root and no open file', () => {
    const carry = startingCarry();
    expect(carry.scripts.size).toBe(0);
    expect(carry).toMatchObject({ previousTest: undefined, root: undefined });
    expect(carry.openFile).toBeUndefined();
  });

  it('learns the repository root the system prompt states', () => {
    const system: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'Repository: /srv/shop' }] }];
    expect(startingCarry(system).root).toEqual({ path: '/srv/shop', evidence: 'stated' });
  });
});

describe('createStepAnalyzer: one step', () => {
  it('reads a shell step: its files relative to the stated root, its results, its intent', () => {
    const messages = [task, ...bash('a', 'cat /home/dev/app/src/main.py', 'print(1)')];
    const analyzer = createStepAnalyzer(messages);
    expect(analyzer.analyzeStep(0)).toBeUndefined();
    expect(analyzer.analyzeStep(1)).toEqual<StepSignals>({
      messageIndex: 1,
      resultIndexes: [2],
      callIds: ['a'],
      reads: ['src/main.py'],
      edits: [],
      files: ['src/main.py'],
      test: undefined,
      intent: 'EXPLORE',
      completion: false,
    });
    expect(analyzer.analyzeStep(2)).toBeUndefined();
  });

  it('reads a step of parallel calls, answered in any order, and its completion from a thought argument', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Reading one file and fixing the other.' },
          { type: 'tool-call', id: 'x', name: 'read_file', args: { path: 'a.py' } },
          {
            type: 'tool-call',
            id: 'y',
            name: 'edit_file',
            args: { path: 'b.py', old_str: 'a', new_str: 'b', thought: 'I have fixed it.' },
          },
        ],
      },
      result('y', 'edit_file', 'ok'),
      result('x', 'read_file', 'ok'),
    ];
    expect(createStepAnalyzer(messages).analyzeStep(0)).toEqual<StepSignals>({
      messageIndex: 0,
      resultIndexes: [1, 2],
      callIds: ['x', 'y'],
      reads: ['a.py'],
      edits: ['b.py'],
      files: ['a.py', 'b.py'],
      test: undefined,
      intent: 'IMPLEMENT',
      completion: true,
    });
  });

  it('reads a text-only assistant message as a step with no calls', () => {
    const message: Message = { role: 'assistant', parts: [{ type: 'text', text: 'All done.' }] };
    const step = createStepAnalyzer([message]).analyzeStep(0);
    expect(step).toMatchObject({ callIds: [], resultIndexes: [], files: [], intent: 'EXPLORE', completion: true });
  });

  it('skips messages the engine made', () => {
    const synthetic: Message = {
      role: 'assistant',
      synthetic: 'acknowledgement',
      parts: [{ type: 'text', text: 'Done.' }],
    };
    expect(createStepAnalyzer([synthetic]).analyzeStep(0)).toBeUndefined();
  });

  it('does not take a result that comes before the call for its answer', () => {
    const messages = [result('a', 'bash', 'stale'), call('a', 'bash', { command: 'ls' })];
    const analyzer = createStepAnalyzer(messages);
    expect(analyzer.analyzeStep(0)).toBeUndefined();
    expect(analyzer.analyzeStep(1)?.resultIndexes).toEqual([]);
  });

  it.each([
    ['a submit tool', call('s', 'submit', {})],
    ['a hand-off to a person', call('s', 'transfer_to_human_agents', { summary: 'refund' })],
    ['the mini-swe-agent submit command', call('s', 'bash', { command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' })],
  ])('marks %s as a completion', (_name, message) => {
    expect(createStepAnalyzer([message]).analyzeStep(0)?.completion).toBe(true);
  });

  it('does not mark a step that only talks about submitting as a completion', () => {
    const message = call('s', 'bash', { command: 'ls' }, 'I will submit later.');
    expect(createStepAnalyzer([message]).analyzeStep(0)?.completion).toBe(false);
  });
});

describe('createStepAnalyzer: test runs', () => {
  it('picks the failing run of a step with several, and carries it as the previous test', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', id: 'p', name: 'bash', args: { command: 'npm test' } },
          { type: 'tool-call', id: 'f', name: 'bash', args: { command: 'pytest tests/test_a.py' } },
        ],
      },
      result('p', 'bash', 'Tests  2 passed (2)'),
      result('f', 'bash', '=== 1 failed in 0.1s ==='),
    ];
    const analyzer = createStepAnalyzer(messages);
    const failing = { command: 'pytest tests/test_a.py', target: 'tests/test_a.py', outcome: 'fail' };
    expect(analyzer.analyzeStep(0)).toMatchObject({ test: failing, intent: 'VERIFY' });
    expect(analyzer.carry.previousTest).toEqual(failing);
  });

  it('reads a test tool by its name, with its target relative to the root', () => {
    const messages = [
      task,
      call('t', 'run_tests', { path: '/home/dev/app/tests' }),
      result('t', 'run_tests', 'exit code: 1'),
    ];
    const step = analyzeAll(createStepAnalyzer(messages), messages).get(1);
    expect(step?.test).toEqual({ command: 'run_tests', target: 'tests', outcome: 'fail' });
  });

  it('reads a test tool without a target as a run of the whole suite', () => {
    const step = createStepAnalyzer([call('t', 'run_tests', {})]).analyzeStep(0);
    expect(step?.test).toEqual({ command: 'run_tests', target: '*', outcome: 'unknown' });
  });

  it('makes a reproduction run after a failing one count as debugging', () => {
    const messages = [
      ...bash('a', 'python reproduce_issue.py', '<returncode>1</returncode>\nTraceback (most recent call last):'),
      call('b', 'bash', { command: 'python reproduce_issue.py' }, 'Debug the error again.'),
      result('b', 'bash', '<returncode>0</returncode>'),
    ];
    const steps = analyzeAll(createStepAnalyzer(messages), messages);
    expect([steps.get(0)?.intent, steps.get(2)?.intent]).toEqual(['DEBUG', 'DEBUG']);
    expect(createStepAnalyzer(messages.slice(2)).analyzeStep(0)?.intent).toBe('VERIFY');
  });
});

describe('createStepAnalyzer: what one step hands to the next', () => {
  const scripted: Message[] = [
    ...bash('w', "cat <<'EOF' > fix.py\nopen('src/app.py', 'w').write('x')\nEOF", ''),
    ...bash('r', 'python fix.py', '<returncode>0</returncode>'),
    call('o', 'open', { command: 'open src/app.py' }),
    result('o', 'open', '[File: src/app.py (40 lines total)]'),
    call('e', 'edit', { command: 'edit 1:1\nx = 2\nend_of_edit' }),
    result('e', 'edit', 'File updated.'),
  ];

  it('carries a script written in one step into the step that runs it, and the open file into the next edit', () => {
    const steps = analyzeAll(createStepAnalyzer(scripted), scripted);
    expect([...steps].map(([index, step]) => [index, step.reads, step.edits])).toEqual([
      [0, [], ['fix.py']],
      [2, [], ['src/app.py']],
      [4, ['src/app.py'], []],
      [6, [], ['src/app.py']],
    ]);
  });

  it('reports the carried state, and never mutates the carry it started from', () => {
    const start = startingCarry();
    const analyzer = createStepAnalyzer(scripted, { carry: start });
    analyzeAll(analyzer, scripted);
    expect([...analyzer.carry.scripts.keys()]).toEqual(['fix.py']);
    expect(analyzer.carry.openFile).toBe('src/app.py');
    expect(start.scripts.size).toBe(0);
    expect(start.openFile).toBeUndefined();
  });

  it('learns the root from messages it skips over', () => {
    const messages = [task, ...bash('a', 'cat /home/dev/app/src/main.py', 'print(1)')];
    const analyzer = createStepAnalyzer(messages);
    expect(analyzer.analyzeStep(1)?.reads).toEqual(['src/main.py']);
    expect(analyzer.carry.root).toEqual({ path: '/home/dev/app', evidence: 'stated' });
  });

  it('resumed at a message with the carry reported there, gives what one analysis of the whole history gives', () => {
    const messages = [task, ...scripted];
    const whole = createStepAnalyzer(messages);
    const carries = [];
    const expected = [];
    for (let index = 0; index < messages.length; index++) {
      carries.push(whole.carry);
      expected.push(whole.analyzeStep(index));
    }
    for (const from of [1, 3, 5]) {
      const resumed = createStepAnalyzer(messages, { from, carry: carries[from] });
      for (let index = from; index < messages.length; index++)
        expect(resumed.analyzeStep(index), `from ${from}, message ${index}`).toEqual(expected[index]);
    }
  });

  it('resumed without the carry, does not know a script written before it', () => {
    const resumed = createStepAnalyzer(scripted, { from: 2 });
    expect(resumed.analyzeStep(2)?.edits).toEqual([]);
  });

  it('refuses to go back to an earlier message', () => {
    const analyzer = createStepAnalyzer(scripted);
    analyzer.analyzeStep(4);
    expect(() => analyzer.analyzeStep(2)).toThrow(RangeError);
    expect(() => analyzer.analyzeStep(4)).toThrow('message 4 comes before message 5');
  });

  it('does not mutate the history', () => {
    const messages = [task, ...scripted];
    const before = structuredClone(messages);
    analyzeAll(createStepAnalyzer(messages), messages);
    expect(messages).toEqual(before);
  });
});

describe('createStepAnalyzer: the memo of analyzed steps', () => {
  const open = [call('a', 'bash', { command: 'pytest tests/test_app.py' }, 'Run the tests.')];
  const answered = [...open, result('a', 'bash', '<returncode>1</returncode>\n1 failed')];

  it('gives back the stored step when the message, the carry and the results are the same', () => {
    const memo: StepMemo = new WeakMap();
    const carry = startingCarry();
    const first = createStepAnalyzer(open, { carry, memo }).analyzeStep(0);
    expect(memo.has(open[0] as Message)).toBe(true);
    expect(createStepAnalyzer(open, { carry, memo }).analyzeStep(0)).toBe(first);
  });

  it('analyzes the step again when a result has come, or the carry differs', () => {
    const memo: StepMemo = new WeakMap();
    const carry = startingCarry();
    const first = createStepAnalyzer(open, { carry, memo }).analyzeStep(0);
    expect(first?.test?.outcome).toBe('unknown');
    const again = createStepAnalyzer(answered, { carry, memo }).analyzeStep(0);
    expect(again).not.toBe(first);
    expect(again?.test?.outcome).toBe('fail');
    expect(createStepAnalyzer(answered, { carry: startingCarry(), memo }).analyzeStep(0)).not.toBe(again);
  });
});
