import { type Message, stableStringify } from './transcript.js';

/** What the tool calls of some messages did: per tool, in order of first use, how often and with what. */
export interface CallAction {
  readonly name: string;
  readonly count: number;
  /** The calls' main arguments (a path, a command, a query), each once, in order, each cut at a word. */
  readonly args: readonly string[];
  /** How many of the calls' results were errors. */
  readonly errors: number;
}

/** Keys whose value says what a call was about, before any other argument. */
const MAIN_KEYS = ['path', 'file', 'filePath', 'file_path', 'filename', 'command', 'cmd', 'query', 'url', 'pattern'];

/** `text` cut to at most `maxChars` at a word's end (mid-word only for a single long word), with an ellipsis. */
export function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = text.slice(0, Math.max(1, maxChars - 1));
  const space = head.search(/\s\S*$/);
  const end = space > maxChars / 2 ? space : head.length;
  return `${head.slice(0, end).trimEnd()}…`;
}

/**
 * A call's main argument as one line: its only string value, else the value of a key that names what it works on
 * (`path`, `command`, `query`, ...), else its arguments as `key=value` pairs; cut at a word to `maxChars`.
 */
export function mainArgument(args: unknown, maxChars: number): string {
  let text: string;
  if (typeof args === 'string') text = args;
  else if (args && typeof args === 'object' && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    const values = Object.values(record);
    const key = MAIN_KEYS.find((name) => typeof record[name] === 'string');
    text =
      values.length === 1 && typeof values[0] === 'string'
        ? values[0]
        : key
          ? (record[key] as string)
          : Object.entries(record)
              .map(([name, value]) => `${name}=${typeof value === 'string' ? value : stableStringify(value)}`)
              .join(' ');
  } else text = stableStringify(args);
  return cutAtWord(text.replace(/\s+/g, ' ').trim(), maxChars);
}

/** The tool calls of `messages` by tool, in order of first use (see `CallAction`). */
export function callActions(messages: readonly Message[], maxArgChars = 80): CallAction[] {
  const actions = new Map<string, { count: number; args: string[]; errors: number }>();
  const toolOf = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        const action = actions.get(part.name) ?? { count: 0, args: [], errors: 0 };
        action.count++;
        const arg = mainArgument(part.args, maxArgChars);
        if (arg !== '' && arg !== '{}' && !action.args.includes(arg)) action.args.push(arg);
        actions.set(part.name, action);
        toolOf.set(part.id, part.name);
      } else if (part.type === 'tool-result' && part.isError) {
        const action = actions.get(toolOf.get(part.callId) ?? part.name);
        if (action) action.errors++;
      }
    }
  }
  return [...actions].map(([name, action]) => ({ name, ...action }));
}

/**
 * One action as a few words: `readFile src/a.ts`, `readFile x6 (src/a.ts ... src/f.ts)`, with the errors counted;
 * no comma or colon, so it stays one term of a timeline entry.
 */
export function describeAction({ name, count, args, errors }: CallAction): string {
  const clean = (text: string) => text.replace(/[,:]\s*/g, ' ').trim();
  const first = args[0] === undefined ? '' : clean(args[0]);
  const shown = args.length > 1 ? `${first} ... ${clean(args.at(-1) as string)}` : first;
  if (count === 1) return `${name}${shown ? ` ${shown}` : ''}${errors > 0 ? ' (failed)' : ''}`;
  const notes = [shown, errors > 0 ? `${errors} failed` : ''].filter((note) => note !== '');
  return `${name} x${count}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}
