import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('examples/chat-recall.ts', () => {
  it('folds the early detail away and quotes it back before the question about it', async () => {
    const { stdout } = await promisify(execFile)(resolve(root, 'node_modules/.bin/tsx'), ['examples/chat-recall.ts'], {
      cwd: root,
      timeout: 60_000,
      env: { ...process.env, OPENAI_API_KEY: '' },
    });
    expect(stdout).toMatch(/^folded \d+ messages into the session state$/m);
    expect(stdout).toMatch(/^recalled \d+ earlier pieces?$/m);
    const [, history, prompt] = /(\d+) messages in the caller's history, (\d+) in the prompt/.exec(stdout) ?? [];
    expect(Number(prompt)).toBeLessThan(Number(history));
    const block = stdout.slice(stdout.indexOf('<recalled_messages>'));
    expect(block).toContain('my passport number is X4471920 and it expires in March 2031.');
  });
});
