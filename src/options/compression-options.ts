import { z } from 'zod';
import type { TokenCounter } from '../counting/token-counter.js';
import { DEFAULT_EMBEDDER_TIMEOUT_MS, type Embedder, isEmbedder } from '../embeddings/embedder.js';
import type { CallReport, CompressEvent, CompressionErrorEvent } from '../engine/events.js';
import { DEFAULT_FOLD_LEASE_WAIT_MS } from '../store/fold-lease.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../store/guarded-store.js';
import type { StateStore } from '../store/state-store.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../strategies/redaction.js';
import { extractiveSummarizer } from '../summarizers/extractive-summarizer.js';
import type { SummarizeFunction, Summarizer } from '../summarizers/summarizer.js';
import { MaskingOptionsSchema } from './masking-options.js';
import {
  callback,
  custom,
  flag,
  group,
  hasMethods,
  nonEmptyText,
  number,
  share,
  switchable,
  text,
  timeout,
  toolNames,
  whole,
} from './option-fields.js';
import { DEFAULT_AWARENESS_BLOCK, DEFAULT_STATE_ACKNOWLEDGEMENT } from './prompts.js';
import { SemanticTriggerOptionsSchema } from './semantic-trigger-options.js';
import { StalenessOptionsSchema } from './staleness-options.js';

/** Tokens kept free for the model's answer when `reserveOutputTokens` is not given. */
export const DEFAULT_RESERVE_OUTPUT_TOKENS = 4_096;
/** Share of the budget above which the engine compresses. */
export const DEFAULT_COMPRESS_AT = 0.7;
/** Share of the budget the engine compresses down to, in one batch. */
export const DEFAULT_COMPRESS_TO = 0.6;
/** Share of the budget never exceeded: past it the oldest whole turns are dropped. */
export const DEFAULT_HARD_LIMIT = 0.85;
/** Share of the budget a single tool result may take before it is shortened by relevance (`shortenByRelevance`). */
export const DEFAULT_MAX_TOOL_RESULT_SHARE = 0.3;
/** Share of the budget a recall block may take. */
export const DEFAULT_RECALL_SHARE = 0.1;
/** Milliseconds a summarizer may take before the engine falls back. */
export const DEFAULT_SUMMARIZER_TIMEOUT_MS = 30_000;
/** How long stored states live. */
export const DEFAULT_STATE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Prompt-cache prices as multiples of the input price. */
const CachePricingSchema = group({
  /** Price of a cached input token. @default 0.1 */
  read: number('a number of at least 0', (schema) => schema.nonnegative()).default(0.1),
  /** Price of an input token written to the cache. @default 1.25 */
  write: number('a number greater than 0', (schema) => schema.positive()).default(1.25),
});

/** Prompt-cache prices as multiples of the input price (Anthropic: reads 0.1x, writes 1.25x). */
export const DEFAULT_CACHE_PRICING: Readonly<z.output<typeof CachePricingSchema>> = Object.freeze(
  CachePricingSchema.parse({}),
);

/**
 * The options of the compression engine, shared by both adapters: the one source of their types, their checks and
 * their defaults (`resolveOptions`), and of the options reference (`npm run docs:options`).
 */
