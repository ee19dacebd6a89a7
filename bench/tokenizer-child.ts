/**
 * One tokenizer measured in a process of its own, so its load is cold: `tsx bench/tokenizer-child.ts <name> <corpus>`
 * prints JSON with the load and count times, the memory growth and the count of every text; with a third argument,
 * the name of a long run, it prints the milliseconds (and the tokens) of counting that run once the tokenizer is loaded.
 */
import { readFileSync } from 'node:fs';
import { countInChunks } from '../src/counting/count-in-chunks.js';
import { gptTokenizerCounter } from '../src/counting/gpt-tokenizer-counter.js';
import { tiktokenCounter } from '../src/counting/tiktoken-counter.js';
import { approximateCounter } from '../src/counting/token-counter.js';

/** Loads a tokenizer from nothing and returns its count function, chunked as the project's counters chunk. */
async function load(name: string): Promise<(text: string) => number> {
  if (name === 'tiktoken') return tiktokenCounter().count;
  if (name === 'approximate') return approximateCounter().count;
  if (name === 'gpt-tokenizer') {
    const counter = gptTokenizerCounter();
    await counter.load?.();
    return counter.count;
  }
  const { Tiktoken } = await import('js-tiktoken/lite');
  const { default: ranks } = await import('js-tiktoken/ranks/o200k_base');
  const encoder = new Tiktoken(ranks);
  return (text) => countInChunks(text, (chunk) => encoder.encode(chunk, [], []).length);
}

const [name = '', corpusPath = '', run] = process.argv.slice(2);
const corpus = JSON.parse(readFileSync(corpusPath, 'utf8')) as { texts: string[]; runs: Record<string, string> };
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

if (run !== undefined) {
  const count = await load(name);
  const started = performance.now();
  const tokens = count(corpus.runs[run] ?? '');
  process.stdout.write(JSON.stringify({ ms: performance.now() - started, tokens }));
} else {
  gc();
  const before = process.memoryUsage();
  const coldStart = performance.now();
  const count = await load(name);
  const counts = corpus.texts.map(count);
  const coldMs = performance.now() - coldStart;
  gc();
  const after = process.memoryUsage();
  const warmStart = performance.now();
  for (const text of corpus.texts) count(text);
  const warmMs = performance.now() - warmStart;
  const memory = { rssMb: (after.rss - before.rss) / 1e6, heapMb: (after.heapUsed - before.heapUsed) / 1e6 };
  process.stdout.write(JSON.stringify({ coldMs, warmMs, ...memory, counts }));
}
