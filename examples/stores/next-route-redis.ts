/**
 * A Next.js App Router route handler for `useChat` (app/api/chat/route.ts) on serverless functions: every instance
 * and every cold start shares the compression state through Redis, so a conversation is summarized once whichever
 * instance serves it. With Upstash's REST API (Vercel's Redis integration), the same route uses unstorage's Upstash
 * driver instead (`npm install unstorage @upstash/redis`; it reads UPSTASH_REDIS_REST_URL and _TOKEN). What each
 * request's compression did goes to the client as message metadata (`message.metadata.compression`).
 *
 * REDIS_URL, else redis://127.0.0.1:6379. The model is OpenAI's when OPENAI_API_KEY is set, else an offline mock.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { type CompressEvent, type StateStore, withContextCompression } from 'context-compression/ai-sdk';
import { redisStore } from 'context-compression/stores/redis';
import { unstorageStore } from 'context-compression/stores/unstorage';
import { exampleModel } from '../lib/example-model.js';

export const runtime = 'nodejs';

/** Redis over TCP (node-redis), or Upstash over HTTP through unstorage when its variables are set. */
async function sharedStore(): Promise<StateStore> {
  if (process.env.UPSTASH_REDIS_REST_URL) {
    const [{ createStorage }, { default: upstashDriver }] = await Promise.all([
      import('unstorage'),
      import('unstorage/drivers/upstash'),
    ]);
    return unstorageStore(createStorage({ driver: upstashDriver({ base: 'cc' }) }));
  }
  return redisStore({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
}

// the compression event of the request being served (onCompress runs in the request's own async context)
const requests = new AsyncLocalStorage<{ event?: CompressEvent }>();
const model = withContextCompression(exampleModel(), {
  contextWindow: 8_000,
  store: await sharedStore(),
  onCompress: (event) => {
    const request = requests.getStore();
    if (request) request.event = event;
  },
});

export async function POST(request: Request): Promise<Response> {
  const { messages, userId }: { messages: UIMessage[]; userId?: string } = await request.json();
  const seen: { event?: CompressEvent } = {};
  return requests.run(seen, async () => {
    const result = streamText({
      model,
      instructions: 'You are a helpful assistant.',
      messages: await convertToModelMessages(messages),
      // one namespace per user: their records are apart, and eraseStoredState can clear them
      providerOptions: userId ? { 'context-compression': { namespace: userId } } : undefined,
    });
    return result.toUIMessageStreamResponse({
      messageMetadata: ({ part }) => {
        if (part.type !== 'finish' || !seen.event) return undefined;
        const { tokensBefore, tokensAfter, messagesFolded, reusedState } = seen.event;
        return { compression: { tokensBefore, tokensAfter, messagesFolded, reusedState } };
      },
    });
  });
}
