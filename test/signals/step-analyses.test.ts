import { describe, expect, it } from 'vitest';
import { hash53, hashChain } from '../../src/counting/hash.js';
import { StepAnalyses } from '../../src/signals/step-analyses.js';
import { analyzeSteps } from '../../src/signals/transcript-signals.js';
import { type Message, stableStringify } from '../../src/transcript/transcript.js';
import { bash, call, result } from '../helpers/steps.js';

/** Prefix hashes as the engine chains them; any hash of a message's content works, since only equality matters. */
function prefixHashes(messages: readonly Message[], namespace = ''): number[] {
  const hashes = [hash53(namespace)];
  for (const message of messages) hashes.push(hashChain(hashes.at(-1) as number, hash53(stableStringify(message))));
  return hashes;
}

/** Analyzes every prefix of a history, in order, with one instance, as the calls of a growing conversation do. */
function expectIncrementalEqualsFull(messages: readonly Message[], analyses = new StepAnalyses()) {
  const hashes = prefixHashes(messages);
  for (let count = 0; count <= messages.length; count++) {
    const prefix = messages.slice(0, count);
    expect(analyses.analyze('c', prefix, hashes.slice(0, count + 1)), `prefix of ${count}`).toEqual(
      analyzeSteps(prefix),
    );
  }
}

const task: Message = { role: 'user', parts: [{ type: 'text', text: 'Fix the crash in src/app.py.' }] };
const FIX_SCRIPT = "cat <<'EOF' > fix.py\ncode = open('src/app.py').read()\nopen('src/app.py', 'w').write(code)\nEOF";

/** A script written in one step edits a file when a later step runs it; a later failing run changes an intent. */
const scriptedFix: Message[] = [
  task,
  ...bash('a', 'python reproduce_issue.py', '<returncode>1</returncode>\nTraceback (most recent call last):'),
  ...bash('b', FIX_SCRIPT, '<returncode>0</returncode>'),
  ...bash('c', 'ls src', '<returncode>0</returncode>\napp.py'),
  ...bash('d', 'python fix.py', '<returncode>0</returncode>'),
  call('e', 'bash', { command: 'python reproduce_issue.py' }, 'Debug the error again.'),
  result('e', 'bash', '<returncode>0</returncode>\nok'),
];

