/**
 * The standalone fuzz runner: `tsx test/fuzz/run.ts [--runs N] [--seed S] [--adapter ai-sdk|langchain]
 * [--case K] [--property TEXT]`. Runs N generated cases per adapter (split between its properties), collects every
 * violation instead of stopping at the first, and prints a table by adapter and kind, with one example of each kind
 * found. `--case K` replays case K of the seed alone and prints its input; `--shrink KIND` searches each property for
 * a case with a violation of KIND and prints it shrunk; `--property TEXT` runs only the properties whose name has
 * TEXT. Exits 1 when anything was found.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { loadTokenizer } from './harness.js';
import { VIOLATION_KINDS, type Violation } from './invariants.js';
import { type FuzzProperty, PROPERTIES } from './properties.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    adapter: { type: 'string' },
    case: { type: 'string' },
    shrink: { type: 'string' },
    'max-seconds': { type: 'string' },
    property: { type: 'string' },
  },
});
const runs = Number(values.runs);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const maxSeconds = values['max-seconds'] !== undefined ? Number(values['max-seconds']) : Number.POSITIVE_INFINITY;
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
});
const adapters = (['ai-sdk', 'langchain'] as const).filter((name) => !values.adapter || values.adapter === name);
const selected = PROPERTIES.filter(
  (property) => values.property === undefined || property.name.includes(values.property),
);

interface Example {
  readonly property: string;
  readonly index: number;
  readonly detail: string;
}

interface Tally {
  cases: number;
  prompts: number;
  seconds: number;
  readonly counts: Map<string, number>;
  readonly coverage: Map<string, number>;
  readonly examples: Map<string, Example>;
}

/**
 * The cases of an adapter: its properties in turn, property p's k-th case drawn from seed + p. Each input is drawn
 * when its case runs (fast-check's `path` walks to the k-th value without making the ones before), so a long run
 * holds one input at a time rather than all of them.
 */
function* casesOf(properties: readonly FuzzProperty[], count: number, first = 0) {
  for (let index = first; index < count; index++) {
    const slot = index % properties.length;
    const property = properties[slot] as FuzzProperty;
    const path = String(Math.floor(index / properties.length));
    const draw = () => fc.sample(property.arbitrary, { seed: seed + slot, path, numRuns: 1 })[0];
    yield { index, property, draw };
  }
}

const replacer = (_key: string, value: unknown) => (value instanceof Uint8Array ? `[${value.length} bytes]` : value);

/** Finds a case of each property with a violation of `kind` and prints it, shrunk by fast-check. */
async function shrink(kind: string) {
  for (const property of selected.filter((candidate) => adapters.includes(candidate.adapter))) {
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(property.arbitrary, async (input) => {
        const { violations } = await property.run(input);
        return !violations.some((violation) => violation.kind === kind);
      }),
      { numRuns: runs, seed, interruptAfterTimeLimit: 300_000 },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    console.log(`\n${property.adapter}: ${property.name}: ${result.failed ? 'found' : 'not found'} (${seconds} s)`);
    const input = result.counterexample?.[0];
    if (!result.failed || input === undefined) continue;
    console.log(JSON.stringify(input, replacer, 1));
    for (const violation of (await property.run(input)).violations) console.log(violation.kind, violation.detail);
  }
}

async function main() {
  await loadTokenizer();
  if (values.shrink !== undefined) {
    await shrink(values.shrink);
    return;
  }
  const tallies = new Map<string, Tally>();
  for (const adapter of adapters) {
    const properties = selected.filter((property) => property.adapter === adapter);
    const total = values.case !== undefined ? 1 : runs;
    const cases =
      values.case !== undefined
        ? casesOf(properties, Number(values.case) + 1, Number(values.case))
        : casesOf(properties, runs);
    const tally: Tally = {
      cases: 0,
      prompts: 0,
      seconds: 0,
      counts: new Map(),
      coverage: new Map(),
      examples: new Map(),
    };
    tallies.set(adapter, tally);
    const started = performance.now();
    for (const { index, property, draw } of cases) {
      if (interrupted || (performance.now() - started) / 1000 > maxSeconds) break;
      const input = draw();
      if (values.case !== undefined) console.log(JSON.stringify(input, replacer, 1));
      let violations: readonly Violation[];
      try {
        const report = await property.run(input);
        tally.prompts += report.prompts;
        for (const [what, count] of report.coverage) tally.coverage.set(what, (tally.coverage.get(what) ?? 0) + count);
        violations = report.violations;
      } catch (error) {
        violations = [{ kind: 'threw', detail: `harness: ${(error as Error).stack ?? String(error)}` }];
      }
      tally.cases++;
      // a server yields to the event loop between requests; a loop of mock calls settles in microtasks alone, so the
      // timers the library sets (deferred counts, timeouts) would never run and every engine they hold would stay
      await new Promise((resolve) => setImmediate(resolve));
      for (const violation of violations) {
        tally.counts.set(violation.kind, (tally.counts.get(violation.kind) ?? 0) + 1);
        if (!tally.examples.has(violation.kind))
          tally.examples.set(violation.kind, { property: property.name, index, detail: violation.detail });
        if (values.case !== undefined) console.log(violation.kind, violation.detail);
      }
      if (process.stderr.isTTY && tally.cases % 10 === 0)
        process.stderr.write(`\r${adapter}: ${tally.cases}/${total} cases, ${tally.counts.size} kinds found `);
    }
    tally.seconds = (performance.now() - started) / 1000;
    if (process.stderr.isTTY) process.stderr.write('\n');
  }
  print(tallies);
  const found = [...tallies.values()].some((tally) => tally.counts.size > 0);
  process.exitCode = found ? 1 : 0;
}

function print(tallies: Map<string, Tally>) {
  const kinds = [
    ...new Set([...VIOLATION_KINDS, ...[...tallies.values()].flatMap((tally) => [...tally.counts.keys()])]),
  ];
  const rows: string[][] = [['adapter', 'cases', 'prompts checked', 'violation kind', 'violations', 'seed', 'time']];
  for (const [adapter, tally] of tallies) {
    kinds.forEach((kind, index) => {
      const first = index === 0;
      rows.push([
        first ? adapter : '',
        first ? String(tally.cases) : '',
        first ? String(tally.prompts) : '',
        kind,
        String(tally.counts.get(kind) ?? 0),
        first ? String(seed) : '',
        first ? `${tally.seconds.toFixed(1)} s` : '',
      ]);
    });
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | '));
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
  }
  for (const [adapter, tally] of tallies) {
    const coverage = [...tally.coverage].sort(([a], [b]) => a.localeCompare(b));
    console.log(`${adapter} exercised: ${coverage.map(([what, count]) => `${what} ${count}`).join(', ')}`);
  }
  for (const [adapter, tally] of tallies)
    for (const [kind, example] of tally.examples)
      console.log(
        `\n${adapter} ${kind}: ${example.detail}\n  first in "${example.property}", replay: tsx test/fuzz/run.ts --seed ${seed} --adapter ${adapter} --case ${example.index}`,
      );
}

await main();
