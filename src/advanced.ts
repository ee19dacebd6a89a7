/**
 * `context-compression/advanced`: the building blocks behind the adapters, for custom pipelines and tools: the
 * engine itself, the explain API, token meters, the neutral transcript, the detectors and the pieces of the retrieval
 * and redaction tools. These names may change in a minor version more readily than those of the main entries.
 */
export { TokenCalibration } from './counting/calibration.js';
export {
  DEFAULT_AUDIO_TOKENS,
  DEFAULT_FILE_TOKENS,
  DEFAULT_PDF_PAGES,
  DEFAULT_VIDEO_TOKENS,
  type FileInput,
  fileTokens,
  PDF_PAGE_TOKENS,
} from './counting/file-tokens.js';
export type { GptTokenizerEncodingName } from './counting/gpt-tokenizer-counter.js';
export { type ImageSize, imageSize } from './counting/image-size.js';
export { DEFAULT_IMAGE_SIZE } from './counting/image-tokens.js';
export { DEFAULT_MESSAGE_OVERHEAD_TOKENS, MessageMeter } from './counting/message-meter.js';
export { pdfPageCount } from './counting/pdf-pages.js';
export { type FileCounting, type ProviderFamily, providerFamily } from './counting/provider-family.js';
export type { TiktokenEncodingName } from './counting/tiktoken-counter.js';
export { DEFAULT_EMBEDDER_TIMEOUT_MS } from './embeddings/embedder.js';
export type { FeatureExtractor } from './embeddings/transformers-embedder.js';
export type { CompressInput, CompressOutput } from './engine/compress-call.js';
export { CompressionEngine } from './engine/engine.js';
export { type ExplainedDecision, type ExplainOptions, explain } from './engine/explain.js';
export {
  type Boundary,
  DEFAULT_SEMANTIC_TRIGGER_OPTIONS,
  findBoundaries,
} from './folding/semantic-triggers.js';
export { DEFAULT_MASKING_OPTIONS } from './masking/observation-masking.js';
export {
  DEFAULT_STALENESS_OPTIONS,
  findStaleObservations,
  type StaleObservation,
} from './masking/staleness.js';
export { KNOWN_CONTEXT_WINDOWS } from './options/context-windows.js';
export {
  DEFAULT_CACHE_PRICING,
  DEFAULT_COMPRESS_AT,
  DEFAULT_COMPRESS_TO,
  DEFAULT_HARD_LIMIT,
  DEFAULT_MAX_TOOL_RESULT_SHARE,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_STATE_TTL_MS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
} from './options/options.js';
export { describeToolCall, maskedResultPlaceholder, redactedResultPlaceholder } from './options/prompts.js';
export { DEFAULT_STORE_TIMEOUT_MS } from './persistence/guarded-store.js';
export { DEFAULT_MEMORY_STORE_MAX_ENTRIES } from './persistence/state-store.js';
export { type DecisionScope, SEMANTIC_TRIGGERS, TRIGGER_NAMES } from './reports/decisions.js';
export { mergeSessionStates } from './session-state/merge-session-state.js';
export { renderSessionState, sessionStateMessages } from './session-state/render-session-state.js';
export { EMPTY_SESSION_STATE, SessionStateSchema, SummarizerOutputSchema } from './session-state/session-state.js';
export { truncateHeadAndTail } from './strategies/head-and-tail.js';
export { findOwnTools, type OwnToolNames } from './strategies/own-tools.js';
export {
  collectRedactions,
  DEFAULT_REDACTION_TOOL_DESCRIPTION,
  MAX_REDACTION_IDS,
  MAX_REDACTION_REASON_CHARS,
  type RedactionInput,
  RedactionInputSchema,
  type RedactionOutcome,
  type RejectedRedaction,
  validateRedaction,
} from './strategies/redaction.js';
export {
  DEFAULT_RETRIEVAL_PAGE_CHARS,
  DEFAULT_RETRIEVAL_TOOL_DESCRIPTION,
  MAX_RETRIEVAL_IDS,
  MAX_RETRIEVAL_QUERY_CHARS,
  type RetrievalInput,
  RetrievalInputSchema,
  type RetrievedResult,
  renderRetrievalAnswer,
  retrievalAnswer,
} from './strategies/retrieval-tool.js';
export { shortenByRelevance } from './strategies/shorten-by-relevance.js';
export { DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS } from './summarizers/extractive-summarizer.js';
export { renderTranscript } from './summarizers/render-transcript.js';
export { cutPoints, findPairingProblems, type PairingProblem } from './transcript/tool-pairs.js';
export type { Message, Part, Role, Transcript } from './transcript/transcript.js';
