import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { type CompressEvent, modelSummarizer, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { approximateCounter } from '../../../src/counting/token-counter.js';
import { echoModel, textResult } from '../../helpers/mock-model.js';

const counter = approximateCounter();
const WINDOW = 4_096;
/** Tokens of the window a summarizer call may fill, a quarter (1024) kept for its answer. */
const READABLE = WINDOW - 1_024;

const chat = (turns: number): ModelMessage[] =>
  Array.from({ length: turns }, (_, index) =>
    index % 2 === 0
      ? { role: 'user' as const, content: `Question ${index}: FACT-${index} holds. ${'details '.repeat(90)}` }
      : { role: 'assistant' as const, content: `Answer ${index}: FACT-${index} noted. ${'details '.repeat(90)}` },
  );

/** All the text of a prompt: system, user and assistant texts. */
const promptText = ({ prompt }: LanguageModelV4CallOptions) =>
  prompt
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => ('text' in part ? part.text : '')).join('\n'),
    )
    .join('\n');

describe('a model summarizer with a window smaller than the fold (AI SDK)', () => {
  it('is called once per chunk, each prompt within its window, and the state keeps the first and last facts', async () => {
    const prompts: number[] = [];
    const summarizer = new MockLanguageModelV4({
      modelId: 'mock-summarizer',
      doGenerate: async (options) => {
        const text = promptText(options);
        prompts.push(counter.count(text));
        // keeps every fact it reads, those of its previous memory included
        const facts = [...new Set(text.match(/FACT-\d+/g) ?? [])];
        const state = { logos: facts.map((fact) => `${fact} holds.`), pathos: [], abstract: [], salience: [] };
        return textResult(JSON.stringify({ ...state, conversationSummary: `${facts.length} facts so far.` }));
      },
    });
    const events: CompressEvent[] = [];
    const main = echoModel();
    const model = withContextCompression(main, {
      contextWindow: 16_000,
      reserveOutputTokens: 1_000,
      compressTo: 0.1,
      tokenCounter: counter,
      summarizer,
      summarizerContextWindow: WINDOW,
      // the fold made by the call that crosses the threshold, its summary waited for
      summarizeAhead: false,
      onCompress: (event) => events.push(event),
    });
    await generateText({ model, messages: chat(61) });
    const folded = events[0]?.messagesFolded ?? 0;
    expect(folded).toBeGreaterThan(30);
    expect(summarizer.doGenerateCalls.length).toBeGreaterThanOrEqual(3);
    expect(events[0]?.summarizerCalls).toBe(summarizer.doGenerateCalls.length);
    expect(Math.max(...prompts)).toBeLessThanOrEqual(READABLE);
    const first = main.doGenerateCalls[0]?.prompt.find((message) => message.role === 'user');
    const stateMessage = first?.role === 'user' && first.content[0]?.type === 'text' ? first.content[0].text : '';
    expect(stateMessage).toContain('<session_state>');
    expect(stateMessage).toContain('FACT-0 holds.');
    expect(stateMessage).toContain(`FACT-${folded - 1} holds.`);
  });
});

describe('modelSummarizer', () => {
  it('declares the window of its model, looked up from the model id, and its fixed prompt', () => {
    expect(modelSummarizer(new MockLanguageModelV4({ modelId: 'gpt-4o-mini' })).contextWindow).toBe(128_000);
    expect(modelSummarizer(new MockLanguageModelV4({ modelId: 'my-finetune' })).contextWindow).toBeUndefined();
    const own = modelSummarizer(new MockLanguageModelV4({ modelId: 'gpt-4o-mini' }), {
      contextWindow: 8_000,
      instructions: 'Summarize.',
    });
    expect(own.contextWindow).toBe(8_000);
    expect(own.fixedPrompt).toContain('Summarize.');
    expect(own.fixedPrompt).not.toContain('{messages}');
  });
});
