export * from '../../src/index.js';
export { CALL_OPTIONS_KEY, type ContextCompressionCallOptions } from './call-options.js';
export { type ContextCompressionOptions, contextCompression } from './context-compression.js';
export { type ExplainCompressionOptions, explainCompression } from './explain-compression.js';
export { fromTranscript, withoutOpenAIItemId } from './from-transcript.js';
export { type ModelSummarizerOptions, modelSummarizer } from './model-summarizer.js';
export { type RedactionToolOptions, type RedactionToolOutput, redactionTool } from './redaction-tool.js';
export { DEFAULT_FILE_TOKENS, toTranscript } from './to-transcript.js';
export { withContextCompression } from './with-context-compression.js';
