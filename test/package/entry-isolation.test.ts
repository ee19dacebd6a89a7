/**
 * Each entry loads only its own framework: `context-compression/ai-sdk` never loads LangChain, and
 * `context-compression/langchain` never loads the AI SDK, nor `langchain` itself at run time (only its types).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimePackages as packagesOf } from '../helpers/runtime-packages.js';

const root = resolve(import.meta.dirname, '../..');

/** Run-time imports of every module reachable from an entry, by package. */
const runtimePackages = (entry: string) => packagesOf(resolve(root, entry));

describe('entry isolation', () => {
  it('the engine loads no framework and no tokenizer', () => {
    // the recall index: BM25 (minisearch), English stop words and stemming (bundled into the build)
    expect([...runtimePackages('src/advanced.ts')].sort()).toEqual([
      'lru-cache',
      'minisearch',
      'stemmer',
      'stopword',
      'zod',
    ]);
  });

  it('context-compression loads no more than the engine does', () => {
    const engine = runtimePackages('src/advanced.ts');
    expect([...runtimePackages('src/index.ts')].filter((name) => !engine.has(name))).toEqual([]);
  });

  it('context-compression/ai-sdk loads the AI SDK and never LangChain', () => {
    const packages = runtimePackages('adapters/ai-sdk/index.ts');
    expect(packages.has('ai')).toBe(true);
    expect([...packages].filter((name) => name.includes('langchain'))).toEqual([]);
  });

  it('context-compression/langchain loads @langchain/core only: not the AI SDK, not langchain', () => {
    const packages = runtimePackages('adapters/langchain/index.ts');
    expect(packages.has('@langchain/core')).toBe(true);
    expect(packages.has('langchain')).toBe(false);
    expect([...packages].filter((name) => name === 'ai' || name.startsWith('@ai-sdk'))).toEqual([]);
  });
});
