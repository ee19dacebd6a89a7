/**
 * npm (11.16 and later) asks a project to review its dependencies' install scripts in package.json `allowScripts`,
 * warns on every install about the ones it does not name, and will refuse to run them from npm 12. Every dependency
 * of the lockfile with an install script is named; onnxruntime-node's is refused: it downloads CUDA libraries the
 * tests never use (with an older npm, `ONNXRUNTIME_NODE_INSTALL=skip` does the same, as the README's commands set).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(resolve(root, file), 'utf8'));

describe('install scripts', () => {
  it('allowScripts names every dependency with an install script, and refuses onnxruntime-node', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([, entry]) => entry.hasInstallScript)
        .map(([path]) => path.split('node_modules/').pop() ?? path),
    );
    expect(withScripts.size).toBeGreaterThan(0);
    const { allowScripts } = read('package.json') as { allowScripts: Record<string, boolean> };
    expect(Object.keys(allowScripts).sort()).toEqual([...withScripts].sort());
    expect(allowScripts['onnxruntime-node']).toBe(false);
  });
});
