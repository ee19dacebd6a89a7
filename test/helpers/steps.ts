import type { Message } from '../../src/transcript/transcript.js';

/** Builders of small agent transcripts for the trigger tests: each step is [assistant call, tool result]. */

/** An assistant message with one tool call and optional text. */
export const call = (id: string, name: string, args: unknown, text = ''): Message => ({
  role: 'assistant',
  parts: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool-call', id, name, args }],
});

/** A tool message with one result. */
export const result = (id: string, name: string, output: string, isError = false): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name, output, ...(isError ? { isError } : {}) }],
});

/** A read of a file. */
export const read = (id: string, path: string, output = `contents of ${path}`): Message[] => [
  call(id, 'read_file', { path }),
  result(id, 'read_file', output),
];

/** An edit of a file. */
export const edit = (id: string, path: string): Message[] => [
  call(id, 'edit_file', { path, old_str: 'return a', new_str: 'return b' }),
  result(id, 'edit_file', `edited ${path}`),
];

/** A shell command and its output. */
export const bash = (id: string, command: string, output: string): Message[] => [
  call(id, 'bash', { command }),
  result(id, 'bash', output),
];

/** A step that touches no file and states nothing: its intent is EXPLORE. */
export const note = (id: string, output = 'ok'): Message[] => [
  call(id, 'noop', { note: 'nothing to see' }),
  result(id, 'noop', output),
];
