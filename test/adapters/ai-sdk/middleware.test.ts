import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, isStepCount, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  approximateCounter,
  type CompressEvent,
  contextCompression,
  InvalidOptionError,
  modelSummarizer,
  type SessionState,
  UnknownContextWindowError,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../../adapters/ai-sdk/to-transcript.js';
import { findPairingProblems } from '../../../src/advanced.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../../src/index.js';
import { echoModel, textResult } from '../../helpers/mock-model.js';

const counter = approximateCounter();
const options = { contextWindow: 4_000, reserveOutputTokens: 500, tokenCounter: counter };

function chat(turns: number, filler = 'details '.repeat(40)): ModelMessage[] {
  return Array.from({ length: turns }, (_, index) =>
    index % 2 === 0
      ? { role: 'user' as const, content: `Question ${index}: order ORD-${1000 + index} ships to Berlin. ${filler}` }
      : { role: 'assistant' as const, content: `Answer ${index}: noted for ORD-${999 + index}. ${filler}` },
  );
}

const stateText = (prompt: LanguageModelV4Prompt) => {
  const first = prompt.find((message) => message.role !== 'system');
  return first?.role === 'user' && first.content[0]?.type === 'text' ? first.content[0].text : '';
};

describe('withContextCompression with generateText', () => {
  it('passes a small prompt through as it came, without the awareness block', async () => {
    const mock = echoModel();
    const model = withContextCompression(mock, options);
    const messages = chat(3);
    await generateText({ model, instructions: 'Be brief.', messages });
    const prompt = mock.doGenerateCalls[0]?.prompt as LanguageModelV4Prompt;
    expect(prompt[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(prompt.slice(1).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(prompt)).not.toContain('Earlier turns of this conversation');
  });

  it('folds a long chat into a session state pair placed right after the system prompt', async () => {
    const mock = echoModel();
    const events: CompressEvent[] = [];
    const model = withContextCompression(mock, { ...options, onCompress: (event) => events.push(event) });
    await generateText({ model, instructions: 'Be brief.', messages: chat(31) });
    const prompt = mock.doGenerateCalls[0]?.prompt as LanguageModelV4Prompt;
    expect(prompt.slice(0, 2).map((message) => message.role)).toEqual(['system', 'system']);
    expect(stateText(prompt)).toMatch(/^<session_state>/);
    expect(prompt[3]?.role).toBe('assistant');
    expect(events).toHaveLength(1);
    expect(events[0]?.trigger).toBe('budget');
    expect(events[0]?.tokensAfter).toBeLessThan(events[0]?.tokensBefore ?? 0);
    expect(events[0]?.messagesFolded).toBeGreaterThan(0);
  });

  it('keeps the system prompt byte-identical and the prefix stable across turns, reusing the stored state', async () => {
    const mock = echoModel();
    let summaries = 0;
    const model = withContextCompression(mock, {
      ...options,
      summarizer: async ({ messages, previous }): Promise<SessionState> => {
        summaries++;
        return {
          logos: [...(previous?.logos ?? []), `${messages.length} messages folded`],
          pathos: [],
          abstract: [],
          conversationSummary: 'Orders.',
        };
      },
    });
    const history = chat(31);
    for (let turn = 0; turn < 3; turn++) {
      await generateText({ model, instructions: 'Be brief.', messages: history });
      history.push(
        { role: 'assistant', content: `short answer ${turn}` },
        { role: 'user', content: `short question ${turn}` },
      );
    }
    const prompts = mock.doGenerateCalls.map((call) => call.prompt);
    expect(summaries).toBe(1);
    const systems = prompts.map((prompt) => JSON.stringify(prompt.filter((message) => message.role === 'system')));
    expect(new Set(systems).size).toBe(1);
    // each prompt starts with the previous one: a provider prompt cache hits all of it
    for (let index = 1; index < prompts.length; index++) {
      const previous = prompts[index - 1] as LanguageModelV4Prompt;
      expect(JSON.stringify(prompts[index]?.slice(0, previous.length))).toBe(JSON.stringify(previous));
    }
  });

  it('never mutates the caller messages', async () => {
    const mock = echoModel();
    const model = withContextCompression(mock, options);
    const messages = chat(31);
    const before = structuredClone(messages);
    await generateText({ model, messages });
    expect(messages).toEqual(before);
  });

  it('learns a calibration ratio from the reported input tokens', async () => {
    const mock = echoModel('ok', 2_500);
    const events: CompressEvent[] = [];
    const model = withContextCompression(mock, { ...options, onCompress: (event) => events.push(event) });
    // 9 turns fit by our count; the provider reports many more tokens, so the next call compresses
    await generateText({ model, messages: chat(9) });
    expect(events).toHaveLength(0);
    await generateText({ model, messages: chat(11) });
    expect(events.length).toBeGreaterThan(0);
  });
});

describe('withContextCompression with streamText', () => {
  it('compresses streamed calls and learns from the finish part usage', async () => {
    const mock = echoModel('streamed', 2_500);
    const events: CompressEvent[] = [];
    const model = withContextCompression(mock, { ...options, onCompress: (event) => events.push(event) });
    const first = streamText({ model, messages: chat(9) });
    expect(await first.text).toBe('streamed');
    expect(events).toHaveLength(0);
    const second = streamText({ model, messages: chat(11) });
    await second.consumeStream();
    expect(stateText(mock.doStreamCalls[1]?.prompt as LanguageModelV4Prompt)).toMatch(/^<session_state>/);
  });
});

describe('multi-step tool loops', () => {
  it('runs on every step, summarizes once per compression, and keeps tool pairs whole', async () => {
    let step = 0;
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        step++;
        if (step > 12) return textResult('done');
        return textResult(`step ${step}: reading`, {
          toolCalls: [
            { id: `call-${step}-a`, name: 'readFile', input: { path: `src/file${step}.ts` } },
            { id: `call-${step}-b`, name: 'readFile', input: { path: `src/other${step}.ts` } },
          ],
        });
      },
    });
    let summaries = 0;
    const model = withContextCompression(mock, {
      ...options,
      // folding is what this test is about: without masking, the budget can only be met by folds
      masking: false,
      summarizer: async ({ previous }) => {
        summaries++;
        return {
          logos: [...(previous?.logos ?? []), `fold ${summaries}`],
          pathos: [],
          abstract: [],
          conversationSummary: 'Reading files.',
        };
      },
    });
    const result = await generateText({
      model,
      instructions: 'You are a coding agent.',
      prompt: 'Read the files.',
      tools: {
        readFile: tool({
          description: 'Reads a file',
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => `// ${path}\n${'export const value = 42;\n'.repeat(20)}`,
        }),
      },
      stopWhen: isStepCount(20),
    });
    expect(result.text).toBe('done');
    expect(mock.doGenerateCalls).toHaveLength(13);
    expect(summaries).toBeGreaterThan(0);
    expect(summaries).toBeLessThan(6);
    // the awareness block follows the system prompt from the first change of the prompt on
    const first = mock.doGenerateCalls.findIndex((call) => call.prompt[1]?.role === 'system');
    expect(first).toBeGreaterThan(0);
    for (const [index, call] of mock.doGenerateCalls.entries()) {
      expect(findPairingProblems(toTranscript(call.prompt, call.tools).messages)).toEqual([]);
      if (index >= first) expect(call.prompt[1]).toEqual({ role: 'system', content: DEFAULT_AWARENESS_BLOCK });
    }
    // the user's task is never folded away: it stays verbatim in every prompt
    for (const call of mock.doGenerateCalls) expect(JSON.stringify(call.prompt)).toContain('Read the files.');
  });
});

