/**
 * A Next.js App Router route handler for `useChat`. The client resends the whole conversation on every request;
 * the middleware finds the state it stored for that history by content, so a stateless server (or several)
 * summarizes each part of the conversation once. Use a shared store (Redis, a database) when you run more than one
 * instance; the default store lives in memory.
 */
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { withContextCompression } from 'context-compression/ai-sdk';
import { exampleModel } from '../../../../lib/example-model.js';

const model = withContextCompression(exampleModel(), { contextWindow: 128_000 });

export async function POST(request: Request): Promise<Response> {
  const { messages, userId }: { messages: UIMessage[]; userId?: string } = await request.json();
  const result = streamText({
    model,
    instructions: 'You are a helpful assistant.',
    messages: await convertToModelMessages(messages),
    providerOptions: userId ? { 'context-compression': { namespace: userId } } : undefined,
  });
  return result.toUIMessageStreamResponse();
}
