/**
 * The examples import the package by its name (`context-compression/ai-sdk`), as a user's code does; inside the
 * repository tsc, tsx and vitest resolve those names through tsconfig.json's `paths`. They must name every entry of
 * the package and the very source each entry is built from, or an example would run against the wrong code.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceEntryPoints } from '../helpers/package-entries.js';

const root = resolve(import.meta.dirname, '../..');

describe("tsconfig.json's paths", () => {
  it('map each entry of package.json exports to the source tsup builds it from', () => {
    const { paths } = (
      JSON.parse(readFileSync(resolve(root, 'tsconfig.json'), 'utf8')) as {
        compilerOptions: { paths: Record<string, string[]> };
      }
    ).compilerOptions;
    const expected = Object.fromEntries(
      Object.entries(sourceEntryPoints()).map(([name, file]) => [name, [`./${relative(root, file)}`]]),
    );
    expect(Object.keys(expected)).toContain('context-compression/ai-sdk');
    expect(paths).toEqual(expected);
  });
});
