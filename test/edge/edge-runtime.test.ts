/**
 * The AI SDK adapter on the edge: bundled the way Next.js edge routes and Workers resolve packages (`edge-light`,
 * `worker` and `browser` conditions, no Node built-in allowed), then a compressing call runs inside Vercel's edge
 * runtime (the `edge-runtime` package that `next dev` runs edge routes in), which has no `process`, `require` or
 * `Buffer`. The app code is edge-entry.ts.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { runInContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { EdgeRuntime } from 'edge-runtime';
import * as esbuild from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { edgeDefaults } from '../../scripts/edge-build.js';
import type { EdgeCallReport } from './edge-entry.js';

const root = resolve(import.meta.dirname, '../..');

/** Node's globals: none exists in the edge runtime, and each read of one during a call is recorded. */
const NODE_GLOBALS = [
  'process',
  'require',
  'Buffer',
  'global',
  'module',
  'exports',
  '__dirname',
  '__filename',
  'setImmediate',
];

const BUILTINS = new Set(builtinModules);

/** The bundle's file name in stack traces. */
const BUNDLE_FILE = 'edge-route.js';

/**
 * Fails the build on any import of a Node built-in, `node:` prefixed or bare, by any importer. esbuild already
 * refuses them for the browser and neutral platforms, except a `require()` inside try/catch, which it leaves to run
 * time (see the first test): this makes that one fail too.
 */
const noNodeBuiltins: esbuild.Plugin = {
  name: 'no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, ({ path, importer }) => {
      const name = path.startsWith('node:') ? path : path.split('/')[0];
      if (!path.startsWith('node:') && !BUILTINS.has(name ?? '')) return undefined;
      return { errors: [{ text: `${path} is a Node built-in, imported by ${importer || 'the entry'}` }] };
    });
  },
};

/**
 * How Next.js edge routes and Workers bundle: web conditions first, one output file, no Node built-in; the sources
 * as the package's edge build has them (its `edge-light` and `worker` conditions).
 */
const EDGE_BUILD = {
  absWorkingDir: root,
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  conditions: ['edge-light', 'worker', 'browser', 'import', 'default'],
  mainFields: ['browser', 'module', 'main'],
  // dynamic imports (gpt-tokenizer's encodings) are bundled into the one file, each evaluated on first import
  splitting: false,
  external: [],
  outdir: 'edge-out',
  logLevel: 'silent',
  plugins: [noNodeBuiltins, edgeDefaults],
} satisfies esbuild.BuildOptions;

/** The error texts of a failed build, or 'built'. */
async function buildOutcome(options: esbuild.BuildOptions): Promise<string[] | 'built'> {
  try {
    await esbuild.build(options);
    return 'built';
  } catch (error) {
    return (error as esbuild.BuildFailure).errors.map((message) => message.text);
  }
}

