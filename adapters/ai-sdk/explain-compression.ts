import type { ModelMessage } from 'ai';
import { type ExplainedDecision, type ExplainOptions, explain } from '../../src/engine/explain.js';
import type { AdapterOptions } from '../../src/options/adapter-options.js';
import { checkWindowKnown, readOptions } from '../../src/options/options.js';
import { type ContextCompressionOptions, toEmbedder } from './context-compression.js';
import { modelMessagesToTranscript } from './model-messages.js';

/** Options of `explainCompression`: the middleware's options, the call's instructions and the model id. */
export interface ExplainCompressionOptions
  extends Omit<ContextCompressionOptions, 'summarizer'>,
    Pick<ExplainOptions, 'mode'>,
    Pick<AdapterOptions, 'modelId'> {
  /** The system instructions of the call, counted like the middleware counts them. */
  instructions?: string;
}

/**
 * The decision log for AI SDK messages: which triggers fired, on what, how sure, and why, call by call, without
 * calling any model. Use it to tune `masking`, `triggers` and the budget shares before going live. Give
 * `contextWindow`, or `modelId` when it is in the context-window table.
 */
export async function explainCompression(
  messages: readonly ModelMessage[],
  explainOptions?: ExplainCompressionOptions,
): Promise<ExplainedDecision[]> {
  // cacheBreakpoints shapes requests to a provider, which a decision log never sends
  const { instructions, embedder, cacheBreakpoints: _requestsOnly, ...options } = readOptions(explainOptions);
  checkWindowKnown(options, 'explainCompression');
  const system = instructions
    ? [{ role: 'system' as const, parts: [{ type: 'text' as const, text: instructions }] }]
    : [];
  return explain(
    { system, messages: modelMessagesToTranscript(messages), tools: [] },
    { ...options, embedder: toEmbedder(embedder) },
  );
}
