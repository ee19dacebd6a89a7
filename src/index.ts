export { TokenCalibration } from './counting/calibration.js';
export { type GptTokenizerEncodingName, gptTokenizerCounter } from './counting/gpt-tokenizer-counter.js';
export { hashString } from './counting/hash.js';
export { DEFAULT_MESSAGE_OVERHEAD_TOKENS, MessageMeter } from './counting/message-meter.js';
export { type TiktokenEncodingName, tiktokenCounter } from './counting/tiktoken-counter.js';
export { approximateCounter, type TokenCounter } from './counting/token-counter.js';
export { DEFAULT_EMBEDDER_TIMEOUT_MS, type Embedder } from './embeddings/embedder.js';
export {
  type FeatureExtractor,
  type TransformersEmbedderOptions,
  transformersEmbedder,
} from './embeddings/transformers-embedder.js';
export type { CompressInput, CompressOutput } from './engine/compress-call.js';
export { CompressionEngine } from './engine/engine.js';
export type { CallReport, CompressEvent, CompressionErrorEvent } from './engine/events.js';
export { type ExplainedDecision, type ExplainOptions, explain } from './engine/explain.js';
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
export { KNOWN_CONTEXT_WINDOWS, lookupContextWindow } from './options/context-windows.js';
export {
  type CompressionOptions,
  DEFAULT_CACHE_PRICING,
  DEFAULT_COMPRESS_AT,
  DEFAULT_COMPRESS_TO,
  DEFAULT_HARD_LIMIT,
  DEFAULT_MAX_TOOL_RESULT_SHARE,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_STATE_TTL_MS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
} from './options/options.js';
export {
  DEFAULT_AWARENESS_BLOCK,
  DEFAULT_STATE_ACKNOWLEDGEMENT,
  DEFAULT_SUMMARIZER_INSTRUCTIONS,
  DEFAULT_SUMMARIZER_PROMPT,
  describeToolCall,
  maskedResultPlaceholder,
  redactedResultPlaceholder,
} from './options/prompts.js';
export { mergeSessionStates } from './session-state/merge-session-state.js';
export { renderSessionState, sessionStateMessages } from './session-state/render-session-state.js';
export {
  EMPTY_SESSION_STATE,
  type SessionState,
  SessionStateSchema,
  SummarizerOutputSchema,
} from './session-state/session-state.js';
export { type EraseScope, eraseStoredState } from './store/erase.js';
export { DEFAULT_STORE_TIMEOUT_MS } from './store/guarded-store.js';
export {
  DEFAULT_MEMORY_STORE_MAX_ENTRIES,
  type MemoryStateStoreOptions,
  memoryStateStore,
  type StateStore,
} from './store/state-store.js';
export { truncateHeadAndTail } from './strategies/head-and-tail.js';
export {
  DEFAULT_MASKING_OPTIONS,
  type MaskingOptions,
} from './strategies/observation-masking.js';
export { findOwnTools, type OwnToolNames } from './strategies/own-tools.js';
export {
  DEFAULT_RECALL_PAGE_CHARS,
  DEFAULT_RECALL_TOOL_DESCRIPTION,
  DEFAULT_RECALL_TOOL_NAME,
  MAX_RECALL_IDS,
  MAX_RECALL_QUERY_CHARS,
  type RecalledResult,
  type RecallInput,
  RecallInputSchema,
  recallAnswer,
  renderRecallAnswer,
} from './strategies/recall-tool.js';
export {
  collectRedactions,
  DEFAULT_REDACTION_TOOL_DESCRIPTION,
  DEFAULT_REDACTION_TOOL_NAME,
  MAX_REDACTION_IDS,
  MAX_REDACTION_REASON_CHARS,
  type RedactionInput,
  RedactionInputSchema,
  type RedactionOutcome,
  type RejectedRedaction,
  validateRedaction,
} from './strategies/redaction.js';
export { shortenByRelevance } from './strategies/shorten-by-relevance.js';
export {
  DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS,
  type ExtractiveSummarizerOptions,
  extractiveSummarizer,
} from './summarizers/extractive-summarizer.js';
export type { SummarizeFunction, SummarizeInput, Summarizer } from './summarizers/summarizer.js';
export { renderTranscript } from './transcript/render-transcript.js';
export { cutPoints, findPairingProblems, type PairingProblem } from './transcript/tool-pairs.js';
export type { Message, Part, Role, Transcript } from './transcript/transcript.js';
export {
  type CompressionDecision,
  type DecisionScope,
  SEMANTIC_TRIGGERS,
  TRIGGER_NAMES,
  type TriggerName,
} from './triggers/decisions.js';
export {
  type Boundary,
  DEFAULT_SEMANTIC_TRIGGER_OPTIONS,
  findBoundaries,
  type SemanticTriggerOptions,
} from './triggers/semantic-triggers.js';
export {
  DEFAULT_STALENESS_OPTIONS,
  findStaleObservations,
  type StalenessOptions,
  type StaleObservation,
} from './triggers/staleness.js';