export const CompressionOptionsSchema = z.strictObject({
  /** The model's context window in tokens. @default looked up from the model id; an error when unknown */
  contextWindow: whole(1_024, ' of tokens').optional(),
  /**
   * Tokens kept free for the answer; the budget is `contextWindow - reserveOutputTokens`.
   * @default 4096, at most a quarter of the context window
   */
  reserveOutputTokens: whole(0, ' of tokens').optional(),
  /** Compress when the prompt passes this share of the budget. @default 0.7 */
  compressAt: share().default(DEFAULT_COMPRESS_AT),
  /** Compress down to this share of the budget. @default 0.6 */
  compressTo: share().default(DEFAULT_COMPRESS_TO),
  /** Never exceed this share of the budget; the oldest whole turns are dropped if all else failed. @default 0.85 */
  hardLimit: number('a number greater than 0 and at most 1', (schema) => schema.gt(0).lte(1)).default(
    DEFAULT_HARD_LIMIT,
  ),
  /** A tool result larger than this is shortened by relevance, every block still present. @default 30% of the budget */
  maxToolResultTokens: whole(1, ' of tokens').optional(),
  /** Folds evicted messages into the session state. @default the offline extractive summarizer */
  summarizer: custom<Summarizer | SummarizeFunction>(
    'a model, an object with summarize({ messages, previous, abortSignal }), or an async function',
    (value) => typeof value === 'function' || hasMethods(value, ['summarize']),
  ).default(() => extractiveSummarizer()),
  /** Milliseconds before a summarizer is abandoned. @default 30000 */
  summarizerTimeoutMs: timeout().default(DEFAULT_SUMMARIZER_TIMEOUT_MS),
  /** Counts tokens. @default gptTokenizerCounter() (o200k_base) */
  tokenCounter: custom<TokenCounter>('an object with count(text)', (value) => hasMethods(value, ['count'])).optional(),
  /** Where states are kept between calls. @default an in-memory LRU store */
  store: custom<StateStore>('an object with async get(key) and set(key, value)', (value) =>
    hasMethods(value, ['get', 'set']),
  ).optional(),
  /**
   * Milliseconds a store's get or set may take; a slower or failing store reads as empty for that call, which goes
   * on (compressing again if it must), and `onError` gets a `StoreError` with `fallback: 'without-store'`.
   * @default 2000
   */
  storeTimeoutMs: timeout().default(DEFAULT_STORE_TIMEOUT_MS),
  /** Lifetime of stored states in milliseconds. @default 604800000 (7 days) */
  stateTtlMs: whole(1, ' of milliseconds').default(DEFAULT_STATE_TTL_MS),
  /**
   * Several instances (processes, servers) sharing a `store` that has `setIfAbsent` and `delete` (the Redis,
   * PostgreSQL and SQLite stores): one of them runs the summarizer for a fold, under a short lease in the store; the
   * others wait up to `waitMs` for the state it makes, then go on without it (sent uncompressed below the hard limit;
   * above it, the oldest turns left out until a call finds the state), reported as a `SummarizerError`
   * `held-elsewhere`. A lease holds for all a fold may take (the summarizer's timeout, the embedder's, twice the
   * store's) and 5 s more, and is given up as soon as the state is stored or the fold failed, so a crashed holder
   * blocks no one for long. `false`: each instance summarizes on its own. Without a `store` of the caller's there is
   * nothing to share, and no lease. Instances sharing a store and namespace should share their options too.
   * @default { waitMs: 3000 }
   */
  foldLease: switchable(
    z.strictObject({
      /** Milliseconds an instance waits for the state another one is making. @default 3000 */
      waitMs: whole(0, ' of milliseconds', 2_147_483_647).default(DEFAULT_FOLD_LEASE_WAIT_MS),
    }),
  ).prefault({}),
  /** Separates stored states, e.g. per tenant; per-call options can add to it. @default '' */
  namespace: text().default(''),
  /** Text appended to the system prompt on every call; empty: none. @default DEFAULT_AWARENESS_BLOCK */
  awarenessBlock: text().default(DEFAULT_AWARENESS_BLOCK),
  /** The assistant reply that follows the session state message. @default DEFAULT_STATE_ACKNOWLEDGEMENT */
  acknowledgement: nonEmptyText().default(DEFAULT_STATE_ACKNOWLEDGEMENT),
  /**
   * Observation masking: tool results older than the `keepRecent` newest become short placeholders (their calls
   * stay), in batches of at least `clearAtLeast` tokens, and only when the savings pay for the prompt-cache break,
   * or when the prompt is over the compression threshold. `false` turns it off. @default on, DEFAULT_MASKING_OPTIONS
   */
  masking: switchable(MaskingOptionsSchema).prefault({}),
  /**
   * Fold old turns into the session state when masking is not enough. `false` keeps only masking, redaction and
   * truncation, with dropping the oldest turns past the hard limit as the last resort. @default true
   */
  folding: flag().default(true),
  /**
   * Semantic triggers: `semantic` folds a finished segment (a subtask done, an intent change, a file, module, test
   * or API boundary) below the budget threshold when the fold pays for its cache break; `staleness` masks tool
   * results that were superseded or went stale, with the reason. `false` turns a detector family off.
   * @default both on, DEFAULT_SEMANTIC_TRIGGER_OPTIONS and DEFAULT_STALENESS_OPTIONS
   */
  triggers: group({
    /** Semantic folds below the budget threshold (they need `folding`); `false` turns them off. @default on */
    semantic: switchable(SemanticTriggerOptionsSchema).prefault({}),
    /** Masking of superseded and stale tool results (it needs `masking`); `false` turns it off. @default on */
    staleness: switchable(StalenessOptionsSchema).prefault({}),
  }).prefault({}),
  /**
   * Replays the model's redaction directives (calls of `redactionTool()`) found in the conversation. `false` turns
   * it off. @default { toolName: DEFAULT_REDACTION_TOOL_NAME }
   */
  redaction: switchable(
    z.strictObject({
      /** The redaction tool's name, as registered with the model. @default DEFAULT_REDACTION_TOOL_NAME */
      toolName: nonEmptyText().default(DEFAULT_REDACTION_TOOL_NAME),
      /** Tools whose results are never redacted. @default masking.excludeTools */
      excludeTools: toolNames().optional(),
    }),
  ).prefault({}),
  /**
   * Prompt-cache prices as multiples of the input price, for deciding whether a masking step pays for the cache
   * break it causes. @default { read: 0.1, write: 1.25 } (Anthropic's published multipliers)
   */
  cachePricing: CachePricingSchema.prefault({}),
  /**
   * Recall: when a new user message arrives and earlier messages have left the prompt (folded into the state, or
   * masked tool results), the pieces of them that best match it (BM25 over the history the caller sends) are quoted
   * verbatim in a `<recalled_messages>` block just before it, within `budgetShare` of the budget. The choice is made
   * once per user message and stored with the state, so later calls send the same prefix; the block leaves the
   * prompt with its turn. `false` turns it off. @default { budgetShare: 0.1 }
   */
  recall: switchable(
    z.strictObject({
      /** Share of the budget the recall block made for one user message may take. @default 0.1 */
      budgetShare: share().default(DEFAULT_RECALL_SHARE),
    }),
  ).prefault({}),
  /**
   * Vectors for recall ranking (fused with BM25) and for merging near-duplicate salience quotes: a LangChain
   * `Embeddings`, `transformersEmbedder({ model })` (a local model, no API key), or in the AI SDK adapter an embedding
   * model. Each text is embedded once per engine; when the embedder fails or is slower than `embedderTimeoutMs`, the
   * call ranks by words alone and `onError` is told. @default none: offline, lexical and deterministic
   */
  embedder: custom<Embedder>(
    'an object with embedDocuments(texts) and embedQuery(text) (a LangChain Embeddings, transformersEmbedder(), or an AI SDK embedding model in the AI SDK adapter)',
    isEmbedder,
  ).optional(),
  /** Milliseconds a call waits for the embedder before ranking by words alone. @default 10000 */
  embedderTimeoutMs: timeout().default(DEFAULT_EMBEDDER_TIMEOUT_MS),
  /** Called by each call that changed what the model sees: a fold, a drop, or a newly shortened tool result. */
  onCompress: callback<(event: CompressEvent) => void>().optional(),
  /**
   * Called by every call, with what it sent: the history's and the prompt's tokens, the cache-stable prefix, whether
   * the session state is in the prompt, and this call's changes if it made any (a page that shows every request).
   */
  onCall: callback<(report: CallReport) => void>().optional(),
  /** Called when something failed and the engine fell back; the user's call still goes on. */
  onError: callback<(event: CompressionErrorEvent) => void>().optional(),
});

/**
 * Options of the compression engine, shared by both adapters. Every factory checks them when called: an unknown key,
 * a value out of range or `null` instead of the options object (from JavaScript) is an `InvalidOptionError` naming the
 * option, the value given and the values allowed.
 */
export type CompressionOptions = z.input<typeof CompressionOptionsSchema>;