describe('per-call options', () => {
  it('disable sends the prompt untouched and strips our provider options key', async () => {
    const mock = echoModel();
    const model = withContextCompression(mock, options);
    await generateText({
      model,
      messages: chat(31),
      providerOptions: { 'context-compression': { disable: true }, openai: { user: 'u1' } },
    });
    const call = mock.doGenerateCalls[0];
    expect(call?.prompt).toHaveLength(31);
    expect(call?.providerOptions).toEqual({ openai: { user: 'u1' } });
  });

  it('namespaces keep states apart', async () => {
    const mock = echoModel();
    let summaries = 0;
    const model = withContextCompression(mock, {
      ...options,
      summarizer: async () => {
        summaries++;
        return { logos: [], pathos: [], abstract: [], conversationSummary: 's' };
      },
    });
    const messages = chat(31);
    await generateText({ model, messages, providerOptions: { 'context-compression': { namespace: 'tenant-a' } } });
    await generateText({ model, messages, providerOptions: { 'context-compression': { namespace: 'tenant-a' } } });
    await generateText({ model, messages, providerOptions: { 'context-compression': { namespace: 'tenant-b' } } });
    expect(summaries).toBe(2);
  });

  it('rejects unknown per-call options with the option named', async () => {
    const model = withContextCompression(echoModel(), options);
    await expect(
      generateText({ model, messages: chat(1), providerOptions: { 'context-compression': { namspace: 'x' } } }),
    ).rejects.toThrow(/providerOptions\['context-compression'\]/);
  });
});

