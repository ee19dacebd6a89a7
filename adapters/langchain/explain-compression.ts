import type { BaseMessage } from '@langchain/core/messages';
import { type ExplainedDecision, type ExplainOptions, explain } from '../../src/engine/explain.js';
import type { AdapterOptions } from '../../src/options/adapter-options.js';
import { checkWindowKnown, readOptions } from '../../src/options/options.js';
import type { LangChainCompressionOptions } from './create-engine.js';
import { toTranscript } from './to-transcript.js';

/** Options of `explainCompression`: the adapter's options and the model id. */
export interface ExplainCompressionOptions
  extends Omit<LangChainCompressionOptions, 'summarizer'>,
    Pick<ExplainOptions, 'mode'>,
    Pick<AdapterOptions, 'modelId'> {}

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
  checkWindowKnown(options, 'explainCompression');
  return explain(toTranscript(messages), options);
}
