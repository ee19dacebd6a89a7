/**
 * Section 1 of `npm run bench`: what the AI SDK middleware costs per call on real agent histories (the fixture
 * trajectories one after another), as a server gets them: every request parsed into new objects, or an agent loop
 * passing the same objects again. Each figure is set beside what a server spends anyway, or would without it.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { get_encoding } from 'tiktoken';
import { contextCompression } from '../adapters/ai-sdk/index.js';
import type { SessionFile } from '../examples/lib/session-file.js';
import { countInChunks } from '../src/counting/count-in-chunks.js';
import { gptTokenizerCounter } from '../src/counting/gpt-tokenizer-counter.js';
import { agentHistory, promptTexts, sessionPrompts } from './agent-history.js';
import { langChainOverhead } from './langchain-overhead.js';
import { format, ms, percentile, ratio } from './stats.js';
import { toolLoop } from './tool-loop.js';

const model = new MockLanguageModelV4({ modelId: 'bench-model' });
/** Large enough that nothing must be folded, even at 5,500 messages (~1.5M tokens). */
const NO_FOLD_WINDOW = 4_000_000;
/** Small enough that the 1,000-message history folds every few dozen calls. */
const FOLD_WINDOW = 64_000;
const WARM_UP_CALLS = 20;

type Middleware = ReturnType<typeof contextCompression>;

async function transform(middleware: Middleware, prompt: LanguageModelV4Prompt): Promise<number> {
  const params: LanguageModelV4CallOptions = { prompt };
  const started = performance.now();
  await middleware.transformParams?.({ type: 'generate', params, model });
  return performance.now() - started;
}

/** The JSON of the history's first messages, joined from each message's JSON: the same text as JSON.stringify. */
function requestBodies(history: LanguageModelV4Prompt): (end: number) => string {
  const messages = history.map((message) => JSON.stringify(message));
  return (end) => `[${messages.slice(0, end).join(',')}]`;
}

/** A middleware that records whether the last call reported a compression. */
function watched(contextWindow: number): { middleware: Middleware; compressed: () => boolean } {
  let compressed = false;
  const middleware = contextCompression({ contextWindow, onCompress: () => (compressed = true) });
  const wrapped: Middleware = {
    ...middleware,
    transformParams: async (options) => {
      compressed = false;
      return (await middleware.transformParams?.(options)) ?? options.params;
    },
  };
  return { middleware: wrapped, compressed: () => compressed };
}

/** The first call of a conversation on the 1,000-message history, against building a tiktoken encoder to count it. */
async function firstCall(history: LanguageModelV4Prompt, when: string): Promise<void> {
  const prompt = JSON.parse(JSON.stringify(history)) as LanguageModelV4Prompt;
  const started = performance.now();
  await transform(contextCompression({ contextWindow: NO_FOLD_WINDOW }), prompt);
  const firstMs = performance.now() - started;
  const texts = promptTexts(history);
  const encodingStarted = performance.now();
  const encoding = get_encoding('o200k_base');
  for (const text of texts) countInChunks(text, (chunk) => encoding.encode(chunk, [], []).length);
  const tiktokenMs = performance.now() - encodingStarted;
  encoding.free();
  console.log(
    `   first call of a conversation, ${when}: create the middleware and call it ${ms(firstMs)}; tiktoken get_encoding + counting the same texts once ${ms(tiktokenMs)}; ${ratio(firstMs, tiktokenMs)} (target <= 0.80x)`,
  );
}

/** Per-call times with one new message per call after a first call and a warm-up, nothing to fold. */
async function steadyState(history: LanguageModelV4Prompt, base: number, calls: number, label = ''): Promise<void> {
  const body = requestBodies(history);
  const parses: number[] = [];
  const figures: string[] = [];
  for (const freshObjects of [true, false]) {
    const { middleware, compressed } = watched(NO_FOLD_WINDOW);
    // a server parses the first request too: with fresh objects every call's history is parsed JSON
    await transform(
      middleware,
      freshObjects ? (JSON.parse(body(base)) as LanguageModelV4Prompt) : history.slice(0, base),
    );
    const steady: number[] = [];
    let compressing = 0;
    for (let call = -WARM_UP_CALLS; call < calls; call++) {
      const end = base + WARM_UP_CALLS + call + 1;
      let prompt = history.slice(0, end);
      if (freshObjects) {
        const json = body(end);
        const started = performance.now();
        prompt = JSON.parse(json) as LanguageModelV4Prompt;
        if (call >= 0) parses.push(performance.now() - started);
      }
      const elapsed = await transform(middleware, prompt);
      if (call < 0) continue;
      if (compressed()) compressing++;
      else steady.push(elapsed);
    }
    figures.push(
      `     ${freshObjects ? 'fresh objects (JSON.parse of the request)' : 'reused objects (same as the last call)'}: median ${ms(percentile(steady, 0.5))}, p95 ${ms(percentile(steady, 0.95))} over ${steady.length} calls${compressing ? ` (${compressing} compressing calls left out)` : ''}; ${ratio(percentile(steady, 0.5), percentile(parses, 0.5))} JSON.parse`,
    );
  }
  const counter = gptTokenizerCounter();
  const tokens = promptTexts(history.slice(0, base)).reduce((sum, text) => sum + counter.count(text), 0);
  console.log(
    `   ${label}${format(base - 1)} messages and the system prompt (${format(tokens)} tokens), one new message per call; JSON.parse of the same request: median ${ms(percentile(parses, 0.5))}`,
  );
  for (const figure of figures) console.log(figure);
}