describe('construction', () => {
  it('fails at once for an unknown model without contextWindow, naming the option', () => {
    expect(() => withContextCompression(new MockLanguageModelV4({ modelId: 'my-finetune' }))).toThrow(
      UnknownContextWindowError,
    );
    expect(() => withContextCompression(new MockLanguageModelV4({ modelId: 'my-finetune' }))).toThrow(/contextWindow/);
  });

  it("tells a middleware's user how to give the window to the middleware, once the model is seen", async () => {
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ modelId: 'my-finetune' }),
      middleware: contextCompression(),
    });
    const call = generateText({ model, messages: chat(1) });
    await expect(call).rejects.toThrow(UnknownContextWindowError);
    await expect(call).rejects.toThrow(
      'e.g. wrapLanguageModel({ model, middleware: contextCompression({ contextWindow: 128_000 }) })',
    );
  });

  it('knows common model ids', () => {
    expect(() => withContextCompression(new MockLanguageModelV4({ modelId: 'gpt-4o-mini' }))).not.toThrow();
  });

  it('rejects invalid options with a typed error', () => {
    expect(() => withContextCompression(echoModel(), { contextWindow: 4_000, compressAt: 2 })).toThrow(
      InvalidOptionError,
    );
  });
});

describe('modelSummarizer', () => {
  const state = {
    logos: ['Order ORD-1000 ships to Berlin.'],
    pathos: ['Brief.'],
    abstract: [],
    conversationSummary: 'Orders discussed.',
  };

  it('asks the model for a structured SessionState and never routes through our own middleware', async () => {
    const summarizerModel = new MockLanguageModelV4({ doGenerate: async () => textResult(JSON.stringify(state)) });
    const wrappedSummarizer = withContextCompression(summarizerModel, options);
    const mock = echoModel();
    const model = withContextCompression(mock, { ...options, summarizer: wrappedSummarizer });
    await generateText({ model, messages: chat(31) });
    expect(summarizerModel.doGenerateCalls).toHaveLength(1);
    const call = summarizerModel.doGenerateCalls[0];
    expect(call?.responseFormat?.type).toBe('json');
    // our middleware passed the summarizer call through: no awareness block was added to it
    expect(JSON.stringify(call?.prompt)).not.toContain('Earlier turns of this conversation');
    expect(stateText(mock.doGenerateCalls[0]?.prompt as LanguageModelV4Prompt)).toContain('ORD-1000 ships to Berlin');
  });

  it('asks for salience quotes, required by the schema, and keeps only those found verbatim', async () => {
    const quoted = { ...state, salience: ['Question 0: order ORD-1000 ships to Berlin.', 'A quote nobody wrote.'] };
    const summarizerModel = new MockLanguageModelV4({ doGenerate: async () => textResult(JSON.stringify(quoted)) });
    const events: CompressEvent[] = [];
    const mock = echoModel();
    const model = withContextCompression(mock, {
      ...options,
      summarizer: modelSummarizer(summarizerModel),
      onCompress: (event) => events.push(event),
    });
    await generateText({ model, messages: chat(31) });
    const format = summarizerModel.doGenerateCalls[0]?.responseFormat;
    const schema = (format?.type === 'json' ? format.schema : undefined) as { required?: string[] } | undefined;
    expect(schema?.required).toContain('salience');
    expect((schema as { additionalProperties?: boolean }).additionalProperties).toBe(false);
    const text = stateText(mock.doGenerateCalls[0]?.prompt as LanguageModelV4Prompt);
    expect(text).toContain('Question 0: order ORD-1000 ships to Berlin.');
    expect(text).not.toContain('A quote nobody wrote.');
    expect(events[0]?.quotesRejected).toBe(1);
  });

  it('folds with a state that has no quotes at all (a model that leaves them out)', async () => {
    const summarizerModel = new MockLanguageModelV4({ doGenerate: async () => textResult(JSON.stringify(state)) });
    const errors: unknown[] = [];
    const mock = echoModel();
    const model = withContextCompression(mock, {
      ...options,
      summarizer: modelSummarizer(summarizerModel),
      onError: (event) => errors.push(event),
    });
    await generateText({ model, messages: chat(31) });
    expect(errors).toEqual([]);
    expect(stateText(mock.doGenerateCalls[0]?.prompt as LanguageModelV4Prompt)).toContain('ORD-1000 ships to Berlin');
  });

  it('falls back without failing the call when the model returns garbage', async () => {
    const summarizerModel = new MockLanguageModelV4({ doGenerate: async () => textResult('not json at all') });
    const errors: unknown[] = [];
    const mock = echoModel();
    const model = withContextCompression(mock, {
      ...options,
      summarizer: modelSummarizer(summarizerModel, { maxRetries: 0 }),
      onError: (event) => errors.push(event),
    });
    const result = await generateText({ model, messages: chat(31) });
    expect(result.text).toBe('ok');
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(mock.doGenerateCalls[0]?.prompt)).not.toContain('not json at all');
  });
});
