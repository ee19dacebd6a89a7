import { defineConfig, type Options } from 'tsup';
import { edgeDefaults } from './scripts/edge-build.js';

const node: Options = {
  entry: {
    index: 'src/index.ts',
    'ai-sdk': 'adapters/ai-sdk/index.ts',
    langchain: 'adapters/langchain/index.ts',
    advanced: 'src/advanced.ts',
    'stores/redis': 'src/stores/redis-store.ts',
    'stores/postgres': 'src/stores/postgres-store.ts',
    'stores/unstorage': 'src/stores/unstorage-store.ts',
    'stores/sqlite': 'src/stores/sqlite-store.ts',
    'stores/langgraph': 'src/stores/langgraph-store.ts',
    cli: 'adapters/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  // the JavaScript is not minified, so stack traces read as they are; maps would be 4.3 MB of the 6.5 MB unpacked
  sourcemap: false,
  target: 'node20',
  // import.meta.url in the CommonJS build: tiktokenCounter() resolves tiktoken from this package's location
  shims: true,
  external: ['ai', '@ai-sdk/provider', '@ai-sdk/provider-utils', '@langchain/core', 'langchain', 'redis', 'pg'],
  // small ESM-only text helpers of the recall index, bundled so the CommonJS build needs no require() of ESM
  noExternal: ['stemmer', 'stopword'],
};

export default defineConfig([
  node,
  // the AI SDK adapter for edge functions and Workers (`edge-light`, `worker` conditions): the same code, counting
  // UTF-8 bytes by default, so a route's bundle fits the 1 MB an edge function may take after gzip
  {
    ...node,
    entry: { 'ai-sdk.edge': 'adapters/ai-sdk/index.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    shims: false,
    target: 'es2022',
    esbuildPlugins: [edgeDefaults],
  },
]);
