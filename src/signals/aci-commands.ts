/**
 * SWE-agent's agent-computer interface (ACI): commands of a windowed file viewer that the agent writes like shell
 * commands. `open <path> [line]` and `create <path>` make a file the open one; `goto <line>`, `scroll_down` and
 * `scroll_up` show more of it and `edit <start>:<end>` (followed by the replacement lines and `end_of_edit`) changes
 * it, so what these read or change is known only from the file opened in an earlier step. `search_file`, `search_dir`
 * and `find_file` explore; `submit` ends the task.
 */
import { fileOperand, normalizePath, type PathContext } from './paths.js';
import { lexShell } from './shell.js';
import type { ToolVerb } from './tool-verbs.js';

/** An ACI command name. */
export type AciVerb =
  | 'open'
  | 'goto'
  | 'scroll_down'
  | 'scroll_up'
  | 'edit'
  | 'create'
  | 'search_file'
  | 'search_dir'
  | 'find_file'
  | 'submit';

/** One ACI command: its name and its operands (for `edit`, the start and end lines; the replacement is left out). */
export interface AciCommand {
  readonly verb: AciVerb;
  readonly operands: readonly string[];
}

/** What an ACI command reads, changes and names, and the file open after it. */
export interface AciEffect {
  readonly reads: string[];
  readonly edits: string[];
  readonly files: string[];
  readonly openFile: string | undefined;
}

const LINE = /^\d+$/;
const operand = (word: string | undefined) => word !== undefined && !word.startsWith('-');

/** Operand shapes per command, so that a shell program of the same name (`open -a App`) is not taken for one. */
const SHAPES: Readonly<Record<Exclude<AciVerb, 'edit'>, (operands: readonly string[]) => boolean>> = {
  open: ([path, line, ...rest]) => operand(path) && (line === undefined || LINE.test(line)) && rest.length === 0,
  create: ([path, ...rest]) => operand(path) && rest.length === 0,
  goto: ([line, ...rest]) => line !== undefined && LINE.test(line) && rest.length === 0,
  scroll_down: (operands) => operands.length === 0,
  scroll_up: (operands) => operands.length === 0,
  search_file: ([term, path, ...rest]) => term !== undefined && (path === undefined || operand(path)) && !rest.length,
  search_dir: ([term, path, ...rest]) => term !== undefined && (path === undefined || operand(path)) && !rest.length,
  find_file: ([name, path, ...rest]) => name !== undefined && (path === undefined || operand(path)) && !rest.length,
  submit: (operands) => operands.length === 0,
};

const isShaped = (verb: string): verb is Exclude<AciVerb, 'edit'> => Object.hasOwn(SHAPES, verb);

/** How each command counts for intent and completion. */
const VERB_OF: Readonly<Record<AciVerb, ToolVerb>> = {
  open: 'read',
  goto: 'read',
  scroll_down: 'read',
  scroll_up: 'read',
  edit: 'write',
  create: 'write',
  search_file: 'search',
  search_dir: 'search',
  find_file: 'search',
  submit: 'finish',
};

/**
 * The ACI command an action text is, or undefined when it is none (then it is an ordinary shell command).
 * `edit <start>:<end>` may carry replacement lines; every other command is one simple command on one line.
 */
export function parseAciCommand(text: string): AciCommand | undefined {
  const [first = '', ...rest] = text.trim().split('\n');
  const edit = /^edit\s+(\d+)\s*:\s*(\d+)$/.exec(first.trim());
  if (edit) return { verb: 'edit', operands: [edit[1] as string, edit[2] as string] };
  if (rest.length > 0) return undefined;
  const commands = lexShell(first);
  const command = commands[0];
  if (commands.length !== 1 || !command || command.redirects.length > 0 || command.heredoc !== undefined)
    return undefined;
  const [verb = '', ...operands] = command.words;
  return isShaped(verb) && SHAPES[verb](operands) ? { verb, operands } : undefined;
}

/** How an ACI command counts for intent and completion: viewing reads, editing writes, searching explores. */
export function aciToolVerb(command: AciCommand): ToolVerb {
  return VERB_OF[command.verb];
}

/** The path operands an ACI command names: the file of `open` and `create`, the folder or file of a search. */
export function aciPathOperands(command: AciCommand): string[] {
  const { verb, operands } = command;
  if (verb === 'open' || verb === 'create') return operands.slice(0, 1);
  if (verb === 'search_file' || verb === 'search_dir' || verb === 'find_file') return operands.slice(1, 2);
  return [];
}

/**
 * What an ACI command reads, changes and names, given the file open before it (normalized, or undefined when no
 * file is known to be open), and the file open after it. A search names its folder; the term or file name it
 * searches for is no path. `search_file` reads the file it is given; without one it searches the open file, which it
 * names but does not read.
 */
export function aciFiles(command: AciCommand, openFile: string | undefined, context: PathContext = {}): AciEffect {
  const reads: string[] = [];
  const edits: string[] = [];
  const files: string[] = [];
  const add = (list: string[], path: string | undefined) => {
    if (path === undefined || path === '') return;
    if (list !== files && !list.includes(path)) list.push(path);
    if (!files.includes(path)) files.push(path);
  };
  const named = aciPathOperands(command)[0];
  const raw = named === undefined ? undefined : fileOperand(named);
  const path = raw === undefined ? undefined : normalizePath(raw, context);
  switch (command.verb) {
    case 'open':
      add(reads, path);
      return { reads, edits, files, openFile: path ?? openFile };
    case 'create':
      add(edits, path);
      return { reads, edits, files, openFile: path ?? openFile };
    case 'goto':
    case 'scroll_down':
    case 'scroll_up':
      add(reads, openFile);
      break;
    case 'edit':
      add(edits, openFile);
      break;
    case 'search_file':
      if (path !== undefined) add(reads, path);
      else add(files, openFile);
      break;
    case 'search_dir':
    case 'find_file':
      add(files, path);
      break;
    case 'submit':
      break;
  }
  return { reads, edits, files, openFile };
}