describe('the AI SDK adapter on the edge', () => {
  let bundle: esbuild.BuildResult<typeof EDGE_BUILD & { metafile: true }>;
  let code: string;

  beforeAll(async () => {
    bundle = await esbuild.build({
      ...EDGE_BUILD,
      entryPoints: ['test/edge/edge-entry.ts'],
      metafile: true,
      // Next.js (webpack) replaces import.meta.url at build time too; it is only read where `require` exists
      define: { 'import.meta.url': JSON.stringify('file:///edge/route.js') },
    });
    code = bundle.outputFiles[0]?.text ?? '';
  });

  it('a Node built-in fails this build, even a require() in try/catch', async () => {
    const stdin = (contents: string) => ({ ...EDGE_BUILD, stdin: { contents, resolveDir: root } });
    // esbuild alone, for the browser platform: an import of a built-in, prefixed or not, does not resolve
    for (const specifier of ['node:fs', 'fs'])
      expect(
        await buildOutcome({
          ...stdin(`import { readFileSync } from '${specifier}'; readFileSync('x');`),
          plugins: [],
        }),
      ).toEqual([`Could not resolve "${specifier}"`]);
    // but a require() in try/catch is left for run time: the guard fails it
    const guarded = "let m; try { m = require('node:module'); } catch {} console.log(m);";
    expect(await buildOutcome({ ...stdin(guarded), plugins: [] })).toBe('built');
    expect(await buildOutcome(stdin(guarded))).toEqual(['node:module is a Node built-in, imported by <stdin>']);
  });

  it('bundles with no Node built-in, no WASM and no tiktoken, the encodings inlined', () => {
    expect(bundle.errors).toEqual([]);
    expect(bundle.outputFiles.map((file) => file.path)).toHaveLength(1);
    const inputs = Object.keys(bundle.metafile.inputs);
    expect(inputs).toContain('adapters/ai-sdk/with-context-compression.ts');
    expect(inputs).toContain('node_modules/gpt-tokenizer/esm/encoding/o200k_base.js');
    expect(inputs.filter((input) => /node_modules\/tiktoken\/|\.wasm$|^node:/.test(input))).toEqual([]);
    // no run-time require shim (esbuild's `__require` that throws "Dynamic require of ... is not supported")
    expect(code).not.toContain('Dynamic require of');
    // evaluable as a script: no export, no import of another file or chunk, no import.meta
    const [output] = Object.values(bundle.metafile.outputs);
    expect(output?.exports).toEqual([]);
    expect(output?.imports).toEqual([]);
    expect(code).not.toContain('import.meta');
  });

  it('fits an edge function: a streaming route with ai and @ai-sdk/openai is at most 1 MB after gzip', async () => {
    const route = await esbuild.build({
      ...EDGE_BUILD,
      entryPoints: ['test/edge/edge-route.ts'],
      minify: true,
      metafile: true,
    });
    const gzipped = gzipSync(route.outputFiles[0]?.contents ?? new Uint8Array()).length;
    console.log(`edge route bundle: ${route.outputFiles[0]?.contents.length} bytes minified, ${gzipped} after gzip`);
    expect(gzipped).toBeLessThanOrEqual(1_000_000);
    // UTF-8 bytes count by default there: no encoding table in what the bundle holds
    const [output] = Object.values(route.metafile.outputs);
    const held = Object.entries(output?.inputs ?? {}).filter(([, { bytesInOutput }]) => bytesInOutput > 0);
    expect(held.filter(([input]) => input.includes('gpt-tokenizer'))).toEqual([]);
    expect(held.map(([input]) => input)).toContain('src/counting/default-counter.edge.ts');
    // the package resolves the edge build for those conditions, and tsup builds it
    const exports = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).exports['./ai-sdk'];
    for (const condition of ['edge-light', 'worker'])
      expect(exports[condition]).toEqual({ types: './dist/ai-sdk.d.ts', default: './dist/ai-sdk.edge.js' });
    expect(Object.keys(exports).slice(0, 2)).toEqual(['edge-light', 'worker']);
    expect(readFileSync(resolve(root, 'tsup.config.ts'), 'utf8')).toMatch(
      /'ai-sdk\.edge': 'adapters\/ai-sdk\/index\.ts'/,
    );
  });

  it('runs a compressing generateText and streamText call in the edge runtime', async () => {
    const reads = new NodeGlobalReads(code);
    const runtime = new EdgeRuntime({ extend: (context) => reads.trap(context) });
    expect(runtime.evaluate(`[${NODE_GLOBALS.map((name) => `typeof ${name}`).join(', ')}]`)).toEqual(
      NODE_GLOBALS.map(() => 'undefined'),
    );
    reads.clear();

    runInContext(code, runtime.context, { filename: BUNDLE_FILE });
    const report: EdgeCallReport = JSON.parse(await runtime.evaluate<Promise<string>>('runEdgeCall()'));

    expect(report.generated).toBe('edge answer');
    expect(report.streamed).toBe('edge stream');
    expect(report.prompts).toHaveLength(2);
    for (const prompt of report.prompts) {
      expect(prompt.length).toBeLessThan(report.history.length / 2);
      expect(prompt).toContain('<session_state>');
      expect(prompt).toContain('Which orders are still on the way?');
    }
    // Loading, counting, compressing and both calls: this package reads no Node global, not even to probe for
    // one. Dependencies probe and go on without (lru-cache at load, `ai` for its tracing channel).
    expect(reads.byThisPackage()).toEqual([]);
    expect(reads.all().every((read) => read.includes('node_modules/'))).toBe(true);

    // the tokenizers that need a synchronous require say so, instead of failing on a missing Node API
    reads.clear();
    expect(JSON.parse(runtime.evaluate<string>('tokenizersWithoutRequire()'))).toEqual({
      tiktoken: 'TokenizerUnavailableError',
      gptTokenizerBeforeLoad: 'TokenizerUnavailableError',
    });
    // nodeRequire()'s feature check, and nothing else
    expect(reads.byThisPackage()).toEqual(['process by src/counting/node-require.ts']);
  });
});

/**
 * Traps the Node globals on an edge runtime's global object: each stays undefined, and each read is recorded with
 * the module of the bundle that read it (found from the stack and esbuild's `// path` comments).
 */
class NodeGlobalReads {
  private readonly reads = new Set<string>();
  private readonly moduleStarts: Array<{ line: number; path: string }> = [];

  constructor(code: string) {
    code.split('\n').forEach((text, index) => {
      const path = /^\/\/ ((?:src|adapters|test|node_modules)\/\S+)$/.exec(text)?.[1];
      if (path) this.moduleStarts.push({ line: index + 1, path });
    });
  }

  trap<T extends object>(context: T): T {
    for (const name of NODE_GLOBALS)
      Object.defineProperty(context, name, {
        configurable: true,
        get: () => {
          this.reads.add(`${name} by ${this.reader()}`);
          return undefined;
        },
      });
    return context;
  }

  private reader(): string {
    const line = Number(new Error().stack?.split(`${BUNDLE_FILE}:`)[1]?.split(':')[0]);
    if (!line) return 'code outside the bundle';
    return this.moduleStarts.findLast((start) => start.line < line)?.path ?? 'the bundle';
  }

  all = () => [...this.reads].sort();
  byThisPackage = () => this.all().filter((read) => / by (src|adapters)\//.test(read));
  clear = () => this.reads.clear();
}
