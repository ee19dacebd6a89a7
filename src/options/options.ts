import { z } from 'zod';
import type { TokenCounter } from '../counting/token-counter.js';
import { type Embedder, isEmbedder } from '../embeddings/embedder.js';
import type { CompressEvent, CompressionErrorEvent } from '../engine/events.js';
import { InvalidOptionError } from '../errors.js';
import type { StateStore } from '../store/state-store.js';
import type { MaskingOptions } from '../strategies/observation-masking.js';
import type { SummarizeFunction, Summarizer } from '../summarizers/summarizer.js';
import type { SemanticTriggerOptions } from '../triggers/semantic-triggers.js';
import type { StalenessOptions } from '../triggers/staleness.js';

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

/** Options of the compression engine, shared by both adapters. */
export interface CompressionOptions {
  /** The model's context window in tokens. @default looked up from the model id; an error when unknown */
  contextWindow?: number;
  /** Tokens kept free for the answer; the budget is `contextWindow - reserveOutputTokens`. @default 4096 */
  reserveOutputTokens?: number;
  /** Compress when the prompt passes this share of the budget. @default 0.7 */
  compressAt?: number;
  /** Compress down to this share of the budget. @default 0.6 */
  compressTo?: number;
  /** Never exceed this share of the budget; the oldest whole turns are dropped if all else failed. @default 0.85 */
  hardLimit?: number;
  /** A tool result larger than this is shortened by relevance, every block still present. @default 30% of the budget */
  maxToolResultTokens?: number;
  /** Folds evicted messages into the session state. @default the offline extractive summarizer */
  summarizer?: Summarizer | SummarizeFunction;
  /** Milliseconds before a summarizer is abandoned. @default 30000 */
  summarizerTimeoutMs?: number;
  /** Counts tokens. @default gptTokenizerCounter() (o200k_base) */
  tokenCounter?: TokenCounter;
  /** Where states are kept between calls. @default an in-memory LRU store */
  store?: StateStore;
  /**
   * Milliseconds a store's get or set may take; a slower or failing store reads as empty for that call, which goes
   * on (compressing again if it must), and `onError` gets a `StoreError` with `fallback: 'without-store'`.
   * @default 2000
   */
  storeTimeoutMs?: number;
  /** Lifetime of stored states in milliseconds. @default 7 days */
  stateTtlMs?: number;
  /** Separates stored states, e.g. per tenant; per-call options can add to it. @default '' */
  namespace?: string;
  /** Text appended to the system prompt on every call. @default DEFAULT_AWARENESS_BLOCK */
  awarenessBlock?: string;
  /** The assistant reply that follows the session state message. @default DEFAULT_STATE_ACKNOWLEDGEMENT */
  acknowledgement?: string;
  /**
   * Observation masking: tool results older than the `keepRecent` newest become short placeholders (their calls
   * stay), in batches of at least `clearAtLeast` tokens, and only when the savings pay for the prompt-cache break,
   * or when the prompt is over the compression threshold. `false` turns it off. @default on, DEFAULT_MASKING_OPTIONS
   */
  masking?: MaskingOptions | false;
  /**
   * Semantic triggers: `semantic` folds a finished segment (a subtask done, an intent change, a file, module, test
   * or API boundary) below the budget threshold when the fold pays for its cache break; `staleness` masks tool
   * results that were superseded or went stale, with the reason. `false` turns a detector family off.
   * @default both on, DEFAULT_SEMANTIC_TRIGGER_OPTIONS and DEFAULT_STALENESS_OPTIONS
   */
  triggers?: { semantic?: SemanticTriggerOptions | false; staleness?: StalenessOptions | false };
  /**
   * Fold old turns into the session state when masking is not enough. `false` keeps only masking, redaction and
   * truncation, with dropping the oldest turns past the hard limit as the last resort. @default true
   */
  folding?: boolean;
  /**
   * Replays the model's redaction directives (calls of `redactionTool()`) found in the conversation. `false` turns
   * it off; `excludeTools` defaults to `masking.excludeTools`. @default { toolName: DEFAULT_REDACTION_TOOL_NAME }
   */
  redaction?: { toolName?: string; excludeTools?: string[] } | false;
  /**
   * Prompt-cache prices as multiples of the input price, for deciding whether a masking step pays for the cache
   * break it causes. @default { read: 0.1, write: 1.25 } (Anthropic's published multipliers)
   */
  cachePricing?: { read?: number; write?: number };
  /**
   * Recall: when a new user message arrives and earlier messages have left the prompt (folded into the state, or
   * masked tool results), the pieces of them that best match it (BM25 over the history the caller sends) are quoted
   * verbatim in a `<recalled_messages>` block just before it, within `budgetShare` of the budget. The choice is made
   * once per user message and stored with the state, so later calls send the same prefix; the block leaves the
   * prompt with its turn. `false` turns it off. @default { budgetShare: DEFAULT_RECALL_SHARE } (0.1)
   */
  recall?: { budgetShare?: number } | false;
  /**
   * Vectors for recall ranking (fused with BM25) and for merging near-duplicate salience quotes: a LangChain
   * `Embeddings`, `transformersEmbedder({ model })` (a local model, no API key), or in the AI SDK adapter an embedding
   * model. Each text is embedded once per engine; when the embedder fails or is slower than `embedderTimeoutMs`, the
   * call ranks by words alone and `onError` is told. @default none: offline, lexical and deterministic
   */
  embedder?: Embedder;
  /** Milliseconds a call waits for the embedder before ranking by words alone. @default 10000 */
  embedderTimeoutMs?: number;
  /** Called by each call that changed what the model sees: a fold, a drop, or a newly shortened tool result. */
  onCompress?: (event: CompressEvent) => void;
  /** Called when something failed and the engine fell back; the user's call still goes on. */
  onError?: (event: CompressionErrorEvent) => void;
}

