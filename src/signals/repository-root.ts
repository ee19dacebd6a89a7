/**
 * The repository root of an agent run, learned from what its transcript says, so that `/home/dev/app/src/a.py` and
 * `src/a.py` name one file whatever agent or sandbox produced the run.
 *
 * Evidence, strongest first:
 * 1. `stated`: a system or user message names it: "Repository: /home/dev/app", "The repo is at /x",
 *    "(Current directory: /x)", "files in /x (this is the working directory ...)", `<uploaded_files>/x</uploaded_files>`.
 *    The latest statement wins, within a message and across messages (a task may move the agent elsewhere).
 * 2. `cd`: a command line opens with `cd /x` (`cd /x && pytest`), the directory the agent works in. A later opening
 *    `cd` to an ancestor of the root moves the root up to it; one into a folder of the root, or anywhere else,
 *    anchors only its own command line.
 * 3. `paths`: the deepest directory holding every absolute path named in tool arguments (a file's directory, or the
 *    directory itself), so it moves up as the agent names files further apart.
 * Weaker evidence never replaces stronger. System folders (`/tmp`, `/usr`, `/dev` ...) are never a root, nor is `/`.
 * The root is learned in transcript order and a step is analyzed with what came before it and in it, never with
 * later messages, so a step's signals do not change as the conversation grows.
 */
import type { Message } from '../transcript/transcript.js';
import { aciPathOperands } from './aci-commands.js';
import { aciCommandsOf, shellCommandsOf } from './command-texts.js';
import { programOf, unwrap } from './commands.js';
import { hasFileName, looksLikePath, normalizePath } from './paths.js';
import { lexShell } from './shell.js';

/** A repository root and the kind of evidence it was learned from. */
export interface RepositoryRoot {
  readonly path: string;
  readonly evidence: 'stated' | 'cd' | 'paths';
}

const RANK: Readonly<Record<RepositoryRoot['evidence'], number>> = { paths: 0, cd: 1, stated: 2 };
const SYSTEM_FOLDERS =
  /^\/(?:tmp|usr|bin|sbin|lib|lib32|lib64|etc|var|dev|proc|sys|run|boot|private|System|Library|Applications|nix)(?:\/|$)/;
const PATH = String.raw`(\/[\w.@+-]+(?:\/[\w.@+-]+)*)`;
const STATEMENTS = [
  new RegExp(
    String.raw`\b(?:repository|repo|project|workspace|working directory|current directory|cwd)(?: root| directory| dir| path)?(?:\s+is(?:\s+at)?|\s+at|\s+in|\s*[:=])\s*[\x60'"]?${PATH}`,
    'gi',
  ),
  new RegExp(
    String.raw`${PATH}[\x60'"]?\s*\((?:this is|which is)? ?the (?:current |working |project |repository )?(?:directory|root|repository)\b`,
    'gi',
  ),
  new RegExp(String.raw`<uploaded_files>\s*${PATH}\s*</uploaded_files>`, 'gi'),
];

/** The root a text states, the last one when it states several; undefined when it states none. */
export function statedRoot(text: string): string | undefined {
  // every statement names an absolute path
  if (!text.includes('/')) return undefined;
  let found: { index: number; path: string } | undefined;
  for (const pattern of STATEMENTS) {
    for (const match of text.matchAll(pattern)) {
      const path = candidate(match[1] as string);
      if (path && (!found || (match.index ?? 0) >= found.index)) found = { index: match.index ?? 0, path };
    }
  }
  return found?.path;
}

/** The root known after a message, from the root known before it (undefined when nothing said it yet). */
export function learnRepositoryRoot(known: RepositoryRoot | undefined, message: Message): RepositoryRoot | undefined {
  let root = known;
  if (message.role === 'system' || message.role === 'user') {
    for (const part of message.parts) {
      const path = part.type === 'text' ? statedRoot(part.text) : undefined;
      if (path) root = learn(root, { path, evidence: 'stated' });
    }
    return root;
  }
  if (message.role !== 'assistant') return root;
  for (const part of message.parts) {
    if (part.type !== 'tool-call') continue;
    for (const command of shellCommandsOf(part.args)) {
      const commands = lexShell(command);
      const opening = commands[0] && unwrap(commands[0]).words;
      const path = opening && programOf(opening[0]) === 'cd' ? candidate(opening[1] ?? '') : undefined;
      if (path) root = learn(root, { path, evidence: 'cd' });
      for (const simple of commands) {
        const { words, quoted } = unwrap(simple);
        words.forEach((word, index) => {
          if (!quoted[index] && index > 0) root = learnPath(root, word);
        });
        for (const { target } of simple.redirects) root = learnPath(root, target);
      }
    }
    for (const command of aciCommandsOf(part.args))
      for (const operand of aciPathOperands(command)) root = learnPath(root, operand);
    if (typeof part.args !== 'string') {
      visitStrings(part.args, 0, (value) => {
        root = learnPath(root, value);
      });
    }
  }
  return root;
}

/** A normalized absolute directory outside the system folders, or undefined. */
function candidate(raw: string): string | undefined {
  if (!raw.startsWith('/')) return undefined;
  const path = normalizePath(raw.replace(/\.+$/, ''));
  return path.startsWith('/') && path !== '/' && !SYSTEM_FOLDERS.test(path) ? path : undefined;
}

/** Evidence from an absolute path named in a tool argument: its directory, or the path when it is one. */
function learnPath(root: RepositoryRoot | undefined, raw: string): RepositoryRoot | undefined {
  if (!raw.startsWith('/')) return root;
  const path = looksLikePath(raw);
  const directory = path && (hasFileName(path) ? path.slice(0, path.lastIndexOf('/')) : path);
  const found = directory ? candidate(directory) : undefined;
  return found ? learn(root, { path: found, evidence: 'paths' }) : root;
}

function learn(known: RepositoryRoot | undefined, next: RepositoryRoot): RepositoryRoot | undefined {
  // a cd into a folder of the known root moves the agent within the repository, not the repository
  if (known && next.evidence === 'cd' && isWithin(next.path, known.path) && next.path !== known.path) return known;
  if (!known || RANK[next.evidence] > RANK[known.evidence]) return next;
  if (next.evidence !== known.evidence) return known;
  if (next.evidence === 'stated') return next;
  if (next.evidence === 'cd') return isWithin(known.path, next.path) ? next : known;
  const shared = commonDirectory(known.path, next.path);
  return shared === known.path ? known : { path: shared, evidence: 'paths' };
}

const isWithin = (path: string, directory: string) => path === directory || path.startsWith(`${directory}/`);

/** The deepest directory holding both, or the known one when they share only `/` (the new one lies elsewhere). */
function commonDirectory(known: string, next: string): string {
  const a = known.split('/');
  const b = next.split('/');
  let shared = 0;
  while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared++;
  return shared <= 1 ? known : a.slice(0, shared).join('/');
}

/** Calls `visit` with every string in a tool call's JSON arguments except shell commands, a few levels deep. */
function visitStrings(value: unknown, depth: number, visit: (text: string) => void, key = ''): void {
  if (depth > 4 || /^(?:command|cmd|script|shell|commandLine|command_line)$/.test(key)) return;
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const item of value) visitStrings(item, depth + 1, visit, key);
  else if (value && typeof value === 'object')
    for (const [inner, item] of Object.entries(value)) visitStrings(item, depth + 1, visit, inner);
}