describe('StepAnalyses', () => {
  it('reads a repository root stated in the system prompt', () => {
    const system: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'Repository: /home/dev/shop' }] }];
    const messages = [task, ...bash('a', 'cat /home/dev/shop/src/cart.ts', 'export {}')];
    const [withRoot] = new StepAnalyses().analyze('c', messages, prefixHashes(messages), system);
    const [withoutRoot] = new StepAnalyses().analyze('c', messages, prefixHashes(messages));
    expect(withRoot?.reads).toEqual(['src/cart.ts']);
    expect(withoutRoot?.reads).not.toEqual(['src/cart.ts']);
  });

  it('carries the scripts and the latest test run of earlier steps into the steps it adds', () => {
    const full = analyzeSteps(scriptedFix);
    expect(full.find((step) => step.callIds.includes('d'))?.edits).toEqual(['src/app.py']);
    expect(full.at(-1)?.intent).toBe('DEBUG');
    expectIncrementalEqualsFull(scriptedFix);
  });

  it('carries the latest test run alone', () => {
    expectIncrementalEqualsFull([
      task,
      ...bash('a', 'python reproduce_issue.py', '<returncode>1</returncode>\nTraceback (most recent call last):'),
      ...bash('b', 'ls src', '<returncode>0</returncode>\napp.py'),
      call('c', 'bash', { command: 'python reproduce_issue.py' }, 'Debug the error again.'),
      result('c', 'bash', '<returncode>0</returncode>\nok'),
    ]);
  });

  it('carries the file an ACI viewer has open into the steps it adds', () => {
    const aci = (id: string, command: string, output: string) => [
      call(id, command.split(/\s/)[0] as string, { command }),
      result(id, command.split(/\s/)[0] as string, output),
    ];
    const messages = [
      task,
      ...aci('a', 'open src/app.py', '[File: src/app.py (40 lines total)]'),
      ...aci('b', 'search_dir "crash"', 'Found 1 match'),
      ...aci('c', 'scroll_down', '[File: src/app.py (40 lines total)]'),
      ...aci('d', 'edit 3:4\n    return 1\nend_of_edit', 'File updated.'),
    ];
    expect(analyzeSteps(messages).map((step) => [step.reads, step.edits])).toEqual([
      [['src/app.py'], []],
      [[], []],
      [['src/app.py'], []],
      [[], ['src/app.py']],
    ]);
    expectIncrementalEqualsFull(messages);
  });

  it('does not reuse steps of a history that forked before them', () => {
    const analyses = new StepAnalyses();
    expectIncrementalEqualsFull(scriptedFix, analyses);
    const fork = [...scriptedFix.slice(0, 3), ...bash('x', 'cat src/app.py', 'print(1)'), ...scriptedFix.slice(5)];
    expect(analyses.analyze('c', fork, prefixHashes(fork))).toEqual(analyzeSteps(fork));
    expect(analyzeSteps(fork).find((step) => step.callIds.includes('d'))?.edits).toEqual([]);
  });

  it('does not keep a result that a forked history no longer has', () => {
    const analyses = new StepAnalyses();
    const late: Message[] = [task, call('a', 'bash', { command: 'pytest' }), call('b', 'read_file', { path: 'a.py' })];
    const answered = [...late, result('a', 'bash', '1 failed'), result('b', 'read_file', 'x')];
    expectIncrementalEqualsFull(answered, analyses);
    const unanswered = [...late, result('b', 'read_file', 'x')];
    expect(analyses.analyze('c', unanswered, prefixHashes(unanswered))).toEqual(analyzeSteps(unanswered));
  });

  it('keeps conversations apart', () => {
    const analyses = new StepAnalyses();
    const other = scriptedFix.slice(0, 5);
    expect(analyses.analyze('one', scriptedFix, prefixHashes(scriptedFix))).toEqual(analyzeSteps(scriptedFix));
    expect(analyses.analyze('two', other, prefixHashes(other))).toEqual(analyzeSteps(other));
    expect(analyses.analyze('one', scriptedFix, prefixHashes(scriptedFix))).toEqual(analyzeSteps(scriptedFix));
  });

  it('reuses the steps it stored instead of analyzing them again', () => {
    const analyses = new StepAnalyses();
    const before = scriptedFix.slice(0, 7);
    const first = analyses.analyze('c', before, prefixHashes(before));
    const second = analyses.analyze('c', scriptedFix, prefixHashes(scriptedFix));
    expect(second.slice(0, 2)).toEqual(first.slice(0, 2));
    for (let index = 0; index < 2; index++) expect(second[index]).toBe(first[index]);
    expect(new StepAnalyses().analyze('c', scriptedFix, prefixHashes(scriptedFix))[0]).not.toBe(first[0]);
  });
});

describe('StepAnalyses, a step read again', () => {
  it('keeps the last step it analyzed while the history around it is the same, and reads it again when a result comes', () => {
    const analyses = new StepAnalyses();
    const open = [task, call('a', 'bash', { command: 'pytest tests/test_app.py' }, 'Run the tests.')];
    const first = analyses.analyze('c', open, prefixHashes(open)).at(-1);
    expect(analyses.analyze('c', open, prefixHashes(open)).at(-1)).toBe(first);
    const answered = [...open, result('a', 'bash', '<returncode>1</returncode>\n1 failed')];
    const after = analyses.analyze('c', answered, prefixHashes(answered)).at(-1);
    expect(after).not.toBe(first);
    expect(after).toEqual(analyzeSteps(answered).at(-1));
    expect(after?.test?.outcome).toBe('fail');
  });

  it('analyzes from the start when a later message answers a call of a stored step again', () => {
    expectIncrementalEqualsFull([
      task,
      ...bash('a', 'python reproduce_issue.py', '<returncode>1</returncode>\nTraceback (most recent call last):'),
      ...bash('b', 'ls src', '<returncode>0</returncode>\napp.py'),
      ...bash('c', 'cat src/app.py', 'print(1)'),
      result('a', 'bash', '<returncode>0</returncode>\nok'),
      ...bash('d', 'python reproduce_issue.py', '<returncode>0</returncode>'),
    ]);
  });
});
