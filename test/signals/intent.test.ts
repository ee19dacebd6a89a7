import { describe, expect, it } from 'vitest';
import {
  callVerbs,
  classifyIntent,
  INTENT_ORDER,
  isCompletionStatement,
  isScriptRun,
  shellCommandsOf,
} from '../../src/signals/intent.js';
import type { Intent, TestRun } from '../../src/signals/step-signals.js';

type Call = { name: string; args: unknown };

/** Intent of a step from its text alone. */
const intentOfText = (text: string) => classifyIntent(text, [], [], [], undefined);
const bash = (command: string): Call => ({ name: 'bash', args: { command } });
const run = (command: string, outcome: TestRun['outcome']): TestRun => ({ command, target: '*', outcome });

describe('INTENT_ORDER', () => {
  it('breaks ties from IMPLEMENT down to EXPLORE', () => {
    expect(INTENT_ORDER).toEqual(['IMPLEMENT', 'VERIFY', 'DEBUG', 'REFACTOR', 'DOCUMENT', 'EXPLORE']);
  });
});

describe('classifyIntent from the words of a step', () => {
  it.each<[string, Intent]>([
    ['Let me look at the structure of the code', 'EXPLORE'],
    ['Why does this crash? The traceback shows an error', 'DEBUG'],
    ['DEBUG THE ERROR', 'DEBUG'],
    ['I will implement the change', 'IMPLEMENT'],
    ['Let me run the tests to make sure it works now', 'VERIFY'],
    ['Update the docs and the changelog', 'DOCUMENT'],
    ['Refactor: rename and extract the helper', 'REFACTOR'],
    ['Überprüfe die Struktur — 🚀 let me see', 'EXPLORE'],
  ])('%j → %s', (text, intent) => {
    expect(intentOfText(text)).toBe(intent);
  });

  it('is EXPLORE for a step with no evidence at all', () => {
    expect(intentOfText('')).toBe('EXPLORE');
    expect(intentOfText('Okay.')).toBe('EXPLORE');
  });

  it('breaks a tie in INTENT_ORDER', () => {
    expect(intentOfText('verify and implement')).toBe('IMPLEMENT');
    expect(intentOfText('find the bug')).toBe('DEBUG');
  });

  it('counts each distinct keyword once, and at most three per intent', () => {
    // six DEBUG words score 3, as many as the three distinct IMPLEMENT words, and IMPLEMENT wins the tie
    expect(intentOfText('error traceback exception bug crash broken; implement, add, edit')).toBe('IMPLEMENT');
    expect(intentOfText('error error error error; implement')).toBe('IMPLEMENT');
    expect(intentOfText('error traceback; implement')).toBe('DEBUG');
  });

  it('reads the whole of a very long text', () => {
    expect(intentOfText(`${'lorem ipsum '.repeat(10_000)}refactor and rename`)).toBe('REFACTOR');
  });
});

describe('classifyIntent from the files a step reads and edits', () => {
  it.each<[string, string[], string[], string, Intent]>([
    ['a read', ['src/a.py'], [], '', 'EXPLORE'],
    ['a code edit', [], ['src/a.py'], '', 'IMPLEMENT'],
    ['a code edit said to rename', [], ['src/a.py'], 'rename it', 'REFACTOR'],
    ['a doc edit', [], ['README.md'], '', 'DOCUMENT'],
    ['a doc and a code edit', [], ['README.md', 'src/a.py'], '', 'IMPLEMENT'],
    ['a scratch script edit', [], ['reproduce_issue.py'], '', 'DEBUG'],
    ['a test edit', [], ['tests/test_a.py'], '', 'VERIFY'],
    ['a read and a code edit', ['src/b.py'], ['src/a.py'], '', 'IMPLEMENT'],
  ])('%s → %s', (_name, reads, edits, text, intent) => {
    expect(classifyIntent(text, [], reads, edits, undefined)).toBe(intent);
  });

  it('does not take a refactoring word for REFACTOR without a code edit', () => {
    expect(classifyIntent('move the function later', [], [], ['README.md'], undefined)).toBe('DOCUMENT');
  });
});

describe('classifyIntent from the calls of a step', () => {
  it.each<[string, Call[], string[], Intent]>([
    ['a listing', [bash('ls -la src')], [], 'EXPLORE'],
    ['a search behind a wrapper', [bash('timeout 10 rg needle src')], [], 'EXPLORE'],
    ['a git diff', [bash('git diff')], [], 'VERIFY'],
    ['a git status', [bash('git status')], [], 'VERIFY'],
    ['a git log', [bash('git log -3')], [], 'EXPLORE'],
    ['an mv with a code edit', [bash('mv a.py b.py')], ['a.py', 'b.py'], 'REFACTOR'],
    ['a git mv with a code edit', [bash('git mv a.py b.py')], ['a.py', 'b.py'], 'REFACTOR'],
    ['a rename tool with a code edit', [{ name: 'rename_symbol', args: {} }], ['src/a.ts'], 'REFACTOR'],
    ['a record changed', [{ name: 'cancel_reservation', args: { reservation_id: 'X1' } }], [], 'IMPLEMENT'],
    ['a file written', [{ name: 'write_file', args: { path: 'a.py' } }], ['a.py'], 'IMPLEMENT'],
    ['a read tool', [{ name: 'read_file', args: { path: 'a.py' } }], [], 'EXPLORE'],
    ['a search tool', [{ name: 'grep', args: { pattern: 'x' } }], [], 'EXPLORE'],
    ['an ACI open', [{ name: 'open', args: { command: 'open src/a.py' } }], [], 'EXPLORE'],
    [
      'an ACI edit of no known file',
      [{ name: 'edit', args: { command: 'edit 1:2\nx\nend_of_edit' } }],
      [],
      'IMPLEMENT',
    ],
    ['a tool with no verb', [{ name: 'think', args: { thought: 'hmm' } }], [], 'EXPLORE'],
  ])('%s → %s', (_name, calls, edits, intent) => {
    expect(classifyIntent('', calls, [], edits, undefined)).toBe(intent);
  });

  it('does not count a shell command that edits nothing as a change', () => {
    expect(classifyIntent('', [{ name: 'write_file', args: { command: 'echo hi' } }], [], [], undefined)).toBe(
      'EXPLORE',
    );
  });
});

