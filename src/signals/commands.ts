/**
 * What a shell command line does to files: which paths it reads, which it modifies, and which it only mentions.
 * Program-aware for the usual agent commands (cat, sed, grep, tee, heredocs, mv/cp, git, python -c, an editor tool
 * run as a program ...).
 */
import { editorCommandOfWords, isDirectoryView } from './editor-commands.js';
import { fileOperand, hasFileName, looksLikePath, normalizePath, type PathContext } from './paths.js';
import { lexShell, patchPaths, pythonFileAccess, type SimpleCommand } from './shell.js';

/** Paths a command line touches, normalized and deduplicated, in order of appearance. */
export interface CommandFiles {
  readonly reads: string[];
  readonly edits: string[];
  /** Every path named: reads, edits and the rest (directories listed, scripts run, test targets). */
  readonly files: string[];
}

/** The literal files a Python script's code reads and writes when it runs. */
export interface ScriptEffect {
  readonly reads: readonly string[];
  readonly edits: readonly string[];
}

/** Python scripts written earlier in a run, by normalized path. */
export type ScriptEffects = Map<string, ScriptEffect>;

const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'nl', 'bat', 'tac', 'view', 'open', 'xxd', 'od']);
const SEARCHERS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'git-grep']);
const LISTERS = new Set(['ls', 'find', 'tree', 'du', 'stat', 'file', 'wc', 'mkdir', 'rmdir', 'rm', 'chmod', 'fd']);
const SILENT = new Set(['echo', 'printf', 'export', 'set', 'unset', 'alias', 'true', 'false', 'exit', 'sleep', 'pwd']);
const WRAPPERS = new Set([
  'sudo',
  'time',
  'nohup',
  'nice',
  'command',
  'exec',
  'xvfb-run',
  'stdbuf',
  'npx',
  'bunx',
  'pnpx',
]);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'time']);
const VALUE_OPTIONS: Record<string, string> = {
  head: 'nc',
  tail: 'nc',
  nl: 'bdfhilnsvw',
  grep: 'efmABCdD',
  egrep: 'efmABCdD',
  fgrep: 'efmABCdD',
  rg: 'efmABCgtTM',
  sed: 'efl',
  awk: 'Fvf',
  gawk: 'Fvf',
  python: 'cmWX',
  find: '',
};

/** The program name of a word: its last path segment ('/usr/bin/python3' → 'python3'). */
export const programOf = (word: string | undefined): string => (word ?? '').slice((word ?? '').lastIndexOf('/') + 1);
export const isPython = (program: string): boolean => /^(?:python[\d.]*|pypy[\d.]*)$/.test(program);

/** Drops leading `VAR=value` assignments, shell keywords and wrappers (`timeout 60`, `poetry run`, `env`, `npx`). */
export function unwrap(command: SimpleCommand): { words: string[]; quoted: boolean[] } {
  let k = 0;
  const { words } = command;
  for (;;) {
    const w = words[k];
    const p = programOf(w);
    if (w === undefined) break;
    if (/^[A-Za-z_]\w*=/.test(w) || KEYWORDS.has(w) || WRAPPERS.has(p) || p === 'env') k++;
    else if (p === 'timeout') k += /^\d/.test(words[k + 1] ?? '') ? 2 : 1;
    else if (/^(?:poetry|uv|pipenv|pdm|hatch|rye)$/.test(p) && words[k + 1] === 'run') k += 2;
    else if (p === 'conda' && words[k + 1] === 'run') k += words[k + 2] === '-n' ? 4 : 2;
    else if (/^(?:pnpm|yarn|npm)$/.test(p) && /^(?:exec|dlx)$/.test(words[k + 1] ?? '')) k += 2;
    else break;
  }
  return { words: words.slice(k), quoted: command.quoted.slice(k) };
}

/** Splits options from operands: short clusters (`-nC 5`), long options (`--x=v`), and `--`. */
function operands(args: string[], valueLetters: string, longWithValue: readonly string[] = []) {
  const positional: number[] = [];
  const options: string[] = [];
  const values: string[] = [];
  let onlyOperands = false;
  for (let k = 0; k < args.length; k++) {
    const a = args[k] as string;
    if (onlyOperands || !a.startsWith('-') || a === '-') positional.push(k);
    else if (a === '--') onlyOperands = true;
    else if (a.startsWith('--')) {
      options.push(a);
      const eq = a.indexOf('=');
      if (eq > 0) values.push(a.slice(eq + 1));
      else if (longWithValue.includes(a)) values.push(args[++k] ?? '');
    } else {
      options.push(a);
      for (let j = 1; j < a.length; j++) {
        if (!valueLetters.includes(a[j] as string)) continue;
        if (j === a.length - 1) values.push(args[++k] ?? '');
        break;
      }
    }
  }
  return { positional, options, values };
}

