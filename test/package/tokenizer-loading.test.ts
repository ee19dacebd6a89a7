/**
 * Importing the package loads no tokenizer: a 5.6 MB WASM or a 2.4 MB rank table at import time slows every cold
 * start and breaks bundles that never count with it. Each case runs in a fresh Node process that records the
 * tokenizer modules it loads, through ESM resolution (a loader hook) and the CommonJS module cache.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const TOKENIZER = /node_modules\/(tiktoken|gpt-tokenizer)\//;

const HOOK = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  writeSync(2, 'loaded ' + result.url + '\\n');
  return result;
}`;

/** The tokenizer packages a fresh process loads while it imports `entry` and then runs `then` on its exports. */
function tokenizersLoaded(entry: string, then = ''): string[] {
  const script = `
import { createRequire, register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
const entry = await import(${JSON.stringify(pathToFileURL(resolve(root, entry)).href)});
${then}
for (const path of Object.keys(createRequire(import.meta.url).cache)) process.stderr.write('loaded ' + path + '\\n');
`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`the child process failed:\n${child.stderr}`);
  const packages = new Set<string>();
  for (const line of child.stderr.split('\n')) {
    const match = line.startsWith('loaded ') ? TOKENIZER.exec(line) : null;
    if (match?.[1]) packages.add(match[1]);
  }
  return [...packages].sort();
}

describe('tokenizers load on first use, never at import', () => {
  it.each(['src/index.ts', 'src/advanced.ts', 'adapters/ai-sdk/index.ts', 'adapters/langchain/index.ts'])(
    'importing %s loads no tokenizer',
    (entry) => {
      expect(tokenizersLoaded(entry)).toEqual([]);
    },
  );

  it('the default counter loads gpt-tokenizer when it first counts, and never tiktoken', () => {
    expect(tokenizersLoaded('src/index.ts', 'entry.gptTokenizerCounter().count("hello world");')).toEqual([
      'gpt-tokenizer',
    ]);
  });

  it('the engine loads the default counter before its first call', () => {
    const call = `
const engine = new entry.CompressionEngine({ contextWindow: 100_000 });
await engine.compress({ transcript: { system: [], tools: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }, modelId: 'm' });`;
    expect(tokenizersLoaded('src/advanced.ts', call)).toEqual(['gpt-tokenizer']);
  });

  it('tiktokenCounter() loads tiktoken', () => {
    expect(tokenizersLoaded('src/index.ts', 'entry.tiktokenCounter().count("hello world");')).toEqual(['tiktoken']);
  });
});
