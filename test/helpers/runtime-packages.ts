import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const STATIC_IMPORT = /^(?:import|export)\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gm;
/** `import('name')` with a literal name, not `typeof import('name')` (a type). */
const DYNAMIC_IMPORT = /(?<!typeof\s)\bimport\(\s*(?:\/\*[^*]*\*\/\s*)?'([^']+)'\s*\)/g;

const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');

/**
 * Run-time imports (type-only imports are erased) of every module reachable from a source file, by package.
 * `dynamic` adds the packages loaded by `import('...')` (tokenizers, store drivers, the chart), followed too.
 */
export function runtimePackages(file: string, { dynamic = false }: { dynamic?: boolean } = {}): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const add = (from: string, specifier: string) => {
    if (specifier.startsWith('.')) visit(resolve(dirname(from), specifier.replace(/\.js$/, '.ts')));
    else packages.add(packageOf(specifier));
  };
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const source = readFileSync(path, 'utf8');
    for (const [, typeOnly, specifier = ''] of source.matchAll(STATIC_IMPORT)) if (!typeOnly) add(path, specifier);
    if (dynamic) for (const [, specifier = ''] of source.matchAll(DYNAMIC_IMPORT)) add(path, specifier);
  };
  visit(file);
  return packages;
}
