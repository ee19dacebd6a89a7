/**
 * The package's import specifiers (`context-compression`, `context-compression/ai-sdk`, ...) mapped to the source
 * files that build them: package.json `exports` -> the tsup entry that builds each file -> its source. The docs'
 * snippets, the examples and tsconfig.json's `paths` resolve the package's name through this map.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** The package's import specifiers mapped to the source files that build them (package.json exports, tsup entries). */
export function sourceEntryPoints(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { import?: { default?: string } }>;
  };
  const tsup = readFileSync(join(root, 'tsup.config.ts'), 'utf8');
  const entryBlock = /entry:\s*\{([^}]*)\}/.exec(tsup)?.[1] ?? '';
  const entries = new Map(
    [...entryBlock.matchAll(/['"]?([\w/.-]+)['"]?\s*:\s*['"]([^'"]+)['"]/g)].map(([, name = '', file = '']) => [
      name,
      file,
    ]),
  );
  const paths: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const built = target.import?.default ?? '';
    const name = /^\.\/dist\/(.+)\.js$/.exec(built)?.[1];
    const source = name === undefined ? undefined : entries.get(name);
    if (source === undefined) throw new Error(`package.json export ${subpath} (${built}) has no tsup entry`);
    paths[subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = join(root, source);
  }
  return paths;
}
