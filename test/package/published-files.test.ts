/**
 * What `npm install context-compression` brings: the packed files are the built JavaScript and types with the README,
 * the guides, the changelog, the examples the guides link to and the benchmark results (no source maps, no sources);
 * every link of a packed document works inside the package, every packed example imports only packed files; and `dependencies` are exactly the packages the built entries load at
 * run time; everything else a feature needs is an optional peer dependency.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, posix, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import tsupConfig from '../../tsup.config.js';
import { runtimePackages } from '../helpers/runtime-packages.js';
import { anchorsOf, linksOf, readDoc } from '../readme/doc-files.js';

const root = resolve(import.meta.dirname, '../..');

interface PackageJson {
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as PackageJson;

/** The paths `npm pack` would put in the tarball. */
function packedPaths(): string[] {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as [{ files: { path: string }[] }];
  return packed.files.map((file) => file.path);
}

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
    'packs built JavaScript and types, the README, guides, changelog, examples and benchmark results; no sources',
    () => {
      const paths = packedPaths();
      expect(paths.some((path) => path.startsWith('dist/'))).toBe(true);
      const unexpected = paths.filter(
        (path) =>
          !/^dist\/[\w/.-]+\.(?:js|cjs|d\.ts|d\.cts)$/.test(path) &&
          !/^docs\/[\w-]+\.md$/.test(path) &&
          !/^examples\/[\w/.[\]-]+\.(?:ts|tsx|svg|jsonl)$/.test(path) &&
          ![
            'package.json',
            'README.md',
            'CHANGELOG.md',
            'LICENSE',
            'examples/README.md',
            'bench/RESULTS.md',
            'bench/chart.svg',
          ].includes(path),
      );
      expect(unexpected).toEqual([]);
    },
  );

  it('every relative link of a packed document leads to a packed file (or a folder of them) and heading', () => {
    const paths = packedPaths();
    const packed = new Set(paths);
    const documents = paths.filter((path) => path.endsWith('.md'));
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'docs/ai-sdk.md', 'docs/langchain.md']));
    const problems = documents.flatMap((path) => {
      const doc = readDoc(path);
      return linksOf(doc).flatMap(({ where, target }) => {
        if (/^[a-z][a-z\d+.-]*:/i.test(target)) return []; // https:, mailto:
        const [file = '', fragment] = target.split('#');
        const to = file === '' ? path : posix.normalize(posix.join(posix.dirname(path), decodeURI(file)));
        const found = packed.has(to) || paths.some((other) => other.startsWith(`${to.replace(/\/$/, '')}/`));
        if (!found) return [`${where}: ${target} is not in the package`];
        if (fragment !== undefined && to.endsWith('.md') && !anchorsOf(readDoc(to).text, to).has(fragment))
          return [`${where}: ${target} names no heading of ${to}`];
        return [];
      });
    });
    expect(problems).toEqual([]);
  });

  it('the packed examples import only packed files, and the package by the names it exports', () => {
    const paths = packedPaths();
    const packed = new Set(paths);
    const exported = Object.keys(pkg.exports).map((subpath) =>
      subpath === '.' ? 'context-compression' : `context-compression/${subpath.slice(2)}`,
    );
    const examples = paths.filter((path) => path.startsWith('examples/') && /\.tsx?$/.test(path));
    expect(examples.length).toBeGreaterThan(5);
    const problems = examples.flatMap((path) => {
      const code = readFileSync(resolve(root, path), 'utf8');
      return [...code.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].flatMap(([, specifier = '']) => {
        if (specifier.startsWith('.')) {
          const to = posix.normalize(posix.join(posix.dirname(path), specifier));
          const candidates = [to, to.replace(/\.js$/, '.ts'), to.replace(/\.js$/, '.tsx'), `${to}.ts`, `${to}.tsx`];
          return candidates.some((candidate) => packed.has(candidate)) ? [] : [`${path}: ${specifier} is not packed`];
        }
        if (specifier.startsWith('context-compression') && !exported.includes(specifier))
          return [`${path}: ${specifier} is not an entry of the package`];
        return [];
      });
    });
    expect(problems).toEqual([]);
  });

  // the package resolves its own name through `exports` (no `paths`): the examples meet the built types a user gets
  it.skipIf(!existsSync(resolve(root, 'dist')))('the packed examples type-check against the built package', () => {
    // examples/next-chat is an app of its own (React, Next.js): `next build` checks it in the browser test
    const examples = packedPaths().filter(
      (path) => path.startsWith('examples/') && !path.startsWith('examples/next-chat/') && /\.tsx?$/.test(path),
    );
    mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
    const folder = mkdtempSync(join(root, 'node_modules/.cache/packed-examples-'));
    try {
      const config = {
        extends: relative(folder, join(root, 'tsconfig.json')),
        compilerOptions: { paths: {}, noEmit: true, jsx: 'preserve' },
        files: examples.map((path) => relative(folder, join(root, path))),
        include: [],
      };
      writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify(config));
      const tsc = spawnSync(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', folder, '--listFiles'],
        {
          encoding: 'utf8',
        },
      );
      const listed = tsc.stdout.split('\n');
      expect(listed.filter((line) => line.includes('error TS'))).toEqual([]);
      expect(tsc.status, `${tsc.stderr}${tsc.stdout.slice(-2000)}`).toBe(0);
      expect(listed).toContain(join(root, 'dist/ai-sdk.d.ts'));
      expect(listed.some((line) => line.startsWith(join(root, 'adapters/')))).toBe(false);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

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
