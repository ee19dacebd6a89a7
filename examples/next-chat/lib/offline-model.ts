import { MockLanguageModelV4 } from 'ai/test';

/**
 * The model when no OPENAI_API_KEY is set: answers without a network, deterministically, and says what it received
 * (how many messages, whether a <session_state> was among them), so the page shows compression at work offline.
 */
export function offlineModel(): MockLanguageModelV4 {
  let calls = 0;
  const answer = (prompt: unknown) => {
    const messages = Array.isArray(prompt) ? (prompt as Array<{ role: string; content: unknown }>) : [];
    const state = messages.some(
      (message) => message.role === 'user' && JSON.stringify(message.content).includes('<session_state>'),
    )
      ? ' including the session state'
      : '';
    return `Offline answer ${++calls}: I received ${messages.length} messages${state}.`;
  };
  const usage = {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 12, text: 12, reasoning: undefined },
  };
  return new MockLanguageModelV4({
    provider: 'offline',
    modelId: 'offline-chat',
    doStream: async ({ prompt }) => {
      const text = answer(prompt);
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            for (const word of text.split(/(?<= )/)) controller.enqueue({ type: 'text-delta', id: 't', delta: word });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
            controller.close();
          },
        }),
      };
    },
  });
}
