import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('examples/embedder-recall.ts', () => {
  it('recalls a paraphrased detail with an embedder and not by words alone', async () => {
    const { stdout } = await promisify(execFile)(
      resolve(root, 'node_modules/.bin/tsx'),
      ['examples/embedder-recall.ts'],
      { cwd: root, timeout: 60_000, env: { ...process.env, OPENAI_API_KEY: '', EMBEDDING_MODEL: '' } },
    );
    expect(stdout).toContain('words alone (BM25): not recalled');
    expect(stdout).toContain('with the toy embedder (offline): recalled "a bright red Fiat 500"');
  });
});
