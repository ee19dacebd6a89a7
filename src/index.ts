export { TokenCalibration } from './calibration.js';
export type { CompressInput, CompressOutput } from './compress-call.js';
export { KNOWN_CONTEXT_WINDOWS, lookupContextWindow } from './context-windows.js';
export {
  type CompressionDecision,
  type DecisionScope,
  SEMANTIC_TRIGGERS,
  TRIGGER_NAMES,
  type TriggerName,
} from './decisions.js';
export { CompressionEngine } from './engine.js';
export {
  ContextCompressionError,
  InvalidOptionError,
  MessageTooLargeError,
  SummarizerError,
  UnknownContextWindowError,
} from './errors.js';
export type { CompressEvent, CompressionErrorEvent } from './events.js';
export { type ExplainedDecision, type ExplainOptions, explain } from './explain.js';
export {
  DEFAULT_EXTRACTIVE_SUMMARIZER_OPTIONS,
  type ExtractiveSummarizerOptions,
  extractiveSummarizer,
} from './extractive-summarizer.js';
export { hashString } from './hash.js';
export { mergeSessionStates } from './merge-session-state.js';
export { DEFAULT_MESSAGE_OVERHEAD_TOKENS, MessageMeter } from './message-meter.js';
export {
  DEFAULT_MASKING_OPTIONS,
  type MaskingOptions,
} from './observation-masking.js';
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
} from './options.js';
export {
  DEFAULT_AWARENESS_BLOCK,
  DEFAULT_STATE_ACKNOWLEDGEMENT,
  DEFAULT_SUMMARIZER_INSTRUCTIONS,
  DEFAULT_SUMMARIZER_PROMPT,
  describeToolCall,
  maskedResultPlaceholder,
  redactedResultPlaceholder,
} from './prompts.js';
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
} from './redaction.js';
export { renderSessionState, sessionStateMessages } from './render-session-state.js';
export { renderTranscript } from './render-transcript.js';
export {
  type Boundary,
  DEFAULT_SEMANTIC_TRIGGER_OPTIONS,
  findBoundaries,
  type SemanticTriggerOptions,
} from './semantic-triggers.js';
export { EMPTY_SESSION_STATE, type SessionState, SessionStateSchema } from './session-state.js';
export {
  DEFAULT_STALENESS_OPTIONS,
  findStaleObservations,
  type StalenessOptions,
  type StaleObservation,
} from './staleness.js';
export {
  DEFAULT_MEMORY_STORE_MAX_ENTRIES,
  type MemoryStateStoreOptions,
  memoryStateStore,
  type StateStore,
} from './state-store.js';
export type { SummarizeFunction, SummarizeInput, Summarizer } from './summarizer.js';
export { approximateCounter, type TokenCounter, tiktokenCounter } from './token-counter.js';
export { cutPoints, findPairingProblems, type PairingProblem } from './tool-pairs.js';
export type { Message, Part, Role, Transcript } from './transcript.js';
export { truncateHeadAndTail } from './truncate-tool-result.js';
