import type { ModelMessage } from 'ai';
import { type ExplainedDecision, explain } from '../../src/engine/explain.js';
import { type AdapterOptions, AdapterOptionsSchema } from '../../src/options/adapter-options.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { checkWindowKnown, readOptions } from '../../src/options/options.js';
import { type ContextCompressionOptions, toEmbedder } from './context-compression.js';
import { modelMessagesToTranscript } from './model-messages.js';

/** Options of `explainCompression`: the middleware's options, the call's instructions and the model id. */
export interface ExplainCompressionOptions
  extends Omit<ContextCompressionOptions, 'summarizer'>,
    Pick<AdapterOptions, 'modelId' | 'mode' | 'instructions'> {}

/** The options `explainCompression` adds to the engine's, checked before the engine checks its own. */
const EXPLAIN_OPTIONS = AdapterOptionsSchema.pick({
  instructions: true,
  cacheBreakpoints: true,
  modelId: true,
  mode: true,
});

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
  const { instructions, embedder, cacheBreakpoints, modelId, mode, ...options } = readOptions(explainOptions);
  parseOptions(EXPLAIN_OPTIONS, { instructions, cacheBreakpoints, modelId, mode }, '');
  checkWindowKnown({ ...options, modelId }, 'explainCompression');
  const system = instructions
    ? [{ role: 'system' as const, parts: [{ type: 'text' as const, text: instructions }] }]
    : [];
  return explain(
    { system, messages: modelMessagesToTranscript(messages), tools: [] },
    { ...options, modelId, mode, embedder: toEmbedder(embedder) },
  );
}
