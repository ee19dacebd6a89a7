import { describe, expect, it } from 'vitest';
import {
  cleanToken,
  fileOperand,
  hasFileName,
  isDocPath,
  isScratchDebugPath,
  isTestPath,
  looksLikePath,
  moduleOf,
  normalizePath,
  type PathContext,
} from '../../src/signals/paths.js';

describe('cleanToken', () => {
  it.each([
    ['src/app.ts', 'src/app.ts'],
    ['  src/app.ts  ', 'src/app.ts'],
    ['`src/app.ts`', 'src/app.ts'],
    ['"a.py",', 'a.py'],
    ["'a.py'", 'a.py'],
    ['(lib/x.py)', 'lib/x.py'],
    ['<src/a.ts>', 'src/a.ts'],
    ['[docs/a.md]', 'docs/a.md'],
    ['file.py.', 'file.py'],
    ['a.py?!', 'a.py'],
    ['a.py:12', 'a.py'],
    ['a.py:12:5', 'a.py'],
    ['a.py:12:', 'a.py'],
    ['a.py:', 'a.py'],
    ['tests/a.py::TestA::test_b', 'tests/a.py'],
    ['src/a.ts#L10-L20', 'src/a.ts'],
    ['src/a.ts#12', 'src/a.ts'],
    ['..', '..'],
    ['../..', '../..'],
    ['', ''],
  ])('%j → %j', (token, cleaned) => {
    expect(cleanToken(token)).toBe(cleaned);
  });
});

describe('hasFileName', () => {
  it.each([
    ['src/app.ts', true],
    ['a.py.bak', true],
    ['foo.bak.py', true],
    ['archive.tar.gz', true],
    ['x.PY', true],
    ['Dockerfile', true],
    ['deploy/Makefile', true],
    ['.gitignore', true],
    ['node_modules/@types/node/index.d.ts', true],
    ['src', false],
    ['src/', false],
    ['np.array', false],
    ['e.g', false],
    ['x.unknownext', false],
    ['1.2.3', false],
    ['.hidden', false],
    ['', false],
  ])('%j → %s', (path, expected) => {
    expect(hasFileName(path)).toBe(expected);
  });
});

describe('looksLikePath: a path found anywhere in text', () => {
  it.each([
    ['src/app.ts', 'src/app.ts'],
    ['`src/app.ts`,', 'src/app.ts'],
    ['setup.cfg', 'setup.cfg'],
    ['README', 'README'],
    ['.gitignore', '.gitignore'],
    ['a.py:12', 'a.py'],
    ['ab/cd', 'ab/cd'],
    ['src/billing', 'src/billing'],
    ['./x', './x'],
    ['../x', '../x'],
    ['/etc/hosts', '/etc/hosts'],
    ['/a', '/a'],
    ['a/../b.py', 'a/../b.py'],
  ])('%j is %j', (token, path) => {
    expect(looksLikePath(token)).toBe(path);
  });

  it.each([
    ['e.g.', 'an abbreviation'],
    ['i.e.', 'an abbreviation'],
    ['1.2.3', 'a version'],
    ['1/2', 'a fraction'],
    ['2024/05/15', 'a date'],
    ['and/or', 'prose'],
    ['read/write', 'prose'],
    ['text/html', 'a MIME type'],
    ['application/json', 'a MIME type'],
    ['https://example.com/a.py', 'a URL'],
    ['www.example.com', 'a host'],
    ['user@example.com', 'an e-mail address'],
    ['*.py', 'a glob'],
    ['src/{a,b}.ts', 'a brace expansion'],
    ['$HOME/a.py', 'a variable'],
    ['-rf', 'an option'],
    ['np.array', 'dotted code'],
    ['foo.bar', 'an unknown extension'],
    ['a/b', 'one-letter segments'],
    ['src/', 'a single unanchored segment'],
    ['..', 'a parent reference alone'],
    ['/', 'the root'],
    ['~', 'home'],
    ['my file.py', 'a space'],
    ['', 'nothing'],
  ])('rejects %j (%s)', (token) => {
    expect(looksLikePath(token)).toBeUndefined();
  });

  it('rejects a token longer than 300 characters', () => {
    expect(looksLikePath(`${'a'.repeat(297)}.py`)).toBe(`${'a'.repeat(297)}.py`);
    expect(looksLikePath(`${'a'.repeat(298)}.py`)).toBeUndefined();
  });
});

