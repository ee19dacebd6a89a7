import { z } from 'zod';
import type { TokenCounter } from '../counting/token-counter.js';
import { type Embedder, isEmbedder } from '../embeddings/embedder.js';
import type { CallReport, CompressEvent, CompressionErrorEvent } from '../engine/events.js';
import { describeValue, InvalidOptionError, UnknownContextWindowError } from '../errors.js';
import type { StateStore } from '../persistence/state-store.js';
import type { MaskingOptions } from '../strategies/observation-masking.js';
import type { SummarizeFunction, Summarizer } from '../summarizers/summarizer.js';
import type { SemanticTriggerOptions } from '../triggers/semantic-triggers.js';
import type { StalenessOptions } from '../triggers/staleness.js';
import { lookupContextWindow } from './context-windows.js';
import { optionIssueError } from './option-issue-error.js';

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

/**
 * Options of the compression engine, shared by both adapters. Every factory checks them when called: an unknown key,
 * a value out of range or `null` instead of the options object (from JavaScript) is an `InvalidOptionError` naming the
 * option, the value given and the values allowed.
 */
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
  foldLease?: { waitMs?: number } | false;
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
  /**
   * Called by every call, with what it sent: the history's and the prompt's tokens, the cache-stable prefix, whether
   * the session state is in the prompt, and this call's changes if it made any (a page that shows every request).
   */
  onCall?: (report: CallReport) => void;
  /** Called when something failed and the engine fell back; the user's call still goes on. */
  onError?: (event: CompressionErrorEvent) => void;
}

/* Each field's schema carries its allowed values in words as its error: every issue reads "must be <that>". */
const share = () => z.number({ error: 'a number greater than 0 and less than 1' }).gt(0).lt(1);
const whole = (min: number, unit: string) =>
  z
    .number({ error: `a whole number${unit} of at least ${min}` })
    .int()
    .min(min);
/** A timer's milliseconds: past 2^31 - 1, setTimeout fires at once. */
const timeout = z
  .number({ error: 'a whole number of milliseconds from 1 to 2147483647 (about 24.8 days)' })
  .int()
  .min(1)
  .max(2_147_483_647);
const text = (expected = 'a string') => z.string({ error: expected });
const names = z.array(z.string({ error: 'a tool name' }), { error: 'an array of tool names' });
const detectors = z.union([z.literal(false), z.record(z.string(), z.unknown())], { error: 'false or an object' });

const OptionsSchema = z.strictObject({
  contextWindow: whole(1_024, ' of tokens').optional(),
  reserveOutputTokens: whole(0, ' of tokens').optional(),
  compressAt: share().optional(),
  compressTo: share().optional(),
  hardLimit: z.number({ error: 'a number greater than 0 and at most 1' }).gt(0).lte(1).optional(),
  maxToolResultTokens: whole(1, ' of tokens').optional(),
  summarizerTimeoutMs: timeout.optional(),
  embedderTimeoutMs: timeout.optional(),
  storeTimeoutMs: timeout.optional(),
  stateTtlMs: whole(1, ' of milliseconds').optional(),
  foldLease: z
    .union([z.literal(false), z.strictObject({ waitMs: whole(0, ' of milliseconds').max(2_147_483_647).optional() })], {
      error: 'false or an object { waitMs? }',
    })
    .optional(),
  namespace: text().optional(),
  awarenessBlock: text().optional(),
  acknowledgement: text('a non-empty string').min(1).optional(),
  masking: z
    .union(
      [
        z.literal(false),
        z.strictObject({
          keepRecent: whole(0, '').optional(),
          clearAtLeast: whole(0, ' of tokens').optional(),
          excludeTools: names.optional(),
        }),
      ],
      { error: 'false or an object { keepRecent?, clearAtLeast?, excludeTools? }' },
    )
    .optional(),
  folding: z.boolean({ error: 'true or false' }).optional(),
  triggers: z
    .strictObject(
      { semantic: detectors.optional(), staleness: detectors.optional() },
      { error: 'an object { semantic?, staleness? }' },
    )
    .optional(),
  redaction: z
    .union(
      [
        z.literal(false),
        z.strictObject({ toolName: text('a non-empty string').min(1).optional(), excludeTools: names.optional() }),
      ],
      { error: 'false or an object { toolName?, excludeTools? }' },
    )
    .optional(),
  cachePricing: z
    .strictObject(
      {
        read: z.number({ error: 'a number of at least 0' }).nonnegative().optional(),
        write: z.number({ error: 'a number greater than 0' }).positive().optional(),
      },
      { error: 'an object { read?, write? }' },
    )
    .optional(),
  recall: z
    .union([z.literal(false), z.strictObject({ budgetShare: share().optional() })], {
      error: 'false or an object { budgetShare? }',
    })
    .optional(),
  // checked below, with messages that say what they must offer
  summarizer: z.unknown().optional(),
  tokenCounter: z.unknown().optional(),
  store: z.unknown().optional(),
  embedder: z.unknown().optional(),
  onCompress: z.unknown().optional(),
  onCall: z.unknown().optional(),
  onError: z.unknown().optional(),
});

