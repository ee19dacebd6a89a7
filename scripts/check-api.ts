/**
 * `npm run check:api`: prints the names each package entry exports (types included), read from the sources the
 * build bundles, and fails when a main entry exports more than MAX_MAIN_ENTRY_NAMES, or when the two adapters do not
 * share the same names of the core (switching frameworks changes only an import path).
 * `--names` prints every entry's names as well as their counts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import tsupConfig from '../tsup.config.js';

const MAX_MAIN_ENTRY_NAMES = 60;
const MAIN_ENTRIES = ['.', './ai-sdk', './langchain'];
const ADAPTERS = ['./ai-sdk', './langchain'];
const CORE = '.';

const root = resolve(import.meta.dirname, '..');

/** Package subpath (`.`, `./ai-sdk`, ...) to the source file its build starts from. */
function entrySources(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    exports: Record<string, { import?: { default?: string } } | string>;
  };
  const config = Array.isArray(tsupConfig) ? tsupConfig[0] : tsupConfig;
  const entries = (config as { entry: Record<string, string> }).entry;
  const sources = new Map<string, string>();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    const built = target.import?.default?.replace(/^\.\/dist\//, '').replace(/\.js$/, '');
    const source = built === undefined ? undefined : entries[built];
    if (source === undefined) throw new Error(`package.json exports ${subpath}: no tsup entry builds ${built}`);
    sources.set(subpath, resolve(root, source));
  }
  return sources;
}

function exportedNames(sources: Map<string, string>): Map<string, string[]> {
  const program = ts.createProgram([...sources.values()], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const [subpath, file] of sources) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${subpath}: cannot read the module ${file}`);
    names.set(
      subpath,
      checker
        .getExportsOfModule(symbol)
        .map((each) => each.name)
        .sort(),
    );
  }
  return names;
}

const names = exportedNames(entrySources());
const failures: string[] = [];
const width = Math.max(...[...names.keys()].map((subpath) => subpath.length));
for (const [subpath, list] of names) {
  const main = MAIN_ENTRIES.includes(subpath);
  const over = main && list.length > MAX_MAIN_ENTRY_NAMES;
  if (over) failures.push(`${subpath} exports ${list.length} names, more than ${MAX_MAIN_ENTRY_NAMES}`);
  const label = `context-compression${subpath.slice(1)}`.padEnd(width + 'context-compression'.length);
  console.log(
    `${label}  ${String(list.length).padStart(3)}${main ? ` / ${MAX_MAIN_ENTRY_NAMES}` : ''}${over ? '  TOO MANY' : ''}`,
  );
  if (process.argv.includes('--names')) console.log(`  ${list.join(' ')}\n`);
}

const core = new Set(names.get(CORE));
const [first, second] = ADAPTERS.map((subpath) => (names.get(subpath) ?? []).filter((name) => core.has(name)));
const onlyIn = (a: string[] = [], b: string[] = []) => a.filter((name) => !b.includes(name));
for (const [subpath, missing] of [
  [ADAPTERS[1], onlyIn(first, second)],
  [ADAPTERS[0], onlyIn(second, first)],
] as const) {
  if (missing.length > 0) failures.push(`${subpath} lacks core names the other adapter exports: ${missing.join(', ')}`);
}

if (failures.length > 0) {
  for (const failure of failures) console.error(`check:api: ${failure}`);
  process.exit(1);
}
