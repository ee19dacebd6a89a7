import { dispatchCustomEvent } from '@langchain/core/callbacks/dispatch/web';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatGenerationChunk, ChatResult } from '@langchain/core/outputs';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { type CompressionReport, METADATA_KEY, withProviderUsage } from '../../src/engine/call-metadata.js';
import { providerUsageOf } from './compression-report.js';

/**
 * Name of the custom callback event each compressed model call dispatches with its report (`handleCustomEvent`
 * of a callback handler, `on_custom_event` in `streamEvents`).
 */
export const CUSTOM_EVENT_NAME = 'context-compression';

/** Where a compressed call hands its prompts' reports to the model's own run (in the call options). */
const REPORTS = Symbol.for('context-compression.reports');

/** Call options carrying the report of each prompt of a call, for the model's run to dispatch and attach. */
export function withReports<O extends object>(
  options: O | undefined,
  reports: readonly (CompressionReport | undefined)[],
): O {
  return { ...(options as O), [REPORTS]: reports };
}

/** The report the options carry for the prompt a model run was given (its `promptIndex` in a batch). */
export function reportOf(options: unknown): CompressionReport | undefined {
  const reports = (options as { [REPORTS]?: readonly (CompressionReport | undefined)[] } | undefined)?.[REPORTS];
  const index = (options as { promptIndex?: number } | undefined)?.promptIndex ?? 0;
  return reports?.[index];
}

/**
 * Puts a call's report in an answer's `response_metadata['context-compression']`, with what the answer's
 * `usage_metadata` says of the call (a streamed answer's usage comes with its last chunk: `compressionReport` reads it
 * from the message the chunks add up to).
 */
export function attachReport(message: BaseMessage | undefined, report: CompressionReport | undefined): void {
  if (!report || typeof message !== 'object' || message === null || !('response_metadata' in message)) return;
  const metadata: Record<string, unknown> = message.response_metadata ?? {};
  if (metadata[METADATA_KEY] === report) return;
  message.response_metadata = { ...metadata, [METADATA_KEY]: withProviderUsage(report, providerUsageOf(message)) };
}

/** The runs whose handlers were told already: a model whose `_generate` streams runs both methods in one run. */
const told = new WeakSet<CallbackManagerForLLMRun>();

/** Tells the run's callback handlers of a call's report, as a custom event of the model's own run; once a run. */
export async function dispatchReport(
  runManager: CallbackManagerForLLMRun | undefined,
  report: CompressionReport | undefined,
): Promise<void> {
  if (!report || !runManager || told.has(runManager)) return;
  told.add(runManager);
  await runManager.handleCustomEvent(CUSTOM_EVENT_NAME, report, runManager.runId);
}

/**
 * Tells the handlers of the run a call is made in (an agent's model node) of its report, as a custom event of that
 * run; nothing when the call is made outside any run. The run is the one LangChain keeps for the code it runs
 * (where `AsyncLocalStorage` is available).
 */
export async function dispatchReportInRun(report: CompressionReport): Promise<void> {
  const config: unknown = AsyncLocalStorageProviderSingleton.getRunnableConfig();
  if (!config) return;
  await dispatchCustomEvent(CUSTOM_EVENT_NAME, report, config);
}

/**
 * The methods of a compressing model that run inside the model's run, between its start and end callbacks: each
 * tells the handlers of the prompt's report (a custom event of that run) and puts it on the answer before the run's
 * end is recorded, so tracers keep it with the output. `own` runs the wrapped model's own method.
 */
export function reportingRun(own: (name: string, self: unknown, args: readonly unknown[]) => unknown) {
  return {
    async _generate(
      this: BaseChatModel,
      messages: BaseMessage[],
      options: unknown,
      runManager?: CallbackManagerForLLMRun,
    ): Promise<ChatResult> {
      const report = reportOf(options);
      await dispatchReport(runManager, report);
      const result = (await own('_generate', this, [messages, options, runManager])) as ChatResult;
      for (const generation of result.generations) attachReport(generation.message, report);
      return result;
    },
    async *_streamResponseChunks(
      this: BaseChatModel,
      messages: BaseMessage[],
      options: unknown,
      runManager?: CallbackManagerForLLMRun,
    ): AsyncGenerator<ChatGenerationChunk> {
      const report = reportOf(options);
      await dispatchReport(runManager, report);
      let first = true;
      for await (const chunk of own('_streamResponseChunks', this, [
        messages,
        options,
        runManager,
      ]) as AsyncIterable<ChatGenerationChunk>) {
        // on the first chunk: the message the chunks add up to carries it
        if (first) attachReport(chunk.message, report);
        first = false;
        yield chunk;
      }
    },
  };
}
