/**
 * File tools with JSON arguments (`read_file`, `write_file`, `edit_file`, `view_file`, Claude Code's `Read` and
 * `Edit`, Cline's `write_to_file`, `list_files` ...): which argument names a path, and what the tool does to it.
 */
import { toolNameWords, toolVerb } from './tool-verbs.js';

/**
 * What a file tool does to the paths in its path arguments: reads, edits, searches (a search of one file reads it,
 * like `grep x a.py`), or lists; undefined when neither its name nor its arguments tell.
 */
export type FileToolKind = 'read' | 'edit' | 'search' | 'list';

/** Last words of argument names that hold a path: `path`, `file_path`, `filePath`, `target_file`, `notebook_path`. */
const PATH_WORDS = new Set(['path', 'paths', 'file', 'files', 'filename', 'filenames', 'filepath', 'dir', 'directory']);
/** Last words of argument names that hold nothing but a path. */
const EXPLICIT_WORDS = new Set(['path', 'paths', 'filepath', 'dir', 'directory']);
/** Whole argument names that hold a path. */
const PATH_NAMES = new Set(['target', 'source', 'dest', 'destination']);
/** Argument names of new or replaced content, which make a tool with no verb in its name an editing one. */
const EDIT_KEYS =
  /^(?:content|contents|new|old|new_str|old_str|new_string|old_string|new_text|old_text|text|edits|diff|patch|insert_line|file_text|code_edit)$/i;

/** True when an argument of this name holds a file or directory path. */
export function isPathKey(key: string): boolean {
  const keyWords = toolNameWords(key);
  return PATH_NAMES.has(keyWords.join('_')) || PATH_WORDS.has(keyWords.at(-1) ?? '');
}

/**
 * True when an argument of this name can hold nothing but a path (`path`, `file_path`, `dir`), so that even a bare
 * word in it (`src`) is one; `target`, `source` or `destination` may as well hold an airport code.
 */
export function isExplicitPathKey(key: string): boolean {
  return EXPLICIT_WORDS.has(toolNameWords(key).at(-1) ?? '');
}

/** True when an argument of this name holds a directory (`dir`, `working_directory`), never a file to read. */
export function isDirectoryKey(key: string): boolean {
  const last = toolNameWords(key).at(-1);
  return last === 'dir' || last === 'directory';
}

/** What a file tool does, by the verb in its name, else by its arguments (new content means an edit). */
export function fileToolKind(name: string, args: Readonly<Record<string, unknown>>): FileToolKind | undefined {
  const verb = toolVerb(name);
  if (verb === 'read') return 'read';
  if (verb === 'write') return 'edit';
  if (verb === 'search' || verb === 'list') return verb;
  return Object.keys(args).some((key) => EDIT_KEYS.test(key)) ? 'edit' : undefined;
}
