/**
 * The code that edge-runtime.test.ts bundles for the edge and runs inside Vercel's edge runtime: an app that wraps a
 * model with `withContextCompression` and calls it with `generateText` and `streamText`. It exports nothing (the
 * bundle is evaluated as a script, the way Next.js loads an edge route) and leaves its entry points on globalThis.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { generateText, type ModelMessage, simulateReadableStream, streamText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import {
  gptTokenizerCounter,
  TokenizerUnavailableError,
  tiktokenCounter,
  withContextCompression,
} from '../../adapters/ai-sdk/index.js';

export interface EdgeCallReport {
  generated: string;
  streamed: string;
  /** The prompt the model received, per call, as JSON. */
  prompts: string[];
  /** The history the app sent, as JSON. */
  history: string;
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};

/** 41 messages of ~150 tokens each: far past a 4,000-token window, so the call has to compress. */
function longHistory(): ModelMessage[] {
  const messages: ModelMessage[] = Array.from({ length: 40 }, (_, index) =>
    index % 2 === 0
      ? {
          role: 'user' as const,
          content: `Question ${index} about order ORD-${index}. ${'Where is the parcel and when does it arrive? '.repeat(15)}`,
        }
      : {
          role: 'assistant' as const,
          content: `Answer ${index}: order ORD-${index - 1} left the depot. ${'It is on the truck to the city. '.repeat(15)}`,
        },
  );
  messages.push({ role: 'user', content: 'Which orders are still on the way?' });
  return messages;
}

async function runEdgeCall(): Promise<string> {
  const prompts: LanguageModelV4CallOptions['prompt'][] = [];
  const model = new MockLanguageModelV4({
    modelId: 'edge-mock',
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return {
        content: [{ type: 'text', text: 'edge answer' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
    doStream: async (options) => {
      prompts.push(options.prompt);
      return {
        stream: simulateReadableStream<LanguageModelV4StreamPart>({
          chunks: [
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: 'edge ' },
            { type: 'text-delta', id: 't1', delta: 'stream' },
            { type: 'text-end', id: 't1' },
            { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
          ],
        }),
      };
    },
  });
  // the defaults otherwise: the edge build's UTF-8 byte counter, the offline summarizer, the in-memory store
  const compressed = withContextCompression(model, { contextWindow: 4000 });
  const messages = longHistory();
  const generated = await generateText({ model: compressed, system: 'You track parcels.', messages });
  const streamed = await streamText({ model: compressed, system: 'You track parcels.', messages }).text;
  const report: EdgeCallReport = {
    generated: generated.text,
    streamed,
    prompts: prompts.map((prompt) => JSON.stringify(prompt)),
    history: JSON.stringify(messages),
  };
  return JSON.stringify(report);
}

/** What the tokenizers that need a synchronous `require` do where there is none: the error's name, or 'ok'. */
function tokenizersWithoutRequire(): string {
  const outcome = (run: () => unknown) => {
    try {
      run();
      return 'ok';
    } catch (error) {
      return error instanceof TokenizerUnavailableError ? error.name : `unexpected ${String(error)}`;
    }
  };
  return JSON.stringify({
    tiktoken: outcome(() => tiktokenCounter()),
    // an encoding no call has loaded yet, counted before `load()`
    gptTokenizerBeforeLoad: outcome(() => gptTokenizerCounter('r50k_base').count('hello')),
  });
}

Object.assign(globalThis, { runEdgeCall, tokenizersWithoutRequire });
