/**
 * Section 12 of `npm run bench`: the edge build's counter (UTF-8 bytes, calibrated by the provider's usage) when every
 * call may reach a new instance, as an edge function's requests reach new isolates. Every fixture history is resent
 * call by call (each assistant turn a call, 16k window) to a provider that counts o200k, reports it as usage and
 * rejects a prompt over its window. The instances share one store (the state is found by content, as with Upstash);
 * "calibration not shared" hides the stored ratios from them, so each new instance starts from a ratio of 1, taking
 * bytes for tokens.
 */

import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { withContextCompression } from '../adapters/ai-sdk/index.js';
import { CACHE_READ_PRICE, CACHE_WRITE_PRICE, measurePrompt } from '../examples/lib/replay.js';
import { assistantTurns, fixturesDir, type SessionFile, toModelMessages } from '../examples/lib/session-file.js';
import { gptTokenizerCounter } from '../src/counting/gpt-tokenizer-counter.js';
import { commonPrefixTokens } from '../src/counting/prefix-tracker.js';
import type { TokenCounter } from '../src/counting/token-counter.js';
import { utf8BytesCounter } from '../src/counting/utf8-bytes-counter.js';
import { memoryStateStore, type StateStore } from '../src/persistence/state-store.js';
import { tooLongError } from '../test/helpers/strict-provider.js';
import { GENERIC_AGENT, genericAgentRuns } from './agents/generic-agent.js';
import { fixtureGroups } from './fixture-groups.js';

const WINDOW = 16_000;

interface Setup {
  readonly name: string;
  readonly counter: () => TokenCounter;
  /** Calls one instance serves before the next call reaches a new one. */
  readonly callsPerInstance: number;
  readonly sharedCalibration: boolean;
}

const SETUPS: readonly Setup[] = [
  { name: 'o200k, one instance', counter: gptTokenizerCounter, callsPerInstance: Infinity, sharedCalibration: true },
  { name: 'o200k, new instance per call', counter: gptTokenizerCounter, callsPerInstance: 1, sharedCalibration: true },
  { name: 'bytes, one instance', counter: utf8BytesCounter, callsPerInstance: Infinity, sharedCalibration: true },
  { name: 'bytes, new instance per call', counter: utf8BytesCounter, callsPerInstance: 1, sharedCalibration: false },
  { name: '  calibration shared', counter: utf8BytesCounter, callsPerInstance: 1, sharedCalibration: true },
  { name: 'bytes, new instance / 10 calls', counter: utf8BytesCounter, callsPerInstance: 10, sharedCalibration: false },
  { name: '  calibration shared', counter: utf8BytesCounter, callsPerInstance: 10, sharedCalibration: true },
];

interface Totals {
  calls: number;
  sent: number;
  cost: number;
  compressions: number;
  rejected: number;
}

/** The store as an instance sees it when calibration ratios are not shared: their keys read as absent. */
function withoutCalibration(store: StateStore): StateStore {
  const hidden = (key: string) => key.includes(':calibration:');
  return {
    get: (key) => (hidden(key) ? Promise.resolve(undefined) : store.get(key)),
    set: (key, value, options) => (hidden(key) ? Promise.resolve() : store.set(key, value, options)),
  };
}

/** A provider counting o200k: usage reports it, a prompt over the window is rejected as Anthropic words it. */
function o200kProvider(totals: Totals) {
  let previous: ReturnType<typeof measurePrompt> = [];
  return new MockLanguageModelV4({
    provider: 'anthropic.messages',
    modelId: 'edge-model',
    doGenerate: async ({ prompt }: { prompt: LanguageModelV4Prompt }) => {
      const measured = measurePrompt(prompt);
      const total = measured.reduce((sum, message) => sum + message.tokens, 0);
      if (total > WINDOW) {
        totals.rejected++;
        throw tooLongError('anthropic', total, WINDOW);
      }
      const cached = commonPrefixTokens(previous, measured);
      previous = measured;
      totals.sent += total;
      totals.cost += cached * CACHE_READ_PRICE + (total - cached) * CACHE_WRITE_PRICE;
      return {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total, noCache: total - cached, cacheRead: cached, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

async function replay(session: SessionFile, setup: Setup, totals: Totals): Promise<void> {
  const { instructions, messages } = toModelMessages(session);
  const provider = o200kProvider(totals);
  const shared = memoryStateStore();
  const store = setup.sharedCalibration ? shared : withoutCalibration(shared);
  const instance = () =>
    withContextCompression(provider, {
      contextWindow: WINDOW,
      tokenCounter: setup.counter(),
      store,
      // a new instance that finds a stored state reports the call that uses it; only new work is counted
      onCompress: (event) => {
        if (!event.reusedState) totals.compressions++;
      },
    });
  let model = instance();
  let served = 0;
  for (const end of assistantTurns(messages)) {
    if (served === setup.callsPerInstance) {
      model = instance();
      served = 0;
    }
    served++;
    totals.calls++;
    try {
      await generateText({ model, instructions, messages: messages.slice(0, end), maxRetries: 0 });
    } catch {
      // counted by the provider as a rejection
    }
  }
}

export async function edgeInstances(): Promise<void> {
  // the generated agent (pretty-printed JSON records among its outputs) runs where the public data is absent
  const dir = fixturesDir();
  if (!dir)
    console.log('\n12. Edge instances: ../shared/fixtures is not beside this checkout, the generated agent only');
  const groups = dir ? fixtureGroups(dir, (source) => source.split('/')[0] ?? 'unknown') : new Map();
  groups.set(GENERIC_AGENT, genericAgentRuns());
  console.log(
    `\n12. Edge instances: the UTF-8 bytes counter when calls reach new instances (${WINDOW / 1000}k window, a provider counting o200k; one shared store)`,
  );
  console.log(
    `   sent: the provider's input tokens; cost: cache-priced (prefix shared with the call before at ${CACHE_READ_PRICE}x, the rest ${CACHE_WRITE_PRICE}x), relative to o200k on one instance`,
  );
  console.log(
    `   ${'source'.padEnd(16)} ${'setup'.padEnd(32)} ${'calls'.padStart(6)} ${'sent'.padStart(11)} ${'cost'.padStart(7)} ${'compressions'.padStart(13)} ${'rejected'.padStart(9)}`,
  );
  for (const [name, sessions] of groups) {
    let reference = 0;
    for (const setup of SETUPS) {
      const totals: Totals = { calls: 0, sent: 0, cost: 0, compressions: 0, rejected: 0 };
      for (const session of sessions) await replay(session, setup, totals);
      if (reference === 0) reference = totals.cost;
      console.log(
        `   ${name.padEnd(16)} ${setup.name.padEnd(32)} ${String(totals.calls).padStart(6)} ${totals.sent.toLocaleString('en-US').padStart(11)} ${`${(totals.cost / reference).toFixed(2)}x`.padStart(7)} ${String(totals.compressions).padStart(13)} ${String(totals.rejected).padStart(9)}`,
      );
    }
  }
}
