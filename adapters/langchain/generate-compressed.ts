import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, type BaseMessageLike, coerceMessageLikeToMessage } from '@langchain/core/messages';
import type { ChatGeneration, LLMResult } from '@langchain/core/outputs';
import type { CompressionEngine } from '../../src/engine/engine.js';
import type { ProviderOverflowError } from '../../src/errors.js';
import type { CompressedBaseMessages } from './compress-base-messages.js';
import { providerUsageOf } from './compression-report.js';
import { callWindow, type ModelInfo, reportedInputTokens } from './model-info.js';
import { runWithRetry } from './overflow-retry.js';
import { attachReport, withReports } from './report-metadata.js';
import { type SentRequests, sendThrough } from './sent-requests.js';

type CallOptions = Partial<BaseChatModel['ParsedCallOptions']>;

/** `generate` of a compressing model: each list of messages compressed, sent, and its usage recorded; retried once. */
export function generateCompressed(
  {
    engine,
    info,
    compress,
    base,
    self,
    requests,
  }: {
    engine: CompressionEngine;
    info: ModelInfo;
    requests: SentRequests;
    compress: (
      messages: readonly BaseMessage[],
      options: unknown,
      retryOf?: ProviderOverflowError,
    ) => Promise<CompressedBaseMessages | undefined>;
    base: BaseChatModel;
    self: BaseChatModel;
  },
  messages: BaseMessageLike[][],
  options?: string[] | CallOptions,
  callbacks?: Callbacks,
): Promise<LLMResult> {
  const parsed = Array.isArray(options) ? { stop: options } : options;
  const lists = messages.map((list) => list.map(coerceMessageLikeToMessage));
  return runWithRetry({
    engine,
    // a rejection is read against the window the call was compressed for (its own beta flags may open a larger one)
    info: { ...info, contextWindow: callWindow(info, parsed) },
    compress: (retryOf) => Promise.all(lists.map((list) => compress(list, parsed, retryOf))),
    estimate: largestEstimate,
    settle: (compressed) => {
      for (const sent of compressed) sent?.settled();
    },
    run: async (compressed) => {
      const prompts = lists.map((list, index) => compressed[index]?.messages ?? list);
      // each prompt's report goes to its model run (a custom event, the answer's metadata; see `reportingRun`),
      // found by its index in the batch: a model with a cache runs only the prompts it missed, renumbered, so there
      // only a single prompt's report goes
      const reports = compressed.map((sent) => sent?.metadata);
      const runs = !self.cache || lists.length === 1 ? withReports(parsed, reports) : parsed;
      compressed.forEach((sent, index) => {
        if (sent?.request)
          requests.remember(sent.request, { messages: prompts[index] ?? [], send: sendThrough(base, self, parsed) });
      });
      const result = await base.generate.call(self, prompts, runs, callbacks);
      result.generations.forEach((generation, index) => {
        const sent = compressed[index];
        const message = (generation[0] as ChatGeneration | undefined)?.message;
        requests.answered(sent?.request, providerUsageOf(message));
        // also on an answer no run of ours made (a cached one)
        attachReport(message, sent?.metadata);
        if (sent) engine.recordUsage(info.modelKey, () => sent.estimatedTokens, reportedInputTokens(message));
      });
      return result;
    },
  });
}

/** The largest estimate of a batch's compressed prompts: the one a provider most likely rejected. */
function largestEstimate(sent: readonly (CompressedBaseMessages | undefined)[]): number | undefined {
  const estimates = sent.flatMap((item) => (item ? [item.estimatedTokens] : []));
  return estimates.length > 0 ? Math.max(...estimates) : undefined;
}