const share = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .gt(0)
    .lt(1);
const positiveInt = z.number().int().positive();
/** A timer's milliseconds: past 2^31 - 1, setTimeout fires at once. */
const timeout = positiveInt.max(2_147_483_647);

const OptionsSchema = z.object({
  contextWindow: positiveInt.min(1_024).optional(),
  reserveOutputTokens: z.number().int().nonnegative().optional(),
  compressAt: share('compressAt').optional(),
  compressTo: share('compressTo').optional(),
  hardLimit: z.number().gt(0).lte(1).optional(),
  maxToolResultTokens: positiveInt.optional(),
  summarizerTimeoutMs: timeout.optional(),
  embedderTimeoutMs: timeout.optional(),
  storeTimeoutMs: timeout.optional(),
  stateTtlMs: positiveInt.optional(),
  namespace: z.string().optional(),
  awarenessBlock: z.string().optional(),
  acknowledgement: z.string().min(1).optional(),
  masking: z
    .union([
      z.literal(false),
      z
        .object({
          keepRecent: z.number().int().nonnegative().optional(),
          clearAtLeast: z.number().int().nonnegative().optional(),
          excludeTools: z.array(z.string()).optional(),
        })
        .strict(),
    ])
    .optional(),
  folding: z.boolean().optional(),
  triggers: z
    .object({
      semantic: z.union([z.literal(false), z.record(z.string(), z.unknown())]).optional(),
      staleness: z.union([z.literal(false), z.record(z.string(), z.unknown())]).optional(),
    })
    .strict()
    .optional(),
  redaction: z
    .union([
      z.literal(false),
      z.object({ toolName: z.string().min(1).optional(), excludeTools: z.array(z.string()).optional() }).strict(),
    ])
    .optional(),
  cachePricing: z
    .object({ read: z.number().nonnegative().optional(), write: z.number().positive().optional() })
    .strict()
    .optional(),
  recall: z
    .union([z.literal(false), z.object({ budgetShare: share('recall.budgetShare').optional() }).strict()])
    .optional(),
});

/** Prompt-cache prices as multiples of the input price (Anthropic: reads 0.1x, writes 1.25x). */
export const DEFAULT_CACHE_PRICING = Object.freeze({ read: 0.1, write: 1.25 });

/**
 * Validates options when a factory is called, so mistakes fail at start-up with the option's name, not in the
 * middle of a conversation.
 */
export function validateOptions(options: CompressionOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidOptionError({ option: 'options', message: 'expected an object' });
  }
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const option = issue?.path.join('.') || 'options';
    const value = issue?.path.reduce<unknown>((inner, key) => (inner as Record<PropertyKey, unknown>)?.[key], options);
    throw new InvalidOptionError({ option, message: `${issue?.message ?? 'invalid'} (got ${JSON.stringify(value)})` });
  }
  const compressAt = options.compressAt ?? DEFAULT_COMPRESS_AT;
  const compressTo = options.compressTo ?? DEFAULT_COMPRESS_TO;
  const hardLimit = options.hardLimit ?? DEFAULT_HARD_LIMIT;
  if (!(compressTo < compressAt)) {
    throw new InvalidOptionError({
      option: 'compressTo',
      message: `must be below compressAt (${compressAt}), got ${compressTo}`,
    });
  }
  if (!(compressAt < hardLimit)) {
    throw new InvalidOptionError({
      option: 'compressAt',
      message: `must be below hardLimit (${hardLimit}), got ${compressAt}`,
    });
  }
  if (options.contextWindow !== undefined && options.reserveOutputTokens !== undefined) {
    checkReserve(options.contextWindow, options.reserveOutputTokens);
  }
  for (const name of ['onCompress', 'onError'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new InvalidOptionError({ option: name, message: 'expected a function' });
    }
  }
  const { summarizer, store, tokenCounter, embedder } = options;
  if (embedder !== undefined && !isEmbedder(embedder)) {
    throw new InvalidOptionError({
      option: 'embedder',
      message:
        'expected an object with embedDocuments(texts) and embedQuery(text) (a LangChain Embeddings, transformersEmbedder(), or an AI SDK embedding model in the AI SDK adapter)',
    });
  }
  if (
    summarizer !== undefined &&
    typeof summarizer !== 'function' &&
    (typeof summarizer !== 'object' || summarizer === null || typeof summarizer.summarize !== 'function')
  ) {
    throw new InvalidOptionError({
      option: 'summarizer',
      message: 'expected a model, an object with summarize({ messages, previous, abortSignal }), or an async function',
    });
  }
  if (
    store !== undefined &&
    (typeof store !== 'object' || store === null || typeof store.get !== 'function' || typeof store.set !== 'function')
  ) {
    throw new InvalidOptionError({
      option: 'store',
      message: 'expected an object with async get(key) and set(key, value)',
    });
  }
  if (
    tokenCounter !== undefined &&
    (typeof tokenCounter !== 'object' || tokenCounter === null || typeof tokenCounter.count !== 'function')
  ) {
    throw new InvalidOptionError({ option: 'tokenCounter', message: 'expected an object with count(text)' });
  }
}

/** Checks that the reserved output leaves a usable budget; also applied to windows looked up from a model id. */
export function checkReserve(contextWindow: number, reserveOutputTokens: number): void {
  if (reserveOutputTokens >= contextWindow / 2) {
    throw new InvalidOptionError({
      option: 'reserveOutputTokens',
      message: `must be less than half of the context window (${contextWindow}), got ${reserveOutputTokens}`,
    });
  }
}
