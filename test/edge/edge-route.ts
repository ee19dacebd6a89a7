/**
 * A Next.js edge route as an app writes it (`export const runtime = 'edge'`): a compressed OpenAI model streamed to
 * `useChat`. edge-runtime.test.ts bundles it as Next.js does for the edge and measures what the deployment takes.
 */
import { openai } from '@ai-sdk/openai';
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';

export const runtime = 'edge';

const model = withContextCompression(openai('gpt-4o'), { summarizer: openai('gpt-4o-mini') });

export async function POST(request: Request): Promise<Response> {
  const { messages }: { messages: UIMessage[] } = await request.json();
  const result = streamText({ model, messages: await convertToModelMessages(messages) });
  return result.toUIMessageStreamResponse();
}
