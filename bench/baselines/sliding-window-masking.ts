import type { LanguageModelV4Middleware, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describeToolCall, maskedResultPlaceholder } from '../../src/options/prompts.js';

/**
 * The published observation-masking recipe (arXiv 2508.21433): on every call, every tool result except the `keep`
 * most recent becomes a placeholder; the calls stay. The window slides by one result per turn. Uses this project's
 * placeholder text, so only the policy differs from ours.
 */
export function slidingWindowMasking(keep = 10): LanguageModelV4Middleware {
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      const calls = new Map<string, { name: string; input: unknown }>();
      let results = 0;
      for (const message of params.prompt) {
        if (message.role === 'system') continue;
        for (const part of message.content) {
          if (part.type === 'tool-call') calls.set(part.toolCallId, { name: part.toolName, input: part.input });
          if (part.type === 'tool-result') results++;
        }
      }
      let seen = 0;
      const prompt = params.prompt.map((message) => {
        if (message.role !== 'tool') return message;
        const content = message.content.map((part) => {
          if (part.type !== 'tool-result') return part;
          seen++;
          if (seen > results - keep || part.output.type !== 'text') return part;
          const call = calls.get(part.toolCallId);
          const text = maskedResultPlaceholder({
            call: describeToolCall(part.toolName, call?.input),
            tokens: Math.ceil(part.output.value.length / 4),
            keepRecent: keep,
          });
          return text.length < part.output.value.length
            ? { ...part, output: { type: 'text' as const, value: text } }
            : part;
        });
        return { ...message, content };
      }) as LanguageModelV4Prompt;
      return { ...params, prompt };
    },
  };
}
