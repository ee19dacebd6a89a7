import { openai } from '@ai-sdk/openai';
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { compressionReport, withContextCompression } from 'context-compression/ai-sdk';
import { unstorageStore } from 'context-compression/stores/unstorage';
import { createStorage } from 'unstorage';
import fsDriver from 'unstorage/drivers/fs';
import { offlineModel } from '../../../lib/offline-model';

/**
 * The chat route: every call compressed by context-compression, its state kept in files (unstorage's fs driver, in
 * STATE_DIR or .data/context-compression), so a restarted server carries a conversation on without summarizing it
 * again. What each request's compression did comes with the model call's result, in its provider metadata, and goes
 * to the page as the assistant message's metadata.
 */
export const runtime = 'nodejs';

const store = unstorageStore(
  createStorage({ driver: fsDriver({ base: process.env.STATE_DIR ?? '.data/context-compression' }) }),
);
const model = process.env.OPENAI_API_KEY
  ? withContextCompression(openai('gpt-4o-mini'), { store })
  : // offline: a small window, so that a few messages show what compression does
    withContextCompression(offlineModel(), { contextWindow: 4_000, store });

export async function POST(request: Request): Promise<Response> {
  const { messages }: { messages: UIMessage[] } = await request.json();
  const result = streamText({
    model,
    system: 'You are a helpful assistant for a team that deploys services.',
    messages: await convertToModelMessages(messages),
  });
  return result.toUIMessageStreamResponse({
    // each model call's report, as the call's step finishes
    messageMetadata: ({ part }) => {
      if (part.type !== 'finish-step') return undefined;
      const compression = compressionReport(part);
      return compression ? { compression } : undefined;
    },
  });
}
