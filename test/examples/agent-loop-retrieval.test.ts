import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('examples/agent-loop-retrieval.ts', () => {
  it('masks the older logs, then gives the first one back verbatim through the retrieval tool', async () => {
    const { stdout } = await promisify(execFile)(
      resolve(root, 'node_modules/.bin/tsx'),
      ['examples/agent-loop-retrieval.ts'],
      { cwd: root, timeout: 60_000 },
    );
    expect(stdout).toMatch(/^\[compression\] masked \d+ results/m);
    expect(stdout).toContain('recall gives it back verbatim (call id "read-1")');
    expect(stdout).toContain('<tool_result id="read-1" tool="read_log">');
    expect(stdout).toMatch(/^verbatim: true$/m);
    expect(stdout).toMatch(/^prefix unchanged: true/m);
  });
});
