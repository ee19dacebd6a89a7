import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type ModelMessage, simulateReadableStream } from 'ai';
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

/** A generate result as a stream of parts: its text, its tool calls, then the finish. */
export function streamParts(result: LanguageModelV4GenerateResult): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [];
  result.content.forEach((part, index) => {
    if (part.type === 'text') {
      const id = `t${index}`;
      parts.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: part.text }, { type: 'text-end', id });
    } else if (part.type === 'tool-call') parts.push(part);
  });
  parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return parts;
}

/** A mock model that answers each call, generated or streamed, with the next of `steps`, then with `last`. */
export function scriptedModel(
  steps: readonly LanguageModelV4GenerateResult[],
  last: LanguageModelV4GenerateResult = textResult('Done.'),
): MockLanguageModelV4 {
  const queue = [...steps];
  return new MockLanguageModelV4({
    doGenerate: async () => queue.shift() ?? last,
    doStream: async () => ({
      stream: simulateReadableStream<LanguageModelV4StreamPart>({ chunks: streamParts(queue.shift() ?? last) }),
    }),
  });
}

/** A chat of `turns` messages, user and assistant in turn, each about 95 tokens: 31 turns fold in a 4k window. */
export function orderChat(turns: number): ModelMessage[] {
  const filler = 'details '.repeat(40);
  return Array.from({ length: turns }, (_, index) =>
    index % 2 === 0
      ? { role: 'user' as const, content: `Question ${index}: order ORD-${1000 + index} ships to Berlin. ${filler}` }
      : { role: 'assistant' as const, content: `Answer ${index}: noted for ORD-${999 + index}. ${filler}` },
  );
}
