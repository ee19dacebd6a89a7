import { describe, expect, it } from 'vitest';
import { type CallState, callFiles } from '../../src/signals/call-files.js';
import type { ScriptEffects } from '../../src/signals/commands.js';
import type { PathContext } from '../../src/signals/paths.js';

/** Reads, edits and files of a call, without the open file. */
const filesOf = (name: string, args: unknown, context?: PathContext, state?: CallState) => {
  const { reads, edits, files } = callFiles({ name, args }, undefined, context, state);
  return { reads, edits, files };
};

describe('callFiles: shell commands', () => {
  it('parses the command line of a shell call', () => {
    expect(filesOf('bash', { command: 'cat src/a.py && sed -i s/a/b/ src/b.py' })).toEqual({
      reads: ['src/a.py'],
      edits: ['src/b.py'],
      files: ['src/a.py', 'src/b.py'],
    });
  });

  it.each([
    ['a string argument', 'cat a.py'],
    ['a cmd argument', { cmd: 'cat a.py' }],
    ['an argument list', { command: ['cat', 'a.py'] }],
  ])('reads the command line of %s', (_name, args) => {
    expect(filesOf('shell', args)).toEqual({ reads: ['a.py'], edits: [], files: ['a.py'] });
  });

  it('names a path argument next to the command line without reading it', () => {
    expect(filesOf('bash', { command: 'cat a.py', path: 'b.py' })).toEqual({
      reads: ['a.py'],
      edits: [],
      files: ['a.py', 'b.py'],
    });
  });

  it('anchors absolute paths at the repository of the context', () => {
    expect(filesOf('bash', { command: 'cat /repo/src/a.py' }, { repository: '/repo' }).reads).toEqual(['src/a.py']);
  });

  it('counts what a script written earlier does when the call runs it', () => {
    const scripts: ScriptEffects = new Map([['run.py', { reads: ['in.txt'], edits: ['out.txt'] }]]);
    expect(callFiles({ name: 'bash', args: { command: 'python run.py' } }, scripts)).toEqual({
      reads: ['in.txt'],
      edits: ['out.txt'],
      files: ['in.txt', 'out.txt', 'run.py'],
      openFile: undefined,
    });
  });

  it('records a script the call writes in the scripts it is given', () => {
    const scripts: ScriptEffects = new Map();
    callFiles({ name: 'bash', args: { command: "cat <<'EOF' > fix.py\nopen('a.txt', 'w')\nEOF" } }, scripts);
    expect([...scripts]).toEqual([['fix.py', { reads: [], edits: ['a.txt'] }]]);
  });
});

describe('callFiles: file tools with JSON arguments', () => {
  it.each([
    ['read_file', { path: 'src/a.py' }, ['src/a.py'], [], ['src/a.py']],
    ['read_file', { path: './src/a.py' }, ['src/a.py'], [], ['src/a.py']],
    ['Read', { file_path: 'src/a.py' }, ['src/a.py'], [], ['src/a.py']],
    ['read_file', { paths: ['a.py', 'b.py'] }, ['a.py', 'b.py'], [], ['a.py', 'b.py']],
    ['read_file', { files: [{ path: 'a.py' }] }, ['a.py'], [], ['a.py']],
    ['read_file', { path: 'src' }, ['src'], [], ['src']],
    ['read_file', { target: 'a.py' }, ['a.py'], [], ['a.py']],
    ['read_file', { path: 'a.py', url: 'src/b.py' }, ['a.py'], [], ['a.py', 'src/b.py']],
    ['write_file', { path: 'a.py', content: 'see lib/x.py' }, [], ['a.py'], ['a.py']],
    ['edit_file', { file_path: 'a.py', old_string: 'x', new_string: 'y' }, [], ['a.py'], ['a.py']],
    ['save', { path: 'a.py', content: 'x' }, [], ['a.py'], ['a.py']],
    ['mystery', { path: 'a.py' }, [], [], ['a.py']],
    ['mystery', { note: 'src/a.py' }, [], [], ['src/a.py']],
    ['list_files', { path: 'src' }, [], [], ['src']],
    ['list_files', { directory: 'src' }, [], [], ['src']],
    ['read_file', { working_dir: 'src', file: 'a.py' }, ['a.py'], [], ['src', 'a.py']],
    ['grep', { pattern: 'needle', path: 'src/a.py' }, ['src/a.py'], [], ['src/a.py']],
    ['grep', { pattern: 'needle', path: 'src' }, [], [], ['src']],
  ])('%s %j', (name, args, reads, edits, files) => {
    expect(filesOf(name, args)).toEqual({ reads, edits, files });
  });

  it('names a path relative to the repository of the context', () => {
    expect(filesOf('read_file', { path: '/repo/src/a.py' }, { repository: '/repo' })).toEqual({
      reads: ['src/a.py'],
      edits: [],
      files: ['src/a.py'],
    });
  });

  it('looks a few levels deep into the arguments, no further', () => {
    expect(filesOf('batch', { a: { b: { c: { path: 'deep.py' } } } }).files).toEqual(['deep.py']);
    expect(filesOf('batch', { a: { b: { c: { d: { e: { path: 'deeper.py' } } } } } }).files).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['read_file', { target: 'ATL' }, 'an airport code in a target'],
    ['read_file', { path: 'https://example.com/a.py' }, 'a URL'],
    ['read_file', { path: '' }, 'an empty path'],
    ['read_file', { path: '*.py' }, 'a glob'],
    ['think', { thought: 'Price is 1/2 of e.g. 3.5 USD' }, 'prose'],
    ['note', { text: 'see src/a.py now' }, 'a path inside prose'],
    [
      'update_reservation_flights',
      { reservation_id: 'XEHM4B', flights: [{ flight_number: 'HAT039', date: '2024-05-15', origin: 'ATL' }] },
      'business arguments',
    ],
  ])('finds no file in %s %j (%s)', (name, args) => {
    expect(filesOf(name, args)).toEqual({ reads: [], edits: [], files: [] });
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['an array', ['cat a.py']],
    ['an empty object', {}],
  ])('finds no file in arguments that are %s', (_name, args) => {
    expect(callFiles({ name: 'read_file', args })).toEqual({ reads: [], edits: [], files: [], openFile: undefined });
  });
});

