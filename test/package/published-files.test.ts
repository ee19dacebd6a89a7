/**
 * What `npm install context-compression` brings: the packed files are the built JavaScript and types with the README,
 * the guides it links to and the changelog (no source maps, no sources), and `dependencies` are exactly the packages the built entries load at
 * run time; everything else a feature needs is an optional peer dependency.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import tsupConfig from '../../tsup.config.js';
import { runtimePackages } from '../helpers/runtime-packages.js';

const root = resolve(import.meta.dirname, '../..');

interface PackageJson {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as PackageJson;

/** The entries of every build tsup makes (the Node.js builds and the edge build), and the packages it bundles. */
function buildOptions() {
  if (typeof tsupConfig === 'function') throw new Error('expected tsup options objects');
  const entries: string[] = [];
  const bundled: string[] = [];
  for (const { entry, noExternal = [] } of Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig]) {
    if (!entry || Array.isArray(entry) || typeof entry === 'string') throw new Error('expected named tsup entries');
    entries.push(...Object.values(entry));
    for (const name of noExternal) if (typeof name === 'string') bundled.push(name);
  }
  return { entries, bundled };
}

describe('the published package', () => {
  // the build runs before the tests in CI; a checkout that was never built has nothing to pack
  it.skipIf(!existsSync(resolve(root, 'dist')))(
    'packs only built JavaScript and types, README, its guides and CHANGELOG',
    () => {
      const [packed] = JSON.parse(
        execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
      ) as [{ files: { path: string }[] }];
      const paths = packed.files.map((file) => file.path);
      expect(paths.some((path) => path.startsWith('dist/'))).toBe(true);
      const unexpected = paths.filter(
        (path) =>
          !/^dist\/[\w/.-]+\.(?:js|cjs|d\.ts|d\.cts)$/.test(path) &&
          !/^docs\/[\w-]+\.md$/.test(path) &&
          !['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'].includes(path),
      );
      expect(unexpected).toEqual([]);
      // the README's links to guides work in node_modules too
      const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
      const guides = [...readme.matchAll(/\]\((docs\/[\w-]+\.md)(?:#[\w-]*)?\)/g)].map((match) => match[1]);
      expect(guides.length).toBeGreaterThan(0);
      expect(guides.filter((guide) => !paths.includes(guide ?? ''))).toEqual([]);
    },
  );

  it('depends on exactly what its entries load at run time; what only a feature loads is an optional peer', () => {
    const { entries, bundled } = buildOptions();
    const loaded = new Set<string>();
    for (const entry of entries)
      for (const name of runtimePackages(resolve(root, entry), { dynamic: true }))
        if (!isBuiltin(name) && !bundled.includes(name)) loaded.add(name);
    const peers = Object.keys(pkg.peerDependencies ?? {});
    const needed = [...loaded].filter((name) => !peers.includes(name)).sort();
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual(needed);
    for (const peer of peers) expect(pkg.peerDependenciesMeta?.[peer]?.optional, peer).toBe(true);
  });
});
