import { openai } from '@ai-sdk/openai';
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/**
 * The model the examples use: OpenAI's gpt-4o-mini when OPENAI_API_KEY is set, otherwise a mock model that
 * answers without a network, so every example runs offline.
 */
export function exampleModel(): LanguageModelV4 {
  if (process.env.OPENAI_API_KEY) return openai('gpt-4o-mini');
  let calls = 0;
  const answer = (prompt: unknown) =>
    `(mock answer ${++calls}; the prompt had ${JSON.stringify(prompt).length} characters)`;
  return new MockLanguageModelV4({
    modelId: 'gpt-4o-mini',
    doGenerate: async ({ prompt }) => ({
      content: [{ type: 'text', text: answer(prompt) }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 10, text: 10, reasoning: undefined },
      },
      warnings: [],
    }),
    doStream: async ({ prompt }) => {
      const text = answer(prompt);
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: text });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: undefined },
              usage: {
                inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 10, text: 10, reasoning: undefined },
              },
            });
            controller.close();
          },
        }),
      };
    },
  });
}

/**
 * `model` wrapped so that the prompt it receives (after any middleware outside it, such as compression) can be
 * read back: `lastPrompt()` is the prompt of the latest call.
 */
export function recordingPrompts(model: LanguageModelV4): {
  model: LanguageModelV4;
  lastPrompt: () => LanguageModelV4Prompt;
} {
  let last: LanguageModelV4Prompt = [];
  return {
    model: wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v4',
        transformParams: async ({ params }) => {
          last = params.prompt;
          return params;
        },
      },
    }),
    lastPrompt: () => last,
  };
}
