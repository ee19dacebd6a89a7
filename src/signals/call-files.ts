/**
 * Files of one tool call: shell commands in its arguments are parsed, JSON path keys and path-like values are
 * classified as reads, edits or mentions by the tool's name, an editor verb (`view`, `str_replace`) or its keys.
 */
import { type CommandFiles, commandFiles, type ScriptEffects } from './commands.js';
import { shellCommandsOf } from './intent.js';
import { fileOperand, hasFileName, looksLikePath, normalizePath, type PathContext } from './paths.js';
import { patchPaths } from './shell.js';

const PATH_KEYS =
  /^(?:path|paths|file|files|filename|filenames|file_?path|filepath|target|target_file|source|dest|destination|notebook_path|dir|directory|old_path|new_path)$/i;
const PATCH_KEYS = /^(?:patch|diff|input)$/i;
const EDIT_TOOL = /(?:write|edit|create|replace|patch|insert|update|modify|save|append|delete|remove|rename|move|mv)/i;
const EDIT_KEYS =
  /^(?:content|contents|new|old|new_str|old_str|new_string|old_string|new_text|old_text|text|edits|diff|patch|insert_line|file_text)$/i;
const READ_TOOL = /(?:read|view|open|cat|show|get_file|get_content|fetch_file)/i;
const EDITOR_VERB: Record<string, 'read' | 'edit'> = {
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

/**
 * Files of one tool call: shell commands are parsed; JSON path keys and path-like values are classified.
 * `scripts` are the scripts written so far (a run of one of them reads and edits what it does), and `context` holds
 * the repository root that absolute paths are named relative to.
 */
export function callFiles(
  call: { name: string; args: unknown },
  scripts?: ScriptEffects,
  context: PathContext = {},
): CommandFiles {
  const reads: string[] = [];
  const edits: string[] = [];
  const files: string[] = [];
  const push = (list: string[], path: string) => {
    if (path !== '' && !list.includes(path)) list.push(path);
    if (path !== '' && !files.includes(path)) files.push(path);
  };
  for (const command of shellCommandsOf(call.args)) {
    const found = commandFiles(command, scripts, context);
    for (const path of found.reads) push(reads, path);
    for (const path of found.edits) push(edits, path);
    for (const path of found.files) push(files, path);
  }
  if (!call.args || typeof call.args !== 'object' || Array.isArray(call.args)) return { reads, edits, files };
  const record = call.args as Record<string, unknown>;
  const verb = typeof record.command === 'string' ? EDITOR_VERB[record.command] : undefined;
  const edits_ =
    verb === 'edit' ||
    (verb === undefined && (EDIT_TOOL.test(call.name) || Object.keys(record).some((k) => EDIT_KEYS.test(k))));
  const reads_ = verb === 'read' || (verb === undefined && !edits_ && READ_TOOL.test(call.name));
  const visit = (value: unknown, key: string, depth: number) => {
    if (depth > 4) return;
    if (typeof value === 'string') {
      if (PATCH_KEYS.test(key) && /^(?:\*\*\* |diff --git |--- )/m.test(value)) {
        for (const path of patchPaths(value)) push(edits, normalizePath(path, context));
        return;
      }
      if (/^(?:command|cmd|script|shell|commandLine|command_line)$/.test(key)) return;
      const operand = PATH_KEYS.test(key) ? fileOperand(value) : undefined;
      const found =
        operand && (/[./]/.test(operand) || hasFileName(operand))
          ? operand
          : /\s/.test(value.trim())
            ? undefined
            : looksLikePath(value);
      if (!found) return;
      const path = normalizePath(found, context);
      if (PATH_KEYS.test(key) && edits_) push(edits, path);
      else if (PATH_KEYS.test(key) && reads_) push(reads, path);
      else push(files, path);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key, depth + 1);
    } else if (value && typeof value === 'object') {
      for (const [inner, item] of Object.entries(value as Record<string, unknown>)) visit(item, inner, depth + 1);
    }
  };
  for (const [key, value] of Object.entries(record)) visit(value, key, 0);
  return { reads, edits, files };
}
