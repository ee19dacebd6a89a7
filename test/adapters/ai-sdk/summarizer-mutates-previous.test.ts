import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { type CompressionErrorEvent, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { approximateCounter } from '../../../src/counting/token-counter.js';
import type { StateStore } from '../../../src/persistence/state-store.js';
import type { SessionState } from '../../../src/session-state/session-state.js';
import type { SummarizeInput } from '../../../src/summarizers/summarizer.js';
import { echoModel } from '../../helpers/mock-model.js';

const options = { contextWindow: 4_000, reserveOutputTokens: 500, tokenCounter: approximateCounter() };
const MARK = 'MUTATED-BY-SUMMARIZER';

function chat(turns: number): ModelMessage[] {
  return Array.from({ length: turns }, (_, index) =>
    index % 2 === 0
      ? { role: 'user' as const, content: `Question ${index}: order ORD-${1000 + index}. ${'details '.repeat(40)}` }
      : { role: 'assistant' as const, content: `Answer ${index}: noted. ${'details '.repeat(40)}` },
  );
}

const stateText = (prompt: LanguageModelV4Prompt | undefined) => {
  const first = prompt?.find((message) => message.role !== 'system');
  return first?.role === 'user' && first.content[0]?.type === 'text' ? first.content[0].text : '';
};

/**
 * Ways a summarizer may change `previous` in place, each tried on its second fold: a summarizer gets its own copy of
 * the state (stored states are deep-frozen and shared), so each works and none reaches the stored state.
 */
const mutations: Array<[string, (previous: SessionState) => void]> = [
  [
    'pushes into logos',
    (previous) => {
      previous.logos.push(MARK);
    },
  ],
  [
    'rewrites an entry',
    (previous) => {
      previous.logos[0] = MARK;
    },
  ],
  [
    'empties pathos',
    (previous) => {
      previous.pathos.splice(0, previous.pathos.length, MARK);
    },
  ],
  [
    'sets the summary',
    (previous) => {
      previous.conversationSummary = MARK;
    },
  ],
];

describe.each(mutations)('a summarizer that %s of its previous state', (_name, mutate) => {
  it('changes neither the stored state nor later prompts, and never fails the call', async () => {
    let calls = 0;
    let threw: unknown;
    const summarizer = ({ messages, previous }: SummarizeInput): SessionState => {
      calls++;
      const before: SessionState | undefined = previous && structuredClone(previous);
      if (calls === 2 && previous) {
        try {
          mutate(previous);
        } catch (error) {
          threw = error;
          throw error;
        }
      }
      return {
        logos: [...(before?.logos ?? []), `fold ${calls} of ${messages.length} messages`],
        pathos: [...(before?.pathos ?? []), `tone ${calls}`],
        abstract: [],
        conversationSummary: `Summary after fold ${calls}.`,
      };
    };
    const errors: CompressionErrorEvent[] = [];
    // a store that keeps the very objects it is given, as the memory store does, and lets the test read them
    const values = new Map<string, unknown>();
    const store: StateStore = {
      get: async (key) => values.get(key),
      set: async (key, value) => void values.set(key, value),
    };
    const mock = echoModel();
    const model = withContextCompression(mock, {
      ...options,
      summarizer,
      store,
      onError: (event) => errors.push(event),
    });

    // grow the conversation until the summarizer was called three times
    const sent = new Map<number, string>();
    for (let turns = 11; calls < 3 && turns < 200; turns += 2) {
      await generateText({ model, messages: chat(turns) });
      sent.set(turns, stateText(mock.doGenerateCalls.at(-1)?.prompt));
    }
    expect(calls).toBe(3);
    // every state sent, before and after the mutation, is free of it
    for (const text of sent.values()) expect(text).not.toContain(MARK);

    // resending every earlier request (found in the store) sends no mutated state either
    for (const turns of sent.keys()) {
      await generateText({ model, messages: chat(turns) });
      expect(stateText(mock.doGenerateCalls.at(-1)?.prompt)).not.toContain(MARK);
    }
    // and the stored records themselves were never changed
    expect(values.size).toBeGreaterThan(0);
    for (const value of values.values()) expect(JSON.stringify(value)).not.toContain(MARK);

    expect(threw).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
