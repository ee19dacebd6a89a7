/**
 * A first call, or a count, in a process of its own so every load is cold, for section 8 of `npm run bench`:
 * `tsx bench/first-call-child.ts engine <input.json>` imports the AI SDK adapter (the built package when `dist/` holds
 * it, as users import it, else the sources), creates the middleware and makes its first call on the input's prompt;
 * `tsx bench/first-call-child.ts tiktoken <input.json>` imports tiktoken, builds the o200k_base encoder and counts
 * every text of the input once. Either prints JSON with the milliseconds from the dynamic import to the end of the
 * work, and of the import alone. The input file is read and parsed before the timing, and the AI SDK itself (`ai`) is
 * loaded before it too, as a server that calls the middleware has it loaded already.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { countInChunks } from '../src/counting/count-in-chunks.js';

/** What the parent writes to the input file. */
export interface FirstCallInput {
  prompt: LanguageModelV4Prompt;
  /** Every text a tokenizer reads in the prompt (`promptTexts`). */
  texts: string[];
  contextWindow: number;
}

/** What the child prints: milliseconds in all, and of the import (for tiktoken with building the encoder). */
export interface FirstCallOutput {
  ms: number;
  loadMs: number;
  /** Whether the adapter came from the built package (`dist/`), as users import it, or from the sources through tsx. */
  built?: boolean;
}

/** The built adapter when `npm run build` made it, else the TypeScript sources (compiled on import by tsx). */
function adapterSpecifier(): { specifier: string; built: boolean } {
  const built = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/ai-sdk.js');
  return existsSync(built)
    ? { specifier: pathToFileURL(built).href, built: true }
    : { specifier: '../adapters/ai-sdk/index.js', built: false };
}

/** From importing the adapter to the end of the first call of a new middleware (the tokenizer loads in the call). */
async function engineFirstCall(input: FirstCallInput): Promise<FirstCallOutput> {
  await import('ai');
  const model = new MockLanguageModelV4({ modelId: 'bench-model' });
  const { specifier, built } = adapterSpecifier();
  const started = performance.now();
  const { contextCompression } = (await import(specifier)) as typeof import('../adapters/ai-sdk/index.js');
  const loadMs = performance.now() - started;
  const middleware = contextCompression({ contextWindow: input.contextWindow });
  await middleware.transformParams?.({ type: 'generate', params: { prompt: input.prompt }, model });
  return { ms: performance.now() - started, loadMs, built };
}

/** From importing tiktoken to the end of counting every text once, in the project's chunks. */
async function tiktokenCount(input: FirstCallInput): Promise<FirstCallOutput> {
  const started = performance.now();
  const { get_encoding } = await import('tiktoken');
  const encoding = get_encoding('o200k_base');
  const loadMs = performance.now() - started;
  for (const text of input.texts) countInChunks(text, (chunk) => encoding.encode(chunk, [], []).length);
  const ms = performance.now() - started;
  encoding.free();
  return { ms, loadMs };
}

const [mode = '', inputPath = ''] = process.argv.slice(2);
const input = JSON.parse(readFileSync(inputPath, 'utf8')) as FirstCallInput;
if (mode !== 'engine' && mode !== 'tiktoken') throw new Error(`unknown mode ${mode}: engine or tiktoken`);
const output = mode === 'engine' ? await engineFirstCall(input) : await tiktokenCount(input);
process.stdout.write(JSON.stringify(output));
