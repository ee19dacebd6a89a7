import { AsyncLocalStorage } from 'node:async_hooks';
import { openai } from '@ai-sdk/openai';
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { type CallReport, withContextCompression } from 'context-compression/ai-sdk';
import { unstorageStore } from 'context-compression/stores/unstorage';
import { createStorage } from 'unstorage';
import fsDriver from 'unstorage/drivers/fs';
import type { CompressionMetadata } from '../../../lib/compression-metadata';
import { offlineModel } from '../../../lib/offline-model';

/**
 * The chat route: every call compressed by context-compression, its state kept in files (unstorage's fs driver, in
 * STATE_DIR or .data/context-compression), so a restarted server carries a conversation on without summarizing it
 * again. What each request's compression did goes to the page as the assistant message's metadata.
 */
export const runtime = 'nodejs';

const store = unstorageStore(
  createStorage({ driver: fsDriver({ base: process.env.STATE_DIR ?? '.data/context-compression' }) }),
);
// what the request being served sent: onCall runs in the request's own async context
const requests = new AsyncLocalStorage<{ report?: CallReport }>();
const onCall = (report: CallReport) => {
  const request = requests.getStore();
  if (request) request.report = report;
};
const model = process.env.OPENAI_API_KEY
  ? withContextCompression(openai('gpt-4o-mini'), { store, onCall })
  : // offline: a small window, so that a few messages show what compression does
    withContextCompression(offlineModel(), { contextWindow: 4_000, store, onCall });

export async function POST(request: Request): Promise<Response> {
  const { messages }: { messages: UIMessage[] } = await request.json();
  const seen: { report?: CallReport } = {};
  return requests.run(seen, async () => {
    const result = streamText({
      model,
      system: 'You are a helpful assistant for a team that deploys services.',
      messages: await convertToModelMessages(messages),
    });
    return result.toUIMessageStreamResponse({
      messageMetadata: ({ part }) => {
        if (part.type !== 'finish' || !seen.report) return undefined;
        const { report } = seen;
        const compression: CompressionMetadata = {
          historyTokens: report.historyTokens,
          promptTokens: report.promptTokens,
          messagesOutOfPrompt: report.messagesOutOfPrompt,
          stateInPrompt: report.stateInPrompt,
          cacheablePrefixTokens: report.cacheablePrefixTokens,
          // what this request changed, if anything
          trigger: report.event?.trigger,
          messagesFolded: report.event?.messagesFolded ?? 0,
          resultsMasked: report.event?.observationsMasked.count ?? 0,
          recalled: report.event?.recalled.chunks ?? 0,
        };
        return { compression };
      },
    });
  });
}
