import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';

/** One row of the concurrency table: parallel calls of one conversation on a store of some latency. */
export interface ConcurrencyRow {
  readonly storeLatency: string;
  readonly parallelCalls: number;
  readonly summarizerCalls: number;
  readonly distinctPrompts: number;
  /** Of two conversations sharing their first message, folded at once: how many a fresh engine finds stored. */
  readonly sharedPrefixFound: number;
}

const chat = (count: number, tag = ''): Message[] =>
  Array.from({ length: count }, (_, index) => ({
    role: index % 2 ? 'assistant' : 'user',
    parts: [{ type: 'text', text: `${index === 0 ? '' : tag}Message ${index}: ${'word '.repeat(40)}` }],
  }));

function latentStore(delay: (() => Promise<void>) | undefined): StateStore {
  const inner = memoryStateStore();
  if (!delay) return inner;
  return {
    get: async (key) => {
      await delay();
      return inner.get(key);
    },
    set: async (key, value, options) => {
      await delay();
      await inner.set(key, value, options);
    },
  };
}

async function measure(storeLatency: string, delay: (() => Promise<void>) | undefined): Promise<ConcurrencyRow> {
  let summarizerCalls = 0;
  const store = latentStore(delay);
  const engine = (counting: boolean) =>
    new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      store,
      // a different text on every call: parallel prompts would differ if each call summarized
      summarizer: async ({ messages }): Promise<SessionState> => {
        if (counting) summarizerCalls++;
        return {
          logos: [`${messages.length} folded ${Math.random()}`],
          pathos: [],
          abstract: [],
          conversationSummary: '',
        };
      },
    });
  const first = engine(true);
  const run = (target: CompressionEngine, messages: Message[]) =>
    target.compress({
      transcript: { system: [], tools: [], messages: messages.map((message) => ({ ...message })) },
      modelId: 'm',
    });
  const parallelCalls = 20;
  const outs = await Promise.all(Array.from({ length: parallelCalls }, () => run(first, chat(51))));
  const distinctPrompts = new Set(outs.map((out) => JSON.stringify(out.messages.map(messageText)))).size;
  await Promise.all([run(first, chat(51, 'a ')), run(first, chat(51, 'b '))]);
  const fresh = engine(false);
  const again = await Promise.all([run(fresh, chat(51, 'a ')), run(fresh, chat(51, 'b '))]);
  const sharedPrefixFound = again.filter((out) => out.event === undefined || out.event.reusedState).length;
  return { storeLatency, parallelCalls, summarizerCalls, distinctPrompts, sharedPrefixFound };
}

/** The concurrency table: memory store, one microtask, one macrotask, 5 ms and 50 ms per operation. */
export async function concurrencyRows(): Promise<ConcurrencyRow[]> {
  const wait = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));
  return [
    await measure('none (memory store)', undefined),
    await measure('a microtask', () => Promise.resolve()),
    await measure('a timer tick', wait(0)),
    await measure('5 ms', wait(5)),
    await measure('50 ms', wait(50)),
  ];
}
