/**
 * `context-compression/langchain`: the engine for LangChain.js, as a chat model wrapper, a chain step and a
 * `createAgent` middleware. Loads `@langchain/core` only (never `ai`, and never `langchain` at run time).
 */
export * from '../../src/adapter-exports.js';
export { CALL_OPTIONS_KEY, type ContextCompressionCallOptions } from './call-options.js';
export { type ChatModelSummarizerOptions, chatModelSummarizer } from './chat-model-summarizer.js';
export { type CompressMessagesOptions, compressMessages } from './compress-messages.js';
export { compressionReport } from './compression-report.js';
export type { LangChainCompressionOptions as ContextCompressionOptions } from './create-engine.js';
export { type ExplainCompressionOptions, explainCompression } from './explain-compression.js';
export { type ContextCompressionMiddlewareOptions, contextCompressionMiddleware } from './middleware.js';
export { type RedactionToolOptions, type RedactionToolOutput, redactionTool } from './redaction-tool.js';
export { type RetrievalToolOptions, retrievalTool } from './retrieval-tool.js';
export { withContextCompression } from './with-context-compression.js';
