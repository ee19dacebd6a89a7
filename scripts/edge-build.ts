/**
 * What makes a build of the AI SDK adapter the edge build: the default token counter's module replaced by its edge
 * variant (UTF-8 bytes instead of gpt-tokenizer's o200k table, 1.1 MB after gzip on its own). Used by tsup for
 * `dist/ai-sdk.edge.js` (the `edge-light` and `worker` conditions of `context-compression/ai-sdk`) and by the edge
 * tests, which bundle the sources the same way.
 */
import { resolve } from 'node:path';
import type { Plugin } from 'esbuild';

export const edgeDefaults: Plugin = {
  name: 'edge-defaults',
  setup(build) {
    build.onResolve({ filter: /(^|\/)default-counter\.js$/ }, ({ path, resolveDir }) => ({
      path: resolve(resolveDir, path.replace(/default-counter\.js$/, 'default-counter.edge.ts')),
    }));
  },
};