describe('callFiles: editor tools', () => {
  it.each([
    [{ command: 'view', path: 'src/a.py' }, undefined, ['src/a.py'], [], ['src/a.py']],
    [{ command: 'view', path: 'src' }, undefined, [], [], ['src']],
    [{ command: 'view', path: 'src' }, "Here's the result of running `cat -n` on src", ['src'], [], ['src']],
    [
      { command: 'view', path: 'a.py' },
      "Here's the files and directories up to 2 levels deep in a.py",
      [],
      [],
      ['a.py'],
    ],
    [{ command: 'str_replace', path: 'a.py', old_str: 'x', new_str: 'y' }, undefined, [], ['a.py'], ['a.py']],
    [{ command: 'create', path: 'n.py', file_text: 'import os.path' }, undefined, [], ['n.py'], ['n.py']],
  ])('%j with output %j', (args, output, reads, edits, files) => {
    expect(filesOf('str_replace_editor', args, {}, { output })).toEqual({ reads, edits, files });
  });
});

describe('callFiles: patches', () => {
  it.each([
    ['input', '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch', ['src/a.ts']],
    ['patch', 'diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py', ['x.py']],
    ['diff', '--- a/lib/core.py\n+++ b/lib/core.py\n@@\n-a\n+b', ['lib/core.py']],
  ])('edits the files of a patch in %s', (key, patch, edits) => {
    expect(filesOf('apply_patch', { [key]: patch })).toEqual({ reads: [], edits, files: edits });
  });

  it('names the files of a patch relative to the repository', () => {
    const patch = '*** Begin Patch\n*** Add File: /repo/src/new.ts\n*** End Patch';
    expect(filesOf('apply_patch', { patch }, { repository: '/repo' }).edits).toEqual(['src/new.ts']);
  });

  it('finds no file in patch text that is no patch', () => {
    expect(filesOf('apply_patch', { patch: 'no patch here' })).toEqual({ reads: [], edits: [], files: [] });
  });
});

describe('callFiles: SWE-agent ACI commands and the open file', () => {
  it.each<[string, string, string | undefined, string[], string[], string | undefined]>([
    ['open', 'open src/a.py', undefined, ['src/a.py'], [], 'src/a.py'],
    ['open', 'open src/b.py 40', 'src/a.py', ['src/b.py'], [], 'src/b.py'],
    ['create', 'create new.py', undefined, [], ['new.py'], 'new.py'],
    ['scroll_down', 'scroll_down', 'src/a.py', ['src/a.py'], [], 'src/a.py'],
    ['goto', 'goto 120', 'src/a.py', ['src/a.py'], [], 'src/a.py'],
    ['edit', 'edit 1:2\nx = 1\nend_of_edit', 'src/a.py', [], ['src/a.py'], 'src/a.py'],
    ['edit', 'edit 1:2\nx = 1\nend_of_edit', undefined, [], [], undefined],
    ['submit', 'submit', 'src/a.py', [], [], 'src/a.py'],
  ])('%s %j with %j open', (name, command, openFile, reads, edits, openAfter) => {
    const found = callFiles({ name, args: { command } }, undefined, {}, { openFile });
    expect([found.reads, found.edits, found.openFile]).toEqual([reads, edits, openAfter]);
  });

  it('names the folder a search looks in, not the term it looks for', () => {
    expect(filesOf('search_dir', { command: 'search_dir parse_config src/utils' })).toEqual({
      reads: [],
      edits: [],
      files: ['src/utils'],
    });
  });
});

describe('callFiles: inputs', () => {
  it('does not mutate the call, its arguments, the context or the state', () => {
    const args = { path: 'a.py', old_str: 'x', new_str: 'y', nested: { files: ['b.py'] } };
    const call = { name: 'edit_file', args };
    const context: PathContext = { repository: '/repo' };
    const state: CallState = { openFile: 'c.py', output: 'ok' };
    const before = structuredClone({ call, context, state });
    expect(callFiles(call, undefined, context, state)).toEqual({
      reads: [],
      edits: ['a.py', 'b.py'],
      files: ['a.py', 'b.py'],
      openFile: 'c.py',
    });
    expect({ call, context, state }).toEqual(before);
  });

  it('lists each path once, however often the arguments name it', () => {
    expect(filesOf('read_file', { path: 'a.py', paths: ['./a.py', 'a.py'], command: 'cat a.py' })).toEqual({
      reads: ['a.py'],
      edits: [],
      files: ['a.py'],
    });
  });
});
