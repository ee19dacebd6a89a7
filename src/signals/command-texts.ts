/**
 * The command lines a tool call carries: a string argument, or the strings under `command`, `cmd`, `script` ...
 * They are shell command lines or SWE-agent ACI commands; an editor tool's bare verb (`command: 'view'`) is neither.
 */
import { type AciCommand, parseAciCommand } from './aci-commands.js';

/** Argument keys that hold a command line. */
export const COMMAND_KEYS: readonly string[] = ['command', 'cmd', 'script', 'shell', 'commandLine', 'command_line'];

/** A bare verb of an editor tool in its `command` argument. */
const EDITOR_VERB = /^(?:view|create|str_replace|insert|undo_edit|edit|write|read|open)$/;

/** Command lines of a call's arguments: a string argument, or strings (or string arrays) under the command keys. */
export function commandTextsOf(args: unknown): string[] {
  if (typeof args === 'string') return [args];
  if (!args || typeof args !== 'object') return [];
  const record = args as Record<string, unknown>;
  const out: string[] = [];
  for (const key of COMMAND_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && !EDITOR_VERB.test(value)) out.push(value);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out.push(value.join(' '));
  }
  return out;
}

/** Shell command lines of a call's arguments: its command lines that are no ACI command. */
export function shellCommandsOf(args: unknown): string[] {
  return commandTextsOf(args).filter((text) => parseAciCommand(text) === undefined);
}

/** The ACI commands of a call's arguments (`open src/a.py`, `edit 3:5 ...`, `scroll_down`). */
export function aciCommandsOf(args: unknown): AciCommand[] {
  const out: AciCommand[] = [];
  for (const text of commandTextsOf(args)) {
    const command = parseAciCommand(text);
    if (command) out.push(command);
  }
  return out;
}
