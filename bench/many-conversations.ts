/**
 * Section 7 of `npm run bench`: one process serving many conversations at once, as a chat server does. 5,000
 * conversations of 20 turns each go through one AI SDK middleware (one engine), turn by turn across all of them, every
 * call with new message objects (a server parses each request). Reports the engine's heap after garbage collection at
 * each 1,000 conversations of the last turn (what stays per conversation once the caches are full) and the p50 / p99
 * time of a call per block of turns (whether it stays flat as the conversations grow and the caches evict).
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { contextCompression } from '../adapters/ai-sdk/index.js';
import { format, ms, percentile } from './stats.js';

const CONVERSATIONS = 5_000;
const TURNS = 20;
/** Large enough that nothing is folded: the figures are those of the steady path every chat call takes. */
const WINDOW = 128_000;

const model = new MockLanguageModelV4({ modelId: 'bench-model' });

/** The JSON of conversation `index` after `turns` user messages (its last message is the new user message). */
function requestBody(texts: readonly string[], index: number, turns: number): string {
  const prompt: LanguageModelV4Prompt = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (let turn = 0; turn < turns; turn++) {
    const text = (offset: number) => texts[(index * 37 + turn * 2 + offset) % texts.length] ?? '';
    // the first message names its conversation, so no two conversations share a history
    const user = turn === 0 ? `Conversation ${index}. ${text(0)}` : text(0);
    prompt.push({ role: 'user', content: [{ type: 'text', text: user }] });
    if (turn < turns - 1) prompt.push({ role: 'assistant', content: [{ type: 'text', text: text(1) }] });
  }
  return JSON.stringify(prompt);
}

export async function manyConversations(texts: readonly string[]): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  console.log(
    `7. ${format(CONVERSATIONS)} conversations of ${TURNS} turns in one process, one middleware, turn by turn across all of them, new objects every call (${format(WINDOW)}-token window, nothing folded)`,
  );
  gc?.();
  const baseline = process.memoryUsage().heapUsed;
  const middleware = contextCompression({ contextWindow: WINDOW });
  const blocks: { turns: string; times: number[] }[] = [];
  const heapAt: number[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const times: number[] = [];
    for (let index = 0; index < CONVERSATIONS; index++) {
      const params: LanguageModelV4CallOptions = {
        prompt: JSON.parse(requestBody(texts, index, turn)) as LanguageModelV4Prompt,
      };
      const started = performance.now();
      await middleware.transformParams?.({ type: 'generate', params, model });
      times.push(performance.now() - started);
      if (turn === TURNS && gc && (index + 1) % 1_000 === 0) {
        gc();
        heapAt.push(process.memoryUsage().heapUsed - baseline);
      }
    }
    if ((turn - 1) % 5 === 0) blocks.push({ turns: `${turn}-${Math.min(TURNS, turn + 4)}`, times: [] });
    blocks.at(-1)?.times.push(...times);
  }
  for (const block of blocks) {
    console.log(
      `   turns ${block.turns.padEnd(5)}: p50 ${ms(percentile(block.times, 0.5))}, p99 ${ms(percentile(block.times, 0.99))} over ${format(block.times.length)} calls`,
    );
  }
  if (heapAt.length === 0) {
    console.log('   heap: skipped, global.gc is missing (run node with --expose-gc, as npm run bench does)');
    return;
  }
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  const first = heapAt[0] ?? 0;
  const last = heapAt.at(-1) ?? 0;
  const growth = (last - first) / first;
  console.log(
    `   heap over the process's start (the tokenizer's encoder included), last turn, after ${heapAt.map((_bytes, index) => format((index + 1) * 1_000)).join(' / ')} conversations: ${heapAt.map(mb).join(' / ')} MB: ${Math.abs(growth) < 0.05 ? 'flat (the caches are full and evict)' : 'growing'}, ${(growth * 100).toFixed(1)}% from ${format(1_000)} to ${format(CONVERSATIONS)} conversations`,
  );
}