/** Reads, edits and mentions of a whole command line; `cd X &&` anchors the paths that follow. */
export function commandFiles(text: string, scripts?: ScriptEffects, start: PathContext = {}): CommandFiles {
  const found = new FoundPaths({ ...start });
  for (const command of lexShell(text)) simpleCommandFiles(command, found, scripts);
  const { reads, edits, files } = found;
  return { reads, edits, files };
}

type AddPath = (list: string[], raw: string | undefined, strict?: boolean) => void;

/** The paths a command line touched so far, and where its relative paths start from (`cd` moves it). */
class FoundPaths {
  readonly reads: string[] = [];
  readonly edits: string[] = [];
  readonly files: string[] = [];

  constructor(public context: PathContext) {}

  /** Adds a path to `list` (and to `files`): a file operand, or with `strict` only what looks like a path. */
  readonly add: AddPath = (list, raw, strict = false) => {
    const found = raw === undefined ? undefined : strict ? looksLikePath(raw) : fileOperand(raw);
    if (!found) return;
    const path = normalizePath(found, this.context);
    if (path === '' || path === '/') return;
    if (list !== this.files && !list.includes(path)) list.push(path);
    if (!this.files.includes(path)) this.files.push(path);
  };

  /** A word that names a path the command neither reads nor edits as far as we know. */
  readonly mention = (raw: string | undefined) => this.add(this.files, raw, true);
}

