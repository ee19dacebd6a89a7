/**
 * `context-compression/ai-sdk`: the engine for the Vercel AI SDK, as a model wrapper and a language model middleware,
 * with the retrieval and redaction tools and summarizers and embedders made from AI SDK models. Loads `ai` (never
 * LangChain).
 */
export * from '../../src/adapter-exports.js';
export { CALL_OPTIONS_KEY, type ContextCompressionCallOptions } from './call-options.js';
export { compressionReport } from './compression-report.js';
export { type ContextCompressionOptions, contextCompression } from './context-compression.js';
export { type ExplainCompressionOptions, explainCompression } from './explain-compression.js';
export { type ModelEmbedderOptions, modelEmbedder } from './model-embedder.js';
export { type ModelSummarizerOptions, modelSummarizer } from './model-summarizer.js';
export { type OpenAIAgentsToolDefinition, openaiAgentsTool } from './openai-agents-tool.js';
export { type RedactionToolOptions, type RedactionToolOutput, redactionTool } from './redaction-tool.js';
export { type RetrievalToolOptions, type RetrievalToolOutput, retrievalTool } from './retrieval-tool.js';
export { withContextCompression } from './with-context-compression.js';
