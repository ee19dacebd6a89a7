import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/** Usage as a provider reports it, with `inputTokens` set. */
export function usage(inputTokens: number | undefined = 10) {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
}

/** A generate result with text and optional tool calls. */
export function textResult(
  text: string,
  {
    toolCalls = [],
    inputTokens,
  }: { toolCalls?: Array<{ id: string; name: string; input: unknown }>; inputTokens?: number } = {},
): LanguageModelV4GenerateResult {
  return {
    content: [
      { type: 'text', text },
      ...toolCalls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.input),
      })),
    ],
    finishReason: { unified: toolCalls.length > 0 ? 'tool-calls' : 'stop', raw: undefined },
    usage: usage(inputTokens),
    warnings: [],
  };
}

/** A mock model that always answers `text`. */
export function echoModel(text = 'ok', inputTokens?: number): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    modelId: 'mock-model',
    doGenerate: async () => textResult(text, { inputTokens }),
    doStream: async () => ({
      stream: simulateReadableStream<LanguageModelV4StreamPart>({
        chunks: [
          { type: 'text-start', id: 't1' },
          { type: 'text-delta', id: 't1', delta: text },
          { type: 'text-end', id: 't1' },
          { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: usage(inputTokens) },
        ],
      }),
    }),
  });
}
