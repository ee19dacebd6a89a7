import { describe, expect, it } from 'vitest';
import { callActions, cutAtWord, describeAction, mainArgument } from '../../src/transcript/call-actions.js';
import type { Message } from '../../src/transcript/transcript.js';

const call = (id: string, name: string, args: unknown): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', id, name, args }],
});
const failed = (id: string, name: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name, output: 'exit 1', isError: true }],
});

describe('cutAtWord', () => {
  it('cuts at the end of a word, mid-word only for one long word', () => {
    expect(cutAtWord('short text', 20)).toBe('short text');
    expect(cutAtWord('module-25, module-26, module-27', 26)).toBe('module-25, module-26,…');
    expect(cutAtWord('a'.repeat(30), 10)).toBe(`${'a'.repeat(9)}…`);
  });
});

describe('mainArgument', () => {
  it('takes the only string, else the key that names what the call works on, else key=value pairs', () => {
    expect(mainArgument({ path: 'src/a.ts' }, 40)).toBe('src/a.ts');
    expect(mainArgument({ command: 'npm test', timeout: 30 }, 40)).toBe('npm test');
    expect(mainArgument({ q: 'x', n: 3 }, 40)).toBe('q=x n=3');
    expect(mainArgument('raw input', 40)).toBe('raw input');
  });
});

describe('callActions', () => {
  it('groups the calls by tool in order of first use, with their arguments once each and their failures', () => {
    const actions = callActions([
      call('1', 'readFile', { path: 'src/a.ts' }),
      call('2', 'bash', { command: 'npm test' }),
      failed('2', 'bash'),
      call('3', 'readFile', { path: 'src/b.ts' }),
      call('4', 'readFile', { path: 'src/a.ts' }),
    ]);
    expect(actions).toEqual([
      { name: 'readFile', count: 3, args: ['src/a.ts', 'src/b.ts'], errors: 0 },
      { name: 'bash', count: 1, args: ['npm test'], errors: 1 },
    ]);
    expect(actions.map(describeAction)).toEqual(['readFile x3 (src/a.ts ... src/b.ts)', 'bash npm test (failed)']);
  });

  it('describes an action with no comma or colon, so it stays one term of a timeline entry', () => {
    expect(describeAction({ name: 'http', count: 2, args: ['GET https://x.io/a, b', 'c'], errors: 1 })).toBe(
      'http x2 (GET https //x.io/a b ... c; 1 failed)',
    );
  });
});
