/**
 * `context-compression`: what a user of either adapter calls and the types of what it receives (options, reports,
 * errors, stores, summarizers, embedders, token counters). The adapters are `context-compression/ai-sdk` and
 * `context-compression/langchain`; building blocks for custom pipelines are in `context-compression/advanced`.
 */

// what both adapters export as well, so an import of these names works from any entry
export * from './adapter-exports.js';
// the option types, the prompts a user may extend, and the options of the pieces the core makes
export type { TransformersEmbedderOptions } from './embeddings/transformers-embedder.js';
export type { SemanticTriggerOptions } from './folding/semantic-triggers.js';
export type { MaskingOptions } from './masking/observation-masking.js';
export type { StalenessOptions } from './masking/staleness.js';
export type { CompressionOptions } from './options/options.js';
export {
  DEFAULT_AWARENESS_BLOCK,
  DEFAULT_STATE_ACKNOWLEDGEMENT,
  DEFAULT_SUMMARIZER_INSTRUCTIONS,
  DEFAULT_SUMMARIZER_PROMPT,
} from './options/prompts.js';
export type { EraseScope } from './persistence/erase.js';
export type { MemoryStateStoreOptions } from './persistence/state-store.js';
export type { ExtractiveSummarizerOptions } from './summarizers/extractive-summarizer.js';
export type { SummarizeInput } from './summarizers/summarizer.js';
