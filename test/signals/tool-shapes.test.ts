import { describe, expect, it } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { resultSites } from '../../src/masking/observation-masking.js';
import { findSupersededObservations } from '../../src/masking/staleness.js';
import { parseAciCommand } from '../../src/signals/aci-commands.js';
import { toolNameWords, toolVerb } from '../../src/signals/tool-verbs.js';
import { analyzeSteps } from '../../src/signals/transcript-signals.js';
import type { Message } from '../../src/transcript/transcript.js';

const meter = new MessageMeter(approximateCounter());

const task: Message = { role: 'user', parts: [{ type: 'text', text: 'Fix the bug. Repository: /repo' }] };
/** An assistant step with one call and its result. */
const step = (id: string, name: string, args: unknown, output = 'ok', text = ''): Message[] => [
  {
    role: 'assistant',
    parts: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool-call', id, name, args }],
  },
  { role: 'tool', parts: [{ type: 'tool-result', callId: id, name, output }] },
];
/** An ACI command as the fixtures record it: a call named after the command's first word. */
const aci = (id: string, command: string, output = 'ok'): Message[] =>
  step(id, command.split(/\s/)[0] as string, { command }, output);
const editor = (id: string, args: Record<string, unknown>, output = 'ok'): Message[] =>
  step(id, 'str_replace_based_edit_tool', args, output);
/** The signals of the steps of a history that starts with the task. */
const stepsOf = (...steps: Message[][]) => analyzeSteps([task, ...steps.flat()]);
const only = (...steps: Message[][]) => {
  const found = stepsOf(...steps);
  expect(found).toHaveLength(1);
  return found[0] as (typeof found)[number];
};
/** Keys of the results a later step superseded, with the reason. */
function superseded(...steps: Message[][]): Record<string, string> {
  const messages = [task, ...steps.flat(), ...step('last', 'think', { thought: 'next' })];
  const found = findSupersededObservations({
    steps: analyzeSteps(messages),
    sites: resultSites(messages, meter),
    from: 0,
  });
  return Object.fromEntries(found.map((observation) => [observation.key, observation.reason]));
}

describe('editor tools with a command verb and a path', () => {
  it.each([
    [{ command: 'view', path: '/repo/src/app.py' }, ['src/app.py'], []],
    [{ command: 'view', path: '/repo/src/app.py', view_range: [10, 40] }, ['src/app.py'], []],
    [{ command: 'create', path: '/repo/tests/test_app.py', file_text: 'x = 1' }, [], ['tests/test_app.py']],
    [{ command: 'str_replace', path: '/repo/src/app.py', old_str: 'a', new_str: 'b' }, [], ['src/app.py']],
    [{ command: 'insert', path: '/repo/src/app.py', insert_line: 3, new_str: 'x' }, [], ['src/app.py']],
    [{ command: 'undo_edit', path: '/repo/src/app.py' }, [], ['src/app.py']],
  ])('%j', (args, reads, edits) => {
    const found = only(editor('e1', args));
    expect(found.reads).toEqual(reads);
    expect(found.edits).toEqual(edits);
    expect(found.files).toEqual([...reads, ...edits]);
  });

  it('does not take a directory view for a file read, by its output or by its path', () => {
    const listing = "Here's the files and directories up to 2 levels deep in /repo/src, excluding hidden items:\n";
    for (const [path, output] of [
      ['/repo/src', `${listing}/repo/src/app.py`],
      ['/repo/src/', undefined],
      ['/repo/lib', undefined],
    ] as const) {
      const found = only(editor('e1', { command: 'view', path }, output));
      expect(found.reads, path).toEqual([]);
      expect(found.files, path).toEqual([path.slice('/repo/'.length).replace(/\/$/, '')]);
    }
  });

  it('reads a file without an extension when the output shows its lines', () => {
    const output = "Here's the result of running `cat -n` on /repo/bin/run:\n     1\t#!/bin/sh\n";
    expect(only(editor('e1', { command: 'view', path: '/repo/bin/run' }, output)).reads).toEqual(['bin/run']);
  });

  it('recognizes the same editor run as a program in a shell command', () => {
    const view = only(step('b1', 'bash', { command: 'str_replace_editor view /repo/src/app.py' }));
    expect(view.reads).toEqual(['src/app.py']);
    const change = only(
      step('b2', 'bash', { command: "str_replace_editor str_replace /repo/src/app.py --old_str 'a' --new_str 'b'" }),
    );
    expect(change).toMatchObject({ reads: [], edits: ['src/app.py'] });
    expect(only(step('b3', 'bash', { command: 'str_replace_editor view /repo/src' })).reads).toEqual([]);
  });
});

