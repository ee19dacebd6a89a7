import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';

/**
 * One answer of a scripted mock model: its text and the tool calls it makes (`[id, tool name, input]`), so an example's
 * tool loop runs offline and the same way every time.
 */
export function scriptedStep(
  text: string,
  calls: Array<[string, string, unknown]> = [],
): LanguageModelV4GenerateResult {
  return {
    content: [
      { type: 'text', text },
      ...calls.map(([id, name, input]) => ({
        type: 'tool-call' as const,
        toolCallId: id,
        toolName: name,
        input: JSON.stringify(input),
      })),
    ],
    finishReason: { unified: calls.length > 0 ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    },
    warnings: [],
  };
}
