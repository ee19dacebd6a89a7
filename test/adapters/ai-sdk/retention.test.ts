/**
 * A middleware that serves a conversation for a long time keeps no call's messages once the call is done: every call
 * brings new message objects (a server parses each request), and a call's report reads its facts, which hold the
 * request before it, so a kept report would chain every call to the one before it (memory growing with each call).
 * Checked with WeakRefs and a full collection in a process of its own (`--expose-gc`), for each way of calling.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const worker = resolve(root, 'test/helpers/retention-worker.ts');

async function aliveAfter(mode: 'transform' | 'generate' | 'stream'): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', worker, mode], {
    cwd: root,
  });
  return (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { alive: number }).alive;
}

describe('what a long-lived middleware keeps of calls long past', () => {
  it.each(['transform', 'generate', 'stream'] as const)(
    '%s: none of the first ten prompts is alive twenty calls later',
    async (mode) => {
      expect(await aliveAfter(mode)).toBe(0);
    },
  );
});
