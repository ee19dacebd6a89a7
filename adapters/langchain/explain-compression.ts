import type { BaseMessage } from '@langchain/core/messages';
import { type ExplainedDecision, explain } from '../../src/engine/explain.js';
import { type AdapterOptions, AdapterOptionsSchema } from '../../src/options/adapter-options.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { checkWindowKnown, readOptions } from '../../src/options/options.js';
import type { LangChainCompressionOptions } from './create-engine.js';
import { toTranscript } from './to-transcript.js';

/** Options of `explainCompression`: the adapter's options and the model id. */
export interface ExplainCompressionOptions
  extends Omit<LangChainCompressionOptions, 'summarizer'>,
    Pick<AdapterOptions, 'modelId' | 'mode'> {}

/** The options `explainCompression` adds to the engine's, checked before the engine checks its own. */
const EXPLAIN_OPTIONS = AdapterOptionsSchema.pick({ modelId: true, mode: true });

/**
 * The decision log for LangChain messages: which triggers fired, on what, how sure, and why, call by call, without
 * calling any model. Leading system messages count as the system prompt. Give `contextWindow`, or `modelId` when it
 * is in the context-window table.
 */
export async function explainCompression(
  messages: readonly BaseMessage[],
  explainOptions?: ExplainCompressionOptions,
): Promise<ExplainedDecision[]> {
  const options = readOptions(explainOptions);
  parseOptions(EXPLAIN_OPTIONS, { modelId: options.modelId, mode: options.mode }, '');
  checkWindowKnown(options, 'explainCompression');
  return explain(toTranscript(messages), options);
}
