/**
 * The names of the core that both adapters export as well, the same in each, so that switching frameworks changes
 * only an import path: the errors a listener or a `catch` tests for, the reports listeners receive, and the pieces
 * most options take (stores, summarizers, embedders, token counters). Everything else of the core is imported from
 * `context-compression` or `context-compression/advanced`.
 */
export { gptTokenizerCounter } from './counting/gpt-tokenizer-counter.js';
export { tiktokenCounter } from './counting/tiktoken-counter.js';
export { approximateCounter, type TokenCounter } from './counting/token-counter.js';
export { utf8BytesCounter } from './counting/utf8-bytes-counter.js';
export type { Embedder } from './embeddings/embedder.js';
export { transformersEmbedder } from './embeddings/transformers-embedder.js';
export {
  BrokenPromiseError,
  ContextCompressionError,
  EmbedderError,
  HardLimitError,
  InvalidOptionError,
  InvalidPromptError,
  ListenerError,
  MessageTooLargeError,
  ProviderOverflowError,
  StoreError,
  SummarizerError,
  TokenCounterError,
  TokenizerUnavailableError,
  ToolPairingError,
  type ToolPairingIssue,
  UnknownContextWindowError,
} from './errors.js';
export { lookupContextWindow } from './options/context-windows.js';
export { eraseStoredState } from './persistence/erase.js';
export { memoryStateStore, type StateStore } from './persistence/state-store.js';
export type { CompressionReport } from './reports/compression-report.js';
export type { CompressionDecision, TriggerName } from './reports/decisions.js';
export type { CompressEvent, CompressionChange, CompressionErrorEvent } from './reports/events.js';
export type { SessionState } from './session-state/session-state.js';
export { DEFAULT_REDACTION_TOOL_NAME } from './strategies/redaction.js';
export { DEFAULT_RETRIEVAL_TOOL_NAME } from './strategies/retrieval-tool.js';
export { extractiveSummarizer } from './summarizers/extractive-summarizer.js';
export type { SummarizeFunction, Summarizer } from './summarizers/summarizer.js';
