/**
 * Editor tools that take a verb in a `command` argument and a `path`: Anthropic's `str_replace_editor` /
 * `str_replace_based_edit_tool`, OpenHands' and SWE-agent's editor, Goose's `text_editor`. `view` reads a file (or
 * lists a directory), `create`, `str_replace`, `insert`, `undo_edit` and `write` change it. The same editor run as a
 * program (`str_replace_editor view /repo/a.py`) is recognized from its words.
 */
import { isPathKey } from './file-tools.js';
import { hasFileName } from './paths.js';

/** One editor command: whether it reads or changes its path, and the path as written. */
export interface EditorCommand {
  readonly action: 'read' | 'edit';
  readonly path: string;
  /** It asked for a line range (`view_range`), which only a file has. */
  readonly ranged: boolean;
}

const ACTIONS: Readonly<Record<string, EditorCommand['action']>> = {
  view: 'read',
  read: 'read',
  open: 'read',
  create: 'edit',
  str_replace: 'edit',
  insert: 'edit',
  undo_edit: 'edit',
  edit: 'edit',
  write: 'edit',
};

/** Programs that are such an editor when run from a shell. */
const EDITOR_PROGRAM = /^(?:str_replace_editor|str_replace_based_edit_tool|text_editor|file_editor|edit_tool)$/;

/** Starts of a directory view's output: "Here's the files and directories up to 2 levels deep in /repo ...". */
const DIRECTORY_OUTPUT = /\bfiles and directories\b|\bdirectory (?:listing|contents)\b|^total \d+$/im;
/** Starts of a file view's output: "Here's the result of running `cat -n` on /repo/a.py:". */
const FILE_OUTPUT = /\bresult of running `cat -n`|^\s*1\t|^\[File: /m;

/** The editor command of a call's JSON arguments (`{ command: 'view', path: '/repo/a.py' }`), or undefined. */
export function editorCommandOf(args: unknown): EditorCommand | undefined {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  const record = args as Record<string, unknown>;
  const action = typeof record.command === 'string' ? ACTIONS[record.command] : undefined;
  if (!action) return undefined;
  const path = Object.entries(record).find(([key, value]) => isPathKey(key) && typeof value === 'string')?.[1];
  if (typeof path !== 'string' || path.trim() === '') return undefined;
  return { action, path, ranged: record.view_range !== undefined };
}

/** The editor command of a shell command's words (`str_replace_editor view /repo/a.py --view_range 1 20`). */
export function editorCommandOfWords(words: readonly string[]): EditorCommand | undefined {
  const [program = '', verb = '', path, ...rest] = words;
  const action = ACTIONS[verb];
  if (!EDITOR_PROGRAM.test(program.slice(program.lastIndexOf('/') + 1)) || !action || !path) return undefined;
  return { action, path, ranged: rest.includes('--view_range') };
}

/**
 * True when a `view` shows a directory rather than a file's content. The output says which when there is one;
 * otherwise a path ending in `/`, or one with no file name that asked for no line range, is taken for a directory.
 */
export function isDirectoryView(command: EditorCommand, output?: string): boolean {
  if (command.action !== 'read') return false;
  const head = output?.slice(0, 400);
  if (head && DIRECTORY_OUTPUT.test(head)) return true;
  if (head && FILE_OUTPUT.test(head)) return false;
  const path = command.path.trim();
  return path.endsWith('/') || (!command.ranged && !hasFileName(path.replace(/\/+$/, '')));
}
