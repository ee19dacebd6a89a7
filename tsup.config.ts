import { defineConfig } from 'tsup';

export default defineConfig({
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
});