/** The call that repeats a request right after a compression (a retry, another instance): it finds the stored state. */
async function afterCompression(history: LanguageModelV4Prompt): Promise<void> {
  const body = requestBodies(history);
  const { middleware, compressed } = watched(FOLD_WINDOW);
  const compressing: number[] = [];
  const repeats: number[] = [];
  let compressedAgain = 0;
  for (let end = 200; repeats.length < 20 && end <= history.length; end++) {
    const elapsed = await transform(middleware, JSON.parse(body(end)));
    if (!compressed()) continue;
    compressing.push(elapsed);
    repeats.push(await transform(middleware, JSON.parse(body(end))));
    if (compressed()) compressedAgain++;
  }
  console.log(
    `   right after a compression (${FOLD_WINDOW / 1000}k window, fresh objects): the same request again: median ${ms(percentile(repeats, 0.5))}, p95 ${ms(percentile(repeats, 0.95))} over ${repeats.length}, ${compressedAgain} compressed again; the compressing calls: median ${ms(percentile(compressing, 0.5))}`,
  );
}

/** Heap after 100, 250 and 500 calls at 5,000 messages with fresh objects, after a full collection each time. */
async function heap(history: LanguageModelV4Prompt, base: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    console.log('   heap: skipped, global.gc is missing (run node with --expose-gc, as npm run bench does)');
    return;
  }
  const body = requestBodies(history);
  const middleware = contextCompression({ contextWindow: NO_FOLD_WINDOW });
  await transform(middleware, JSON.parse(body(base)) as LanguageModelV4Prompt);
  const used = new Map<number, number>();
  for (let call = 1; call <= 500; call++) {
    await transform(middleware, JSON.parse(body(base + call)));
    if (call === 100 || call === 250 || call === 500) {
      gc();
      used.set(call, process.memoryUsage().heapUsed);
    }
  }
  const mb = (call: number) => (used.get(call) ?? 0) / 1e6;
  const growth = (mb(500) - mb(100)) / mb(100);
  const appendedKb = (body(base + 500).length - body(base + 100).length) / 400 / 1e3;
  console.log(
    `   heap used at ${format(base - 1)} messages, fresh objects: ${mb(100).toFixed(2)} / ${mb(250).toFixed(2)} / ${mb(500).toFixed(2)} MB after 100 / 250 / 500 calls: ${Math.abs(growth) < 0.05 ? 'flat' : 'not flat'}, ${(growth * 100).toFixed(2)}% from 100 to 500 calls, ${(((mb(500) - mb(100)) / 400) * 1e3).toFixed(2)} KB a call (each call appends a message of ${appendedKb.toFixed(2)} KB of JSON on average)`,
  );
}

export async function overhead(sessions: readonly SessionFile[]): Promise<void> {
  const prompts = await sessionPrompts(sessions);
  const history = agentHistory(prompts, 5_500);
  console.log(
    `1. Overhead per call of the AI SDK middleware (transformParams, defaults) on the ${sessions.length} fixture trajectories one after another`,
  );
  await firstCall(history.slice(0, 1_001), 'first in the process (loads the tokenizer, JIT cold)');
  await steadyState(history, 1_001, 100);
  await steadyState(history, 5_001, 50);
  // per source: each agent's own tool formats, its runs one after another (again from the first when they run out)
  for (const source of [...new Set(sessions.map((session) => session.source))]) {
    const own = prompts.filter((_prompt, index) => sessions[index]?.source === source);
    await steadyState(agentHistory(own, 1_100), 1_001, 50, `${source} only: `);
  }
  await afterCompression(history.slice(0, 1_001));
  await heap(history, 5_001);
  await firstCall(history.slice(0, 1_001), 'on a warm server (after the runs above)');
  const toolText = prompts
    .flatMap((prompt) => prompt.flatMap((message) => (message.role === 'tool' ? promptTexts([message]) : [])))
    .join('\n');
  const system = prompts[0]?.[0];
  await toolLoop(system?.role === 'system' ? system.content : '', 'Find why the nightly job fails.', toolText);
  console.log('\n   LangChain createAgent middleware, the same 1,000 messages, one new message per call');
  await langChainOverhead(history.slice(0, 1_001), percentile);
}
