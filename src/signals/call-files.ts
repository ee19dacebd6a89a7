/**
 * Files of one tool call, by what the call is: shell command lines are parsed, SWE-agent ACI commands act on the file
 * they open, an editor tool reads or changes its `path` by its verb, and a file tool's path arguments are read or
 * changed by the verb in its name (`read_file`, `write_file`) or, failing that, by its arguments (new content).
 */
import { aciFiles } from './aci-commands.js';
import { aciCommandsOf, COMMAND_KEYS, shellCommandsOf } from './command-texts.js';
import { type CommandFiles, commandFiles, type ScriptEffects } from './commands.js';
import { editorCommandOf, isDirectoryView } from './editor-commands.js';
import { type FileToolKind, fileToolKind, isDirectoryKey, isExplicitPathKey, isPathKey } from './file-tools.js';
import { fileOperand, hasFileName, looksLikePath, normalizePath, type PathContext } from './paths.js';
import { patchPaths } from './shell.js';

const PATCH_KEYS = /^(?:patch|diff|input)$/i;

/** What a call works on besides its arguments: the file an ACI viewer has open, and the call's result. */
export interface CallState {
  /** The file open in an ACI viewer before the call (normalized), if any. */
  readonly openFile?: string;
  /** The call's result, which tells a directory view from a file view. */
  readonly output?: string;
}

/** Files of one call, and the file an ACI viewer has open after it. */
export interface CallFiles extends CommandFiles {
  readonly openFile: string | undefined;
}

/**
 * Files of one tool call: shell commands are parsed; ACI commands, editor commands and JSON path arguments are
 * classified. `scripts` are the scripts written so far (a run of one of them reads and edits what it does),
 * `context` holds the repository root that absolute paths are named relative to, and `state` the open file.
 */
export function callFiles(
  call: { name: string; args: unknown },
  scripts?: ScriptEffects,
  context: PathContext = {},
  state: CallState = {},
): CallFiles {
  const reads: string[] = [];
  const edits: string[] = [];
  const files: string[] = [];
  let openFile = state.openFile;
  const push = (list: string[], path: string) => {
    if (path !== '' && !list.includes(path)) list.push(path);
    if (path !== '' && !files.includes(path)) files.push(path);
  };
  const merge = (found: CommandFiles) => {
    for (const path of found.reads) push(reads, path);
    for (const path of found.edits) push(edits, path);
    for (const path of found.files) push(files, path);
  };
  for (const command of aciCommandsOf(call.args)) {
    const effect = aciFiles(command, openFile, context);
    merge(effect);
    openFile = effect.openFile;
  }
  for (const command of shellCommandsOf(call.args)) merge(commandFiles(command, scripts, context));
  if (!call.args || typeof call.args !== 'object' || Array.isArray(call.args)) return { reads, edits, files, openFile };
  const record = call.args as Record<string, unknown>;
  const editor = editorCommandOf(record);
  const kind: FileToolKind | undefined = editor
    ? editor.action === 'edit'
      ? 'edit'
      : isDirectoryView(editor, state.output)
        ? 'list'
        : 'read'
    : fileToolKind(call.name, record);
  const visit = (value: unknown, key: string, depth: number) => {
    if (depth > 4) return;
    if (typeof value === 'string') {
      if (PATCH_KEYS.test(key) && /^(?:\*\*\* |diff --git |--- )/m.test(value)) {
        for (const path of patchPaths(value)) push(edits, normalizePath(path, context));
        return;
      }
      if (COMMAND_KEYS.includes(key)) return;
      const pathKey = isPathKey(key);
      const operand = pathKey ? fileOperand(value) : undefined;
      const found =
        operand && (/[./]/.test(operand) || hasFileName(operand) || isExplicitPathKey(key))
          ? operand
          : /\s/.test(value.trim())
            ? undefined
            : looksLikePath(value);
      if (!found) return;
      const path = normalizePath(found, context);
      push(pathKey ? listOf(kind, key, found) : files, path);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key, depth + 1);
    } else if (value && typeof value === 'object') {
      for (const [inner, item] of Object.entries(value as Record<string, unknown>)) visit(item, inner, depth + 1);
    }
  };
  /** The list a path argument goes to: a directory argument is neither read nor edited; a search reads one file. */
  const listOf = (of: FileToolKind | undefined, key: string, path: string): string[] => {
    if (isDirectoryKey(key)) return files;
    if (of === 'edit') return edits;
    if (of === 'read' || (of === 'search' && hasFileName(path))) return reads;
    return files;
  };
  for (const [key, value] of Object.entries(record)) visit(value, key, 0);
  return { reads, edits, files, openFile };
}
