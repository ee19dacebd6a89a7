/**
 * `npm run check:layers`: fails when a module of `src/` imports (types included) from a folder of a higher layer.
 * The file-cycle check sees cycles between files only; this one keeps the folders in their order, so a lower folder
 * never comes to depend on the engine or on a policy built over it. `--list` prints each layer's folders and the
 * imports that cross layers downwards, counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The layers, lowest first. A module may import from its own layer and the layers below it. A name is a folder of
 * `src/` or a file at its top (without `.ts`).
 */
export const LAYERS: readonly (readonly string[])[] = [
  // the library's errors and the smallest helpers
  ['errors', 'bounded-cache', 'deferred-tasks'],
  // counting tokens, the framework-free messages, embeddings, and what a call reports (decisions, events)
  ['counting', 'transcript', 'embeddings', 'reports'],
  // what a history is read into and kept in: the session state, the step signals, the options, the summarizers,
  // the stores and what is persisted in them
  ['session-state', 'signals', 'options', 'summarizers', 'persistence', 'stores'],
  // the call model: a call's facts, its compression point, its projection, the stage contract
  ['call'],
  // the policies: the strategies and the prompt view, the behaviours (each folder with its stages, planners and
  // triggers), and what every stage is handed
  ['strategies', 'view', 'masking', 'folding', 'dropping', 'recall', 'stages'],
  // the engine: one call's pipeline
  ['engine'],
  // the package's entries
  ['index', 'advanced', 'adapter-exports'],
];

const root = resolve(import.meta.dirname, '..');
const src = resolve(root, 'src');

/** The layer of a module of `src/`, by its top folder or file name; undefined for a name no layer lists. */
function layerOf(file: string): { name: string; layer: number } | undefined {
  const name = relative(src, file).split('/')[0]?.replace(/\.ts$/, '') ?? '';
  const layer = LAYERS.findIndex((names) => names.includes(name));
  return layer < 0 ? undefined : { name, layer };
}

function modules(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = resolve(folder, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The `src/` modules a module imports or re-exports from, types included. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')));
}

const problems: string[] = [];
const crossings = new Map<string, number>();
for (const file of modules(src)) {
  const from = layerOf(file);
  if (!from) {
    problems.push(`${relative(root, file)}: its folder is in no layer (add it to LAYERS in scripts/check-layers.ts)`);
    continue;
  }
  for (const imported of importsOf(file)) {
    if (!imported.startsWith(`${src}/`)) continue;
    const to = layerOf(imported);
    if (!to) continue;
    if (to.layer > from.layer) {
      problems.push(
        `${relative(root, file)} (layer ${from.layer}, ${from.name}) imports ${relative(root, imported)} (layer ${to.layer}, ${to.name})`,
      );
    } else if (to.name !== from.name) {
      const key = `${from.name} -> ${to.name}`;
      crossings.set(key, (crossings.get(key) ?? 0) + 1);
    }
  }
}

if (process.argv.includes('--list')) {
  for (const [layer, names] of LAYERS.entries()) console.log(`layer ${layer}: ${names.join(', ')}`);
  for (const [key, count] of [...crossings].sort()) console.log(`  ${key}: ${count}`);
}
if (problems.length > 0) {
  console.error(`${problems.length} import(s) against the layers of src/:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(
  `src/: every import keeps the ${LAYERS.length} layers (lowest first: ${LAYERS.map((names) => names[0]).join(' < ')})`,
);
