import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { optionRows, optionsReference, REFERENCE_PATH } from '../../scripts/options-reference.js';

describe('docs/options.md', () => {
  it('is what `npm run docs:options` writes from the schemas now', () => {
    expect(readFileSync(REFERENCE_PATH, 'utf8')).toBe(optionsReference());
  });

  it("every default the schema gives is the one the option's JSDoc shows on hover", () => {
    const { engine, adapter, call, extractive, tools } = optionRows();
    for (const row of [...engine, ...adapter, ...call, ...extractive, ...Object.values(tools).flat()]) {
      if (typeof row.value !== 'number' && typeof row.value !== 'boolean') continue;
      expect(row.documentedDefault, row.path).toBeDefined();
      expect(
        row.documentedDefault?.startsWith(String(row.value)),
        `${row.path}: @default ${row.documentedDefault}`,
      ).toBe(true);
    }
  });

  it('lists nested options under their parent and per-call options in their own section', () => {
    const text = optionsReference();
    const at = (path: string) => text.indexOf(`| \`${path}\` |`);
    expect(at('triggers')).toBeLessThan(at('triggers.semantic'));
    expect(at('triggers.semantic')).toBeLessThan(at('triggers.semantic.minTokens'));
    expect(at('triggers.semantic.minTokens')).toBeLessThan(at('triggers.staleness'));
    expect(text.indexOf('## Per-call options')).toBeLessThan(at('force'));
    expect(text).toContain(
      '| `triggers.semantic.minTokens` | a whole number of tokens of at least 0 | `2000` | A semantic fold below the budget threshold must free at least this many tokens. |',
    );
  });
});
