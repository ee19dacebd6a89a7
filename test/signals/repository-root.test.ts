import { describe, expect, it } from 'vitest';
import { learnRepositoryRoot, statedRoot } from '../../src/signals/repository-root.js';
import { analyzeSteps } from '../../src/signals/transcript-signals.js';
import type { Message } from '../../src/transcript/transcript.js';
import { bash, call, result } from '../helpers/steps.js';

const say = (role: 'system' | 'user', text: string): Message => ({ role, parts: [{ type: 'text', text }] });

describe('statedRoot', () => {
  it.each([
    ['Repository: /home/dev/app', '/home/dev/app'],
    ['The repo is at /workspace/repo.', '/workspace/repo'],
    ['(Open file: n/a)\n(Current directory: /apache__dubbo)\nbash-$', '/apache__dubbo'],
    ['MODIFY: Regular source code files in /testbed (this is the working directory for all commands)', '/testbed'],
    ['<uploaded_files>\n/workspace/django__django__3.0\n</uploaded_files>', '/workspace/django__django__3.0'],
    ['working directory: /home/user/project/', '/home/user/project'],
    ['(Current directory: /marshmallow)\n... later ...\n(Current directory: /google__gson)', '/google__gson'],
    ['Write the log to /tmp/out.txt and read /usr/lib/python3/x.py.', undefined],
    ['The project root is /tmp/scratch', undefined],
    ['Fix the failing test in src/app.py.', undefined],
  ])('%j → %s', (text, root) => expect(statedRoot(text)).toBe(root));
});

describe('learnRepositoryRoot', () => {
  const learn = (...messages: Message[]) =>
    messages.reduce(
      (root, message) => learnRepositoryRoot(root, message),
      undefined as ReturnType<typeof learnRepositoryRoot>,
    );

  it('takes a stated root over an opening cd, and an opening cd over the paths named', () => {
    const paths = call('a', 'read_file', { path: '/home/user/project/src/app.py' });
    const cd = call('b', 'bash', { command: 'cd /home/user/project/src && ls' });
    expect(learn(paths)).toEqual({ path: '/home/user/project/src', evidence: 'paths' });
    expect(learn(paths, cd)).toEqual({ path: '/home/user/project/src', evidence: 'cd' });
    expect(learn(say('system', 'Repository: /home/user/project'), paths, cd)).toEqual({
      path: '/home/user/project',
      evidence: 'stated',
    });
    expect(learn(say('user', 'Repository: /a/one'), say('user', 'Now work in the repo at /a/two.'))?.path).toBe(
      '/a/two',
    );
  });

  it('moves a learned root up to hold files further apart, never to / or a system folder', () => {
    const read = (id: string, path: string) => call(id, 'read_file', { path });
    expect(learn(read('a', '/work/app/src/a.py'), read('b', '/work/app/tests/b.py'))?.path).toBe('/work/app');
    expect(learn(read('a', '/work/app/src/a.py'), read('b', '/srv/other.py'))?.path).toBe('/work/app/src');
    expect(learn(read('a', '/tmp/a.py'), bash('b', 'cat /usr/lib/x.py', '')[0] as Message)).toBeUndefined();
  });

  it('moves a cd root up only to an ancestor; a cd elsewhere anchors its own command line', () => {
    const cd = (id: string, dir: string) => call(id, 'bash', { command: `cd ${dir} && ls` });
    expect(learn(cd('a', '/w/app/pkg'), cd('b', '/w/app'))?.path).toBe('/w/app');
    expect(learn(cd('a', '/w/app'), cd('b', '/w/other'))?.path).toBe('/w/app');
  });
});

/** One run of an agent whose sandbox keeps the repository at `root`, which the transcript shows as `evidence`. */
function run(root: string, evidence: 'stated' | 'cd' | 'paths'): Message[] {
  return [
    say(evidence === 'stated' ? 'system' : 'user', evidence === 'stated' ? `Repository: ${root}` : 'Fix the bug.'),
    ...(evidence === 'cd' ? bash('cd', `cd ${root} && git status`, 'clean') : []),
    call('v', 'str_replace_editor', { command: 'view', path: `${root}/src/app.py` }),
    result('v', 'str_replace_editor', 'def f(): ...'),
    ...bash('t', `tail -n 5 ${root}/tests/test_app.py`, 'assert f()'),
    ...bash('e', `cd ${root}/src && sed -i 's/a/b/' app.py`, '<returncode>0</returncode>'),
    ...bash('p', `python -m pytest ${root}/tests/test_app.py`, '1 passed in 0.1s'),
  ];
}
const named = (messages: Message[]) =>
  analyzeSteps(messages)
    .filter((step) => step.callIds[0] !== 'cd')
    .map(({ reads, edits, files, test }) => ({ reads, edits, files, target: test?.target }));

describe('paths of agents with different repository roots', () => {
  const expected = [
    { reads: ['src/app.py'], edits: [], files: ['src/app.py'], target: undefined },
    { reads: ['tests/test_app.py'], edits: [], files: ['tests/test_app.py'], target: undefined },
    { reads: [], edits: ['src/app.py'], files: ['src/app.py'], target: undefined },
    { reads: [], edits: [], files: ['tests/test_app.py'], target: 'tests/test_app.py' },
  ];

  it.each([
    ['/testbed', 'stated'],
    ['/workspace/repo', 'stated'],
    ['/home/user/project', 'stated'],
    ['/testbed', 'cd'],
    ['/workspace/repo', 'cd'],
    ['/home/user/project', 'cd'],
  ] as const)('%s, %s', (root, evidence) => expect(named(run(root, evidence))).toEqual(expected));

  it('names files the same once the paths alone show the root', () => {
    const steps = named(run('/home/user/project', 'paths'));
    // the first file alone shows only its own folder; the second shows where the repository starts
    expect(steps[0]?.reads).toEqual(['app.py']);
    expect(steps.slice(1)).toEqual(expected.slice(1));
  });

  it('keeps absolute paths when nothing shows a root', () => {
    const steps = analyzeSteps([say('user', 'Fix it.'), ...bash('a', 'cat /tmp/notes.txt', 'x')]);
    expect(steps[0]?.reads).toEqual(['/tmp/notes.txt']);
  });
});
