import { describe, expect, it } from 'vitest';
import { exactRanking, holdsTerm, queryTerms } from '../../src/signals/exact-terms.js';

describe('holdsTerm', () => {
  it('finds a name only as a whole name', () => {
    expect(holdsTerm('import x from "./src/module_2.ts"', 'src/module_2.ts')).toBe(true);
    expect(holdsTerm('see module_21 and module_2b', 'module_2')).toBe(false);
    expect(holdsTerm('see module_21, then module_2.', 'module_2')).toBe(true);
    expect(holdsTerm('module_2', 'module_2')).toBe(true);
  });
});

describe('queryTerms', () => {
  it('takes the specific terms of a query, lowercase, and leaves plain words out', () => {
    expect(queryTerms('Where is Lumen_Amber_3 defined in src/app.ts?')).toEqual(
      expect.arrayContaining(['lumen_amber_3', 'src/app.ts', 'app.ts']),
    );
    expect(queryTerms('what did she paint last summer')).toEqual([]);
  });
});

describe('exactRanking', () => {
  const documents = [
    'readFile {"path":"src/module_1.ts"}\nexport const a = 1; // see src/module_2.ts',
    'readFile {"path":"src/module_2.ts"}\nexport function lumen_amber_2_1() {}',
    'readFile {"path":"lib/module_2.ts"}\nexport const c = 3;',
    'readFile {"path":"src/module_3.ts"}\nexport const d = 4;',
  ];

  it('ranks the documents holding the longer and rarer terms first, ties in order', () => {
    const ranked = exactRanking('src/module_2.ts', documents).map(({ index }) => index);
    // the whole path is in 0 and 1; its file name in 0, 1 and 2
    expect(ranked).toEqual([0, 1, 2]);
    expect(exactRanking('lumen_amber_2_1', documents).map(({ index }) => index)).toEqual([1]);
  });

  it('is empty for a query that names nothing specific or that nothing holds', () => {
    expect(exactRanking('the second module', documents)).toEqual([]);
    expect(exactRanking('src/module_9.ts', documents)).toEqual([]);
  });

  it('weighs nothing for a term every document holds', () => {
    expect(exactRanking('readFile', ['readFile a', 'readFile b'])).toEqual([]);
  });
});