/** Prompt-cache prices as multiples of the input price (Anthropic: reads 0.1x, writes 1.25x). */
export const DEFAULT_CACHE_PRICING = Object.freeze({ read: 0.1, write: 1.25 });

/**
 * The options object a factory was given, read before it is validated: `undefined` reads as `{}`; `null` (possible
 * from JavaScript) or any other non-object is an InvalidOptionError, never a crash inside the factory.
 */
export function readOptions<T extends object>(options: T | undefined): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError({ option: 'options', message: `must be an object (got ${describeValue(options)})` });
  }
  return options;
}

/**
 * Validates options when a factory is called, so mistakes fail at start-up with the option's name, the value given
 * and the values allowed, not in the middle of a conversation. Unknown keys fail too, naming the closest option.
 */
export function validateOptions(options: CompressionOptions): void {
  readOptions(options);
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) throw optionIssueError(OptionsSchema, parsed.error.issues[0], options, '');
  checkShareOrder(options);
  if (options.contextWindow !== undefined && options.reserveOutputTokens !== undefined) {
    checkReserve(options.contextWindow, options.reserveOutputTokens);
  }
  for (const name of ['onCompress', 'onCall', 'onError'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') fail(name, 'a function', options[name]);
  }
  const { summarizer, store, tokenCounter, embedder } = options;
  if (embedder !== undefined && !isEmbedder(embedder)) {
    fail(
      'embedder',
      'an object with embedDocuments(texts) and embedQuery(text) (a LangChain Embeddings, transformersEmbedder(), or an AI SDK embedding model in the AI SDK adapter)',
      embedder,
    );
  }
  if (summarizer !== undefined && typeof summarizer !== 'function' && !hasMethods(summarizer, ['summarize'])) {
    fail(
      'summarizer',
      'a model, an object with summarize({ messages, previous, abortSignal }), or an async function',
      summarizer,
    );
  }
  if (store !== undefined && !hasMethods(store, ['get', 'set'])) {
    fail('store', 'an object with async get(key) and set(key, value)', store);
  }
  if (tokenCounter !== undefined && !hasMethods(tokenCounter, ['count'])) {
    fail('tokenCounter', 'an object with count(text)', tokenCounter);
  }
}

/**
 * For functions that see no model (`explainCompression`, named by `call`): fails unless the budget is known from
 * `contextWindow`, or from `modelId` through the context-window table, saying which of the two to give.
 */
export function checkWindowKnown(
  { contextWindow, modelId }: { contextWindow?: unknown; modelId?: unknown },
  call: string,
) {
  if (contextWindow !== undefined) return;
  if (modelId === undefined) {
    throw new InvalidOptionError({
      option: 'contextWindow',
      message: `${call} sees no model, so give \`contextWindow\` (tokens, e.g. 128_000) or \`modelId\` (a known id such as "gpt-4o") (got neither)`,
    });
  }
  if (typeof modelId !== 'string') fail('modelId', 'a model id string such as "gpt-4o"', modelId);
  if (lookupContextWindow(modelId) === undefined) {
    throw new UnknownContextWindowError({ modelId, example: `${call}(messages, { contextWindow: 128_000 })` });
  }
}

/** Checks that the reserved output leaves a usable budget; also applied to windows looked up from a model id. */
export function checkReserve(contextWindow: number, reserveOutputTokens: number): void {
  if (reserveOutputTokens >= contextWindow / 2) {
    fail(
      'reserveOutputTokens',
      `less than half of the context window (${contextWindow} tokens), i.e. below ${contextWindow / 2}`,
      reserveOutputTokens,
    );
  }
}

function fail(option: string, expected: string, value: unknown): never {
  throw new InvalidOptionError({ option, message: `must be ${expected} (got ${describeValue(value)})` });
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

const SHARES = [
  ['compressTo', DEFAULT_COMPRESS_TO],
  ['compressAt', DEFAULT_COMPRESS_AT],
  ['hardLimit', DEFAULT_HARD_LIMIT],
] as const;

/**
 * compressTo < compressAt < hardLimit, defaults filled in. A pair out of order blames the option the caller set: the
 * lower one when both were set, else the one given, whose message names the other's default.
 */
function checkShareOrder(options: CompressionOptions): void {
  const given = (index: number) => options[SHARES[index]?.[0] ?? 'compressAt'];
  const value = (index: number) => given(index) ?? (SHARES[index]?.[1] as number);
  const bound = (index: number) =>
    `${SHARES[index]?.[0]} = ${value(index)}${given(index) === undefined ? ' (default)' : ''}`;
  for (let lower = 0; lower < SHARES.length - 1; lower++) {
    if (value(lower) < value(lower + 1)) continue;
    const blamed = given(lower) !== undefined ? lower : lower + 1;
    const above = blamed > 0 ? bound(blamed - 1) : '0';
    const below = blamed < SHARES.length - 1 ? `less than ${bound(blamed + 1)}` : 'at most 1';
    fail(
      SHARES[blamed]?.[0] ?? 'compressAt',
      `a number greater than ${above} and ${below}, since compressTo < compressAt < hardLimit`,
      value(blamed),
    );
  }
}
