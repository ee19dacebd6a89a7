import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { StateStore } from '../../src/persistence/state-store.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';
import { SYSTEM } from '../helpers/fixtures.js';

/** A branch of one conversation: the same first two messages, then messages of its own (an edit, a regeneration). */
export function branch(name: string, turns = 30, shared = 2): Message[] {
  return Array.from({ length: turns * 2 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    parts: [
      {
        type: 'text',
        text:
          index < shared
            ? `Shared ${index}: ${'the common ground of every branch '.repeat(12)}`
            : `Branch ${name}, turn ${index}: ${'a detail worth keeping '.repeat(30)}`,
      },
    ],
  }));
}

/**
 * The store as a network makes it: every operation waits a turn of the event loop first, so the operations of
 * concurrent writers interleave as they do over a socket. The store's optional methods are passed on when it has them.
 */
export function overTheNetwork(store: StateStore): StateStore {
  const later = () => new Promise((resolve) => setImmediate(resolve));
  const wrapped: StateStore = {
    get: (key) => later().then(() => store.get(key)),
    set: (key, value, options) => later().then(() => store.set(key, value, options)),
  };
  const { setIfAbsent, delete: remove, compareAndSet } = store;
  if (setIfAbsent) wrapped.setIfAbsent = (...args) => later().then(() => setIfAbsent.apply(store, args));
  if (remove) wrapped.delete = (key) => later().then(() => remove.call(store, key));
  if (compareAndSet) wrapped.compareAndSet = (...args) => later().then(() => compareAndSet.apply(store, args));
  return wrapped;
}

/**
 * Folds `branches` at once, each by an engine of its own on the store `storeOf` gives (the same object: engines of one
 * process; a new one each time: instances sharing only the backend), then replays each with a new engine: the messages each fold and each replay folded, and the summarizer calls of both. A
 * replay that found its branch's record folds nothing (one that did not folds again, from the fold's shared result
 * where the store keeps one, else by a summarizer call).
 */
export async function foldBranchesAtOnce(
  storeOf: () => StateStore,
  branches: readonly (readonly Message[])[],
  namespace: string,
): Promise<{ folded: number[]; summarized: number; foldedAgain: number[]; summarizedAgain: number }> {
  let calls = 0;
  const engine = () =>
    new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      store: storeOf(),
      namespace,
      summarizer: async ({ messages }): Promise<SessionState> => {
        calls++;
        return { logos: [`${messages.length} messages`], pathos: [], abstract: [], conversationSummary: 'so far' };
      },
    });
  const send = (messages: readonly Message[]) =>
    engine().compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });
  const made = await Promise.all(branches.map(send));
  const summarized = calls;
  calls = 0;
  const foldedAgain: number[] = [];
  for (const messages of branches) foldedAgain.push((await send(messages)).event?.messagesFolded ?? 0);
  const folded = made.map((output) => output.event?.messagesFolded ?? 0);
  return { folded, summarized, foldedAgain, summarizedAgain: calls };
}