describe('classifyIntent from test runs', () => {
  it.each<[string, TestRun, TestRun | undefined, Intent]>([
    ['a passing test run', run('pytest', 'pass'), undefined, 'VERIFY'],
    ['a failing test run', run('pytest', 'fail'), undefined, 'VERIFY'],
    ['a failing reproduction', run('python reproduce.py', 'fail'), undefined, 'DEBUG'],
    ['a passing reproduction', run('python reproduce.py', 'pass'), undefined, 'VERIFY'],
    ['a passing reproduction after a failure', run('python reproduce.py', 'pass'), run('pytest', 'fail'), 'VERIFY'],
    ['a passing reproduction after a pass', run('python reproduce.py', 'pass'), run('pytest', 'pass'), 'VERIFY'],
  ])('%s → %s', (_name, test, previousTest, intent) => {
    expect(classifyIntent('', [], [], [], test, previousTest)).toBe(intent);
  });

  it('leans to DEBUG for a reproduction run after a failure', () => {
    const text = 'why the error';
    const script = run('python reproduce.py', 'pass');
    expect(classifyIntent(text, [], [], [], script)).toBe('VERIFY');
    expect(classifyIntent(text, [], [], [], script, run('pytest', 'fail'))).toBe('DEBUG');
  });

  it('does not mutate the arrays and runs it is given', () => {
    const calls = Object.freeze([Object.freeze(bash('mv a.py b.py'))]);
    const reads = Object.freeze(['src/c.py']);
    const edits = Object.freeze(['a.py', 'b.py']);
    const test = Object.freeze(run('pytest', 'pass'));
    expect(classifyIntent('rename', calls, reads, edits, test)).toBe('REFACTOR');
    expect([calls, reads, edits, test]).toEqual([
      [bash('mv a.py b.py')],
      ['src/c.py'],
      ['a.py', 'b.py'],
      run('pytest', 'pass'),
    ]);
  });
});

describe('callVerbs', () => {
  it.each<[Call, string[]]>([
    [{ name: 'read_file', args: {} }, ['read']],
    [{ name: 'bash', args: { command: 'ls' } }, []],
    [{ name: 'bash', args: { command: 'open src/a.py' } }, ['read']],
    [{ name: 'open', args: { command: 'open src/a.py' } }, ['read']],
    [{ name: 'edit_file', args: { command: 'scroll_down' } }, ['read', 'write']],
    [{ name: 'submit', args: 'submit' }, ['finish']],
    [{ name: 'transfer_to_human_agents', args: {} }, ['finish']],
    [{ name: 'search_dir', args: { command: 'search_dir needle src' } }, ['search']],
  ])('%j → %j', (call, verbs) => {
    expect(callVerbs(call)).toEqual(verbs);
  });
});

describe('isScriptRun and shellCommandsOf', () => {
  it.each<[string, boolean]>([
    ['python reproduce.py', true],
    ['python verify_fix.py', true],
    ['pytest', false],
    ['run_tests', false],
    ['python main.py', false],
  ])('isScriptRun(%j) is %s', (command, expected) => {
    expect(isScriptRun(run(command, 'pass'))).toBe(expected);
  });

  it.each<[unknown, string[]]>([
    [{ command: 'ls' }, ['ls']],
    ['pytest', ['pytest']],
    [{ cmd: ['git', 'status'] }, ['git status']],
    [{ command: 'open a.py' }, []],
    [{ command: 'view', path: 'a.py' }, []],
    [null, []],
    [42, []],
  ])('shellCommandsOf(%j) is %j', (args, commands) => {
    expect(shellCommandsOf(args)).toEqual(commands);
  });
});

describe('isCompletionStatement', () => {
  it.each([
    'Fixed!',
    'Fixed the bug.',
    'Resolved the conflict.',
    "I've completed the migration.",
    'We have now fixed it',
    'Everything is fixed.',
    'We are done.',
    'DONE',
    'Done, with the edit.',
    'The fix is in place.',
    'The job is now done.',
    'The work is finished!',
    'The tests pass now',
    'Line one.\nThe job is done.',
    'The fix is complete, but the docs are not done yet',
    'Le bug est corrigé. Done ✅',
  ])('%j says a task is done', (text) => {
    expect(isCompletionStatement(text)).toBe(true);
  });

  it.each([
    '',
    'fixed = True',
    'Fixed(x)',
    'fixed[0]',
    'Fixed by adding a guard',
    'Done by the script.',
    'Done with the edit.',
    'The fix is complete via a guard.',
    'Nearly done.',
    "I haven't finished.",
    'The task is done later',
    'Is the fix complete?',
    'I need to make sure it is fixed.',
    'It should be fixed.',
    'Before it was fixed, the code crashed.',
    'This test passes.',
  ])('%j does not', (text) => {
    expect(isCompletionStatement(text)).toBe(false);
  });

  it('finds a completion at the end of a very long text', () => {
    expect(isCompletionStatement(`${'Reading more code. '.repeat(5000)}The task is complete.`)).toBe(true);
    expect(isCompletionStatement('Reading more code. '.repeat(5000))).toBe(false);
  });
});
