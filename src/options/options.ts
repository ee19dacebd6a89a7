export {
  type CompressionOptions,
  DEFAULT_CACHE_PRICING,
  DEFAULT_COMPRESS_AT,
  DEFAULT_COMPRESS_TO,
  DEFAULT_HARD_LIMIT,
  DEFAULT_MAX_TOOL_RESULT_SHARE,
  DEFAULT_RECALL_SHARE,
  DEFAULT_RESERVE_OUTPUT_TOKENS,
  DEFAULT_STATE_TTL_MS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
} from './compression-options.js';
export { checkReserve, checkWindowKnown, readOptions } from './option-checks.js';
export { type ResolvedOptions, resolveOptions } from './resolve-options.js';