describe('fileOperand: a word in a file position', () => {
  it.each([
    ['src/app.ts', 'src/app.ts'],
    ['build', 'build'],
    ['src', 'src'],
    ['src/', 'src/'],
    ['np.array', 'np.array'],
    ['~/notes.md', '~/notes.md'],
    ['@scope/pkg', '@scope/pkg'],
    ["'quoted.txt'", 'quoted.txt'],
    ['C++', 'C++'],
  ])('%j is %j', (token, path) => {
    expect(fileOperand(token)).toBe(path);
  });

  it.each([
    ['-', 'stdin'],
    ['-n', 'an option'],
    ['/dev/null', 'a device'],
    ['123', 'a number'],
    ['1.2', 'a number'],
    ['1/2', 'a fraction'],
    ['x=1', 'an assignment'],
    ['a:b', 'a colon'],
    ['a b', 'a space'],
    ['*.py', 'a glob'],
    ['$FILE', 'a variable'],
    ['https://example.com/a.py', 'a URL'],
    ['~', 'home'],
    ['', 'nothing'],
  ])('rejects %j (%s)', (token) => {
    expect(fileOperand(token)).toBeUndefined();
  });
});

describe('normalizePath', () => {
  it.each<[string, PathContext | undefined, string]>([
    ['./a/./b//c/', undefined, 'a/b/c'],
    ['a/../b', undefined, 'b'],
    ['../a', undefined, '../a'],
    ['a/../../b', undefined, '../b'],
    ['/a/../b', undefined, '/b'],
    ['', undefined, ''],
    ['/repo/src/a.py', { repository: '/repo' }, 'src/a.py'],
    ['/repo', { repository: '/repo' }, ''],
    ['/repository/a.py', { repository: '/repo' }, '/repository/a.py'],
    ['/other/a.py', { root: '/other', repository: '/repo' }, 'a.py'],
    ['/repo/a.py', { root: '/other', repository: '/repo' }, 'a.py'],
    ['/x/a.py', { repository: '/' }, '/x/a.py'],
    ['a.py', { cwd: 'src' }, 'src/a.py'],
    ['../../a.py', { cwd: 'src' }, '../a.py'],
    ['~/a.py', { cwd: 'src' }, '~/a.py'],
    ['/abs/a.py', { cwd: 'src' }, '/abs/a.py'],
  ])('%j in %j → %j', (path, context, normalized) => {
    expect(normalizePath(path, context)).toBe(normalized);
  });

  it('does not mutate its context', () => {
    const context: PathContext = Object.freeze({ repository: '/repo', cwd: 'src' });
    expect(normalizePath('a.py', context)).toBe('src/a.py');
    expect(context).toEqual({ repository: '/repo', cwd: 'src' });
  });
});

describe('moduleOf', () => {
  it.each<[string, number | undefined, string]>([
    ['src/billing/tax.ts', undefined, 'src/billing'],
    ['src/billing', undefined, 'src/billing'],
    ['src/billing/', undefined, 'src/billing'],
    ['src/a/b/c.ts', 3, 'src/a/b'],
    ['src/a/b/c.ts', 0, '.'],
    ['src/Makefile', undefined, 'src'],
    ['Makefile', undefined, '.'],
    ['tax.ts', undefined, '.'],
    ['/abs.ts', undefined, '/'],
    ['/srv/django/db/query.py', undefined, '/srv/django'],
    ['', undefined, '.'],
  ])('%j at depth %j → %j', (path, depth, module) => {
    expect(moduleOf(path, depth)).toBe(module);
  });
});

describe('kinds of path', () => {
  it.each([
    ['README.md', true],
    ['README', true],
    ['Readme', true],
    ['CHANGELOG.rst', true],
    ['NEWS.md', true],
    ['notes.txt', true],
    ['docs/guide.py', true],
    ['doc/x', true],
    ['CHANGES/x', true],
    ['src/readme_util.py', false],
    ['src/a.ts', false],
  ])('isDocPath(%j) is %s', (path, expected) => {
    expect(isDocPath(path)).toBe(expected);
  });

  it.each([
    ['reproduce_issue.py', true],
    ['repro.py', true],
    ['debug.py', true],
    ['src/check_x.py', true],
    ['inspect_it.sh', true],
    ['investigate.js', true],
    ['debugger', false],
    ['src/debug/x.py', false],
    ['mydebug.py', false],
    ['src/app.py', false],
  ])('isScratchDebugPath(%j) is %s', (path, expected) => {
    expect(isScratchDebugPath(path)).toBe(expected);
  });

  it.each([
    ['test_x.py', true],
    ['x_test.go', true],
    ['x_tests.py', true],
    ['a.test.ts', true],
    ['b.spec.js', true],
    ['tests/anything.txt', true],
    ['testing/x', true],
    ['spec/a.rb', true],
    ['src/__tests__/a.js', true],
    ['verify_fix.py', true],
    ['tests.py', true],
    ['conftest.py', true],
    ['src/app.ts', false],
    ['latest.py', false],
    ['contest.py', false],
    ['attest.py', false],
  ])('isTestPath(%j) is %s', (path, expected) => {
    expect(isTestPath(path)).toBe(expected);
  });
});
