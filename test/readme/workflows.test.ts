/**
 * The repository's CI workflow runs what .ci/run runs (the npm scripts and the built command line), so the checks
 * that cannot run here stay the ones that do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const scripts = (text: string) =>
  new Set([...text.matchAll(/npm (?:run ([\w:-]+)|(test|ci)\b)/g)].map((m) => m[1] ?? m[2]));

describe('the workflows', () => {
  it('CI runs the checks of .ci/run, on Node.js 20 and 22, with the onnxruntime download skipped', () => {
    const ci = read('.github/workflows/ci.yml');
    expect(scripts(ci)).toEqual(scripts(read('.ci/run')));
    expect(ci).toMatch(/node: \[20, 22\]/);
    expect(ci).toContain('ONNXRUNTIME_NODE_INSTALL: skip');
    expect(ci).toContain('node dist/cli.js replay');
  });

  it('a version tag publishes with provenance, after the build and the tests', () => {
    const release = read('.github/workflows/release.yml');
    expect(release).toMatch(/tags: \['v\*'\]/);
    expect(release).toContain('id-token: write');
    const order = ['npm run build', 'npm test', 'npm publish --provenance'].map((step) => release.indexOf(step));
    expect(order.every((at) => at > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // npm rejects a provenance publish whose package.json names no repository, or another one
    const fields = release.indexOf(`repository.url=git+https://github.com/${'$'}{GITHUB_REPOSITORY}.git`);
    expect(fields).toBeGreaterThan(order[1] ?? 0);
    expect(fields).toBeLessThan(order[2] ?? 0);
  });
});