function simpleCommandFiles(command: SimpleCommand, found: FoundPaths, scripts: ScriptEffects | undefined): void {
  const { words, quoted } = unwrap(command);
  const program = programOf(words[0]);
  const args = words.slice(1);
  for (const { op, target } of command.redirects) {
    if (op === '<') found.add(found.reads, target);
    else if (op !== '<<<' && !/^\/dev\//.test(target)) found.add(found.edits, target);
  }
  if (program === 'cd') {
    const target = args[0];
    if (target && !target.startsWith('-')) found.context = cdInto(found.context, target);
    return;
  }
  if (command.heredoc !== undefined) heredocFiles(command, command.heredoc, { program, args }, found, scripts);
  if (program === '' || SILENT.has(program) || program === 'for' || program === 'case') return;
  const editor = editorCommandOfWords(words);
  if (editor) {
    const list = editor.action === 'edit' ? found.edits : isDirectoryView(editor) ? found.files : found.reads;
    found.add(list, editor.path);
    return;
  }
  programFiles({ program, args, words, quoted }, found, scripts);
}

/** A here-document: a patch applied, Python code run, or a Python script written (its effects kept for later). */
function heredocFiles(
  command: SimpleCommand,
  heredoc: string,
  { program, args }: { program: string; args: string[] },
  found: FoundPaths,
  scripts: ScriptEffects | undefined,
): void {
  if (/^(?:patch|apply_patch)$/.test(program) || (program === 'git' && args[0] === 'apply'))
    for (const path of patchPaths(heredoc)) found.add(found.edits, path);
  if (isPython(program) && (args.length === 0 || args[0] === '-'))
    pythonEffects(heredoc, found.reads, found.edits, found.add);
  const written = command.redirects.find((r) => r.op === '>' || r.op === '>>')?.target;
  if (scripts && written && /\.py$/.test(written)) {
    const effect = pythonFileAccess(heredoc);
    if (effect.edits.length + effect.reads.length > 0) scripts.set(normalizePath(written, found.context), effect);
  }
}

/** What a program does with its operands, by what the program is known to do. */
function programFiles(
  { program, args, words, quoted }: { program: string; args: string[]; words: string[]; quoted: boolean[] },
  found: FoundPaths,
  scripts: ScriptEffects | undefined,
): void {
  const { add, reads, edits, files } = found;
  const opts = operands(args, VALUE_OPTIONS[isPython(program) ? 'python' : program] ?? '', ['--include', '--exclude']);
  const operandWords = opts.positional.map((k) => args[k] as string);
  if (READERS.has(program)) for (const w of operandWords) add(reads, w);
  else if (SEARCHERS.has(program)) {
    const explicit = opts.options.some((o) => /^-[^-]*[ef]|^--(?:regexp|file)/.test(o));
    for (const w of explicit ? operandWords : operandWords.slice(1)) add(hasFileName(w) ? reads : files, w);
  } else if (program === 'sed') {
    const inPlace = opts.options.some((o) => /^-[^-]*i|^--in-place/.test(o));
    const explicit = opts.options.some((o) => /^-[^-]*[ef]|^--(?:expression|file)/.test(o));
    for (const w of explicit ? operandWords : operandWords.slice(1)) add(inPlace ? edits : reads, w);
  } else if (program === 'awk' || program === 'gawk') {
    for (const w of operandWords.slice(opts.options.includes('-f') ? 0 : 1)) add(reads, w);
  } else if (program === 'tee' || program === 'touch' || program === 'truncate') {
    for (const w of operandWords) add(edits, w);
  } else if (program === 'mv') {
    for (const w of operandWords) add(edits, w);
  } else if (program === 'cp') {
    for (const [k, w] of operandWords.entries()) add(k === operandWords.length - 1 ? edits : reads, w);
  } else if (program === 'git') gitFiles(operandWords, add, edits, reads, files);
  else if (isPython(program)) pythonRunFiles(args, operandWords, found, scripts);
  else if (/^(?:bash|sh|zsh)$/.test(program) && args[0] === '-c' && args[1] !== undefined) {
    const inner = commandFiles(args[1], scripts, found.context);
    for (const path of inner.reads) add(reads, path);
    for (const path of inner.edits) add(edits, path);
    for (const path of inner.files) add(files, path);
  } else if (LISTERS.has(program) || program === 'find') {
    for (const w of program === 'find' ? args.slice(0, leadingOperands(args)) : operandWords) add(files, w);
  } else {
    for (const k of [-1, ...opts.positional]) {
      const w = k < 0 ? (words[0] as string) : (args[k] as string);
      if (quoted[k + 1] && /\s/.test(w)) for (const token of w.split(/\s+/)) found.mention(token);
      else if (k >= 0 || programOf(w) !== w) found.mention(w);
    }
    for (const value of opts.values) found.mention(value);
  }
}

/** `python -c code`, or a script run: its operands mentioned, the effects of a script written earlier in the run. */
function pythonRunFiles(
  args: string[],
  operandWords: string[],
  found: FoundPaths,
  scripts: ScriptEffects | undefined,
): void {
  const code = args[args.indexOf('-c') + 1];
  if (args.includes('-c') && code !== undefined) {
    pythonEffects(code, found.reads, found.edits, found.add);
    return;
  }
  for (const w of operandWords) found.mention(w);
  const script = operandWords[0] && normalizePath(operandWords[0], found.context);
  const effect = script ? scripts?.get(script) : undefined;
  if (effect && !args.includes('-m')) {
    for (const path of effect.reads) found.add(found.reads, path);
    for (const path of effect.edits) found.add(found.edits, path);
  }
}

/** `cd` into a directory: below the repository it becomes the cwd, elsewhere an absolute one becomes the root. */
function cdInto(context: PathContext, target: string): PathContext {
  if (target.startsWith('/')) {
    const normalized = normalizePath(target, { repository: context.repository });
    if (normalized.startsWith('/')) return { ...context, root: normalized, cwd: undefined };
    return { ...context, root: undefined, cwd: normalized === '' ? undefined : normalized };
  }
  if (target.startsWith('~') || target.startsWith('$')) return context;
  const cwd = normalizePath(target, context);
  return { ...context, cwd: cwd === '' ? undefined : cwd };
}

/** Number of `find` operands before its expression (`find a b -name x`). */
function leadingOperands(args: string[]): number {
  const k = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!');
  return k < 0 ? args.length : k;
}

function pythonEffects(code: string, reads: string[], edits: string[], add: (l: string[], p: string) => void) {
  const effect = pythonFileAccess(code);
  for (const path of effect.reads) add(reads, path);
  for (const path of effect.edits) add(edits, path);
}

/** git: checkout/restore/mv change files; apply reads a patch; other subcommands only mention paths. */
function gitFiles(operandsOf: string[], add: AddPath, edits: string[], reads: string[], files: string[]) {
  const [sub, ...rest] = operandsOf;
  if (sub === 'checkout' || sub === 'restore' || sub === 'mv') for (const w of rest) add(edits, w, true);
  else if (sub === 'apply' || sub === 'am') for (const w of rest) add(reads, w);
  else if (sub === 'show') for (const w of rest) add(files, w.replace(/^[^:\s]*:/, ''), true);
  else for (const w of rest) add(files, w, true);
}
