/**
 * `context-compression`: what a user of either adapter calls and the types of what it receives (options, reports,
 * errors, stores, summarizers, embedders, token counters). The adapters are `context-compression/ai-sdk` and
 * `context-compression/langchain`; building blocks for custom pipelines are in `context-compression/advanced`.
 */
export { gptTokenizerCounter } from './counting/gpt-tokenizer-counter.js';
export { tiktokenCounter } from './counting/tiktoken-counter.js';
export { approximateCounter, type TokenCounter } from './counting/token-counter.js';
export type { Embedder } from './embeddings/embedder.js';
export { type TransformersEmbedderOptions, transformersEmbedder } from './embeddings/transformers-embedder.js';
export type { CallReport, CompressEvent, CompressionErrorEvent } from './engine/events.js';
export {
  ContextCompressionError,
  EmbedderError,
  HardLimitError,
  InvalidOptionError,
  InvalidPromptError,
  ListenerError,
  MessageTooLargeError,
  StoreError,
  SummarizerError,
  TokenCounterError,
  TokenizerUnavailableError,
  ToolPairingError,
  type ToolPairingIssue,
  UnknownContextWindowError,
} from './errors.js';
export { lookupContextWindow } from './options/context-windows.js';
export type { CompressionOptions } from './options/options.js';
export {
  DEFAULT_AWARENESS_BLOCK,
  DEFAULT_STATE_ACKNOWLEDGEMENT,
  DEFAULT_SUMMARIZER_INSTRUCTIONS,
  DEFAULT_SUMMARIZER_PROMPT,
} from './options/prompts.js';
export { type EraseScope, eraseStoredState } from './persistence/erase.js';
export { type MemoryStateStoreOptions, memoryStateStore, type StateStore } from './persistence/state-store.js';
export type { SessionState } from './session-state/session-state.js';
export type { MaskingOptions } from './strategies/observation-masking.js';
export { DEFAULT_REDACTION_TOOL_NAME } from './strategies/redaction.js';
export { DEFAULT_RETRIEVAL_TOOL_NAME } from './strategies/retrieval-tool.js';
export {
  type ExtractiveSummarizerOptions,
  extractiveSummarizer,
} from './summarizers/extractive-summarizer.js';
export type { SummarizeFunction, SummarizeInput, Summarizer } from './summarizers/summarizer.js';
export type { CompressionDecision, TriggerName } from './triggers/decisions.js';
export type { SemanticTriggerOptions } from './triggers/semantic-triggers.js';
export type { StalenessOptions } from './triggers/staleness.js';
