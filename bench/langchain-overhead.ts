/**
 * Overhead per call of the LangChain `createAgent` middleware on the same 1,000-message history as the AI SDK figure:
 * once with fresh message objects on every call (a chain rebuilding its messages), once with the same objects
 * (an agent loop, whose state keeps them).
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { contextCompressionMiddleware } from '../adapters/langchain/index.js';

/** The AI SDK prompt as LangChain messages. */
function toBaseMessages(prompt: LanguageModelV4Prompt): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (const message of prompt) {
    if (message.role === 'system') out.push(new SystemMessage(message.content));
    else if (message.role === 'user')
      out.push(new HumanMessage(message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')));
    else if (message.role === 'assistant') {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const calls = message.content.flatMap((part) =>
        part.type === 'tool-call'
          ? [{ id: part.toolCallId, name: part.toolName, args: part.input as Record<string, unknown> }]
          : [],
      );
      out.push(new AIMessage({ content: text, tool_calls: calls }));
    } else
      for (const part of message.content)
        if (part.type === 'tool-result')
          out.push(
            new ToolMessage({
              content: part.output.type === 'text' ? part.output.value : '',
              tool_call_id: part.toolCallId,
              name: part.toolName,
            }),
          );
  }
  return out;
}

const copy = (messages: readonly BaseMessage[]) =>
  messages.map((message) => {
    const Class = message.constructor as new (fields: object) => BaseMessage;
    return new Class({ ...message });
  });

interface Middleware {
  wrapModelCall: (request: object, handler: (request: object) => Promise<unknown>) => Promise<unknown>;
}

/** Median and p95 in ms of the middleware's work per call, nothing to compress, over three rounds after a warm-up. */
export async function langChainOverhead(
  full: LanguageModelV4Prompt,
  percentile: (values: number[], share: number) => number,
): Promise<void> {
  const [system, ...all] = toBaseMessages(full);
  for (const { name, fresh } of [
    { name: 'LangChain createAgent middleware, fresh message objects', fresh: true },
    { name: 'LangChain createAgent middleware, the agent state objects', fresh: false },
  ]) {
    const steady: number[] = [];
    for (let round = 0; round <= 3; round++) {
      let compressed = false;
      const middleware = contextCompressionMiddleware({
        contextWindow: 1_000_000,
        onCompress: () => (compressed = true),
      }) as unknown as Middleware;
      const model = { model: 'bench-model', _llmType: () => 'bench' };
      const call = async (messages: BaseMessage[]) => {
        const started = performance.now();
        await middleware.wrapModelCall({ model, systemMessage: system, messages, tools: [] }, async () => undefined);
        return performance.now() - started;
      };
      await call(all.slice(0, 900));
      for (let end = 901; end <= all.length; end++) {
        compressed = false;
        const messages = all.slice(0, end);
        const ms = await call(fresh ? copy(messages) : messages);
        if (round > 0 && !compressed) steady.push(ms);
      }
    }
    console.log(
      `   ${name}: median ${percentile(steady, 0.5).toFixed(2)} ms, p95 ${percentile(steady, 0.95).toFixed(2)} ms over ${steady.length} calls`,
    );
  }
}