describe('SWE-agent ACI commands', () => {
  it('attributes goto, scroll and edit to the file opened in an earlier step', () => {
    const found = stepsOf(
      aci('a', 'open src/main/Parser.java'),
      aci('b', 'goto 120'),
      aci('c', 'scroll_down'),
      aci('d', 'scroll_up'),
      aci('e', 'edit 120:124\n        return parse(input);\n    }\nend_of_edit'),
    );
    expect(found.map((s) => [s.reads, s.edits])).toEqual([
      [['src/main/Parser.java'], []],
      [['src/main/Parser.java'], []],
      [['src/main/Parser.java'], []],
      [['src/main/Parser.java'], []],
      [[], ['src/main/Parser.java']],
    ]);
    expect(found.map((s) => s.intent)).toEqual(['EXPLORE', 'EXPLORE', 'EXPLORE', 'EXPLORE', 'IMPLEMENT']);
  });

  it('makes a created file the open one, and a later open replaces it', () => {
    const found = stepsOf(
      aci('a', 'create Reproduce.java'),
      aci('b', 'edit 1:1\npublic class Reproduce {}\nend_of_edit'),
      aci('c', 'open src/Lib.java 40'),
      aci('d', 'edit 40:41\n  int x = 1;\nend_of_edit'),
    );
    expect(found.map((s) => s.edits)).toEqual([['Reproduce.java'], ['Reproduce.java'], [], ['src/Lib.java']]);
    expect(found[2]?.reads).toEqual(['src/Lib.java']);
  });

  it('knows no file to edit before one is opened', () => {
    const found = only(aci('e', 'edit 1:3\nx = 1\nend_of_edit'));
    expect(found).toMatchObject({ reads: [], edits: [], files: [], intent: 'IMPLEMENT' });
  });

  it('never reads an edit body as shell commands', () => {
    const found = stepsOf(
      aci('a', 'open build.sh'),
      aci('b', 'edit 1:2\npytest tests/test_a.py\ncat /etc/passwd > out/log.txt\nend_of_edit', 'File updated.'),
    );
    expect(found[1]).toMatchObject({ reads: [], edits: ['build.sh'], files: ['build.sh'], test: undefined });
  });

  it('searches without reading, except search_file given a file', () => {
    const found = stepsOf(
      aci('a', 'open src/Lib.java'),
      aci('b', 'search_file "parse"'),
      aci('c', 'search_file "parse" src/Other.java'),
      aci('d', 'search_dir "parse" src/main'),
      aci('e', 'find_file "Lib.java" src'),
      aci('f', 'find_file "Lib.java"'),
    );
    expect(found.slice(1).map((s) => [s.reads, s.files])).toEqual([
      [[], ['src/Lib.java']],
      [['src/Other.java'], ['src/Other.java']],
      [[], ['src/main']],
      [[], ['src']],
      [[], []],
    ]);
    expect(found.slice(1).every((s) => s.intent === 'EXPLORE')).toBe(true);
  });

  it('marks submit as a completion', () => {
    expect(only(aci('s', 'submit')).completion).toBe(true);
    expect(only(step('s', 'bash', { command: 'submit' })).completion).toBe(true);
  });

  it('works the same when a shell tool carries the commands', () => {
    const found = stepsOf(
      step('a', 'bash', { command: 'open src/Lib.java' }),
      step('b', 'bash', { command: 'edit 3:4\n  int y = 2;\nend_of_edit' }),
    );
    expect(found.map((s) => s.edits)).toEqual([[], ['src/Lib.java']]);
  });

  it.each([
    'open -a Preview image.png',
    'open a.py b.py',
    'goto line',
    'create',
    'edit src/a.py',
    'search_dir "x" | grep y',
    'scroll_down 3',
  ])('%s is no ACI command', (command) => expect(parseAciCommand(command)).toBeUndefined());
});

describe('file tools named by their verb', () => {
  it.each([
    ['read_file', { path: 'src/app.ts' }, ['src/app.ts'], [], []],
    ['view_file', { file_path: '/repo/src/app.ts' }, ['src/app.ts'], [], []],
    ['open_file', { filename: 'src/app.ts' }, ['src/app.ts'], [], []],
    ['readFile', { filePath: 'src/app.ts' }, ['src/app.ts'], [], []],
    ['Read', { file_path: '/repo/src/app.ts', offset: 10 }, ['src/app.ts'], [], []],
    ['read_file', { absolute_path: '/repo/src/app.ts' }, ['src/app.ts'], [], []],
    ['write_file', { path: 'src/app.ts', content: 'x' }, [], ['src/app.ts'], []],
    ['create_file', { file_path: 'src/new.ts', content: 'x' }, [], ['src/new.ts'], []],
    ['edit_file', { target_file: 'src/app.ts', code_edit: 'x' }, [], ['src/app.ts'], []],
    ['Edit', { file_path: '/repo/src/app.ts', old_string: 'a', new_string: 'b' }, [], ['src/app.ts'], []],
    ['write_to_file', { path: 'src/app.ts', content: 'x' }, [], ['src/app.ts'], []],
    ['list_files', { path: 'src' }, [], [], ['src']],
    ['list_directory', { path: '/repo/src/app.ts' }, [], [], ['src/app.ts']],
    ['search_files', { path: 'src', regex: 'parse' }, [], [], ['src']],
    ['Grep', { pattern: 'parse', path: 'src/app.ts' }, ['src/app.ts'], [], []],
    ['read_file', { path: 'src/app.ts', working_dir: '/repo/pkg' }, ['src/app.ts'], [], ['pkg']],
  ])('%s %j', (name, args, reads, edits, others) => {
    const found = only(step('c1', name, args));
    expect(found.reads).toEqual(reads);
    expect(found.edits).toEqual(edits);
    expect(found.files).toEqual([...reads, ...edits, ...others]);
  });
});

