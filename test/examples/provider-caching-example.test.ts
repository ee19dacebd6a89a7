import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/** examples/provider-caching.ts, run as the README says, offline: where the breakpoints land, one system instruction. */
describe('examples/provider-caching.ts', () => {
  it('prints the three breakpoints of a compressed Anthropic request and a two-part Gemini system instruction', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const env = { ...process.env, ANTHROPIC_API_KEY: '', GOOGLE_GENERATIVE_AI_API_KEY: '' };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', resolve(root, 'examples/provider-caching.ts')],
      { cwd: root, env, timeout: 60_000 },
    );
    expect(stdout).toMatch(
      /cache breakpoints in the request: system block \d+ \(the end of the system prompt and awareness block\); message 1 of (\d+) \(the end of the session-state pair\); message (\d+) of \1 \(the end of the prompt\)/,
    );
    expect(stdout).toMatch(/system instruction: 2 parts/);
  });
});
