import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// the examples import the package by its name, as a user's code does; here the names resolve to the sources, the
// same `paths` tsc and tsx use (exact names only: `context-compression` must not swallow `context-compression/...`)
const { paths } = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, 'tsconfig.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, [string]> };
  }
).compilerOptions;
const alias = Object.entries(paths).map(([name, [file]]) => ({
  find: new RegExp(`^${name.replace(/[/-]/g, '\\$&')}$`),
  replacement: resolve(import.meta.dirname, file),
}));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