describe('function-calling APIs', () => {
  it.each([
    ['get_user_details', { user_id: 'mia_li_3668' }, 'EXPLORE'],
    ['search_direct_flight', { origin: 'JFK', destination: 'SEA', date: '2024-05-20' }, 'EXPLORE'],
    ['list_all_airports', {}, 'EXPLORE'],
    ['getUserDetails', { userId: 'mia_li_3668' }, 'EXPLORE'],
    ['update_reservation_flights', { reservation_id: 'XEHM4B', cabin: 'economy', flights: [] }, 'IMPLEMENT'],
    ['book_reservation', { user_id: 'mia_li_3668', origin: 'JFK', destination: 'SEA' }, 'IMPLEMENT'],
    ['cancelReservation', { reservationId: 'XEHM4B' }, 'IMPLEMENT'],
    ['transfer_funds', { from: 'A-1', to: 'B-2', amount: 10 }, 'IMPLEMENT'],
  ])('%s: no files, %s', (name, args, intent) => {
    const found = only(step('c1', name, args));
    expect(found).toMatchObject({ reads: [], edits: [], files: [], intent, completion: false });
  });

  it('marks a hand-off to a person and a finishing tool as a completion', () => {
    for (const name of ['transfer_to_human_agents', 'escalateToHuman', 'submit', 'attempt_completion', 'task_complete'])
      expect(only(step('c1', name, { summary: 'done' })).completion, name).toBe(true);
    for (const name of ['transfer_funds', 'complete_order_items', 'exit_cost'])
      expect(only(step('c1', name, {})).completion, name).toBe(false);
  });
});

describe('a read superseded by a later edit of the same file, in every tool family', () => {
  it.each<[string, Message[][]]>([
    [
      'shell',
      [step('r', 'bash', { command: 'cat src/app.py' }), step('e', 'bash', { command: 'sed -i s/a/b/ src/app.py' })],
    ],
    [
      'editor tool',
      [
        editor('r', { command: 'view', path: '/repo/src/app.py' }),
        editor('e', { command: 'str_replace', path: '/repo/src/app.py', old_str: 'a', new_str: 'b' }),
      ],
    ],
    ['SWE-agent ACI', [aci('r', 'open src/app.py'), aci('e', 'edit 1:1\nb\nend_of_edit')]],
    ['SWE-agent scroll', [aci('o', 'open src/app.py'), aci('r', 'scroll_down'), aci('e', 'edit 1:1\nb\nend_of_edit')]],
    [
      'file tools',
      [step('r', 'read_file', { path: 'src/app.py' }), step('e', 'write_file', { path: 'src/app.py', content: 'b' })],
    ],
    [
      'mixed families',
      [
        step('r', 'Read', { file_path: '/repo/src/app.py' }),
        step('e', 'bash', { command: 'sed -i s/a/b/ src/app.py' }),
      ],
    ],
  ])('%s', (_family, steps) => {
    expect(superseded(...steps).r).toMatch(/^superseded by the edit of src\/app\.py at step \d+$/);
  });

  it('does not supersede a directory view or a read of another file', () => {
    const found = superseded(
      editor('d', { command: 'view', path: '/repo/src' }, "Here's the files and directories up to 2 levels deep"),
      aci('o', 'open src/other.py'),
      editor('e', { command: 'str_replace', path: '/repo/src/app.py', old_str: 'a', new_str: 'b' }),
      step('x', 'bash', { command: 'rm -r src' }),
    );
    expect(found).toEqual({});
  });
});

describe('tool names', () => {
  it.each([
    ['get_user_details', ['get', 'user', 'details'], 'read'],
    ['getUserDetails', ['get', 'user', 'details'], 'read'],
    ['file_search', ['file', 'search'], 'search'],
    ['MultiEdit', ['multi', 'edit'], 'write'],
    ['LS', ['ls'], 'list'],
    ['fs.read-file', ['fs', 'read', 'file'], 'read'],
    ['transfer_to_human_agents', ['transfer', 'to', 'human', 'agents'], 'finish'],
    ['final_answer', ['final', 'answer'], 'finish'],
    ['bash', ['bash'], undefined],
    ['think', ['think'], undefined],
  ])('%s', (name, words, verb) => {
    expect(toolNameWords(name)).toEqual(words);
    expect(toolVerb(name)).toBe(verb);
  });
});
