import { z } from 'zod';
import type { TokenCounter } from '../counting/token-counter.js';
import { DEFAULT_EMBEDDER_TIMEOUT_MS, type Embedder, isEmbedder } from '../embeddings/embedder.js';
import { DEFAULT_FOLD_LEASE_WAIT_MS } from '../persistence/fold-lease.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../persistence/guarded-store.js';
import type { StateStore } from '../persistence/state-store.js';
import type { CompressionReport } from '../reports/compression-report.js';
import type { CompressEvent, CompressionErrorEvent } from '../reports/events.js';
import { INTENT_ORDER } from '../signals/intent.js';
import type { Intent } from '../signals/step-signals.js';
import { DEFAULT_INTENT_TRANSITIONS } from '../signals/transcript-signals.js';
import { extractiveSummarizer } from '../summarizers/extractive-summarizer.js';
import type { SummarizeFunction, Summarizer } from '../summarizers/summarizer.js';
import {
  callback,
  custom,
  flag,
  group,
  hasMethods,
  nonEmptyText,
  number,
  oneOf,
  type StrictObject,
  share,
  switchable,
  text,
  timeout,
  toolNames,
  whole,
} from './option-fields.js';
import { DEFAULT_AWARENESS_BLOCK, DEFAULT_REDACTION_TOOL_NAME, DEFAULT_STATE_ACKNOWLEDGEMENT } from './prompts.js';

/*
 * The engine's options, nested ones included, in one file: TypeScript's declaration output keeps the JSDoc of an
 * option (its hover docs, with `@default`) only where the schema holding it is declared in the same file as the
 * schema that nests it, and each shape sits in a `const` of its own (see `StrictObject`).
 */

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

const maskingShape = {
  /** Tool results kept verbatim, counted from the newest. @default 10 */
  keepRecent: whole(0).default(10),
  /** A masking step must free at least this many tokens, so the masked boundary moves in batches. @default 2000 */
  clearAtLeast: whole(0, ' of tokens').default(2_000),
  /** Tools whose results are never masked or redacted. @default [] */
  excludeTools: toolNames().default([]),
};

/** Options of observation masking: old tool results become short placeholders, their calls stay. */
export const MaskingOptionsSchema: StrictObject<typeof maskingShape> = group(maskingShape);

/** Options of observation masking: old tool results become short placeholders, their calls stay. */
export type MaskingOptions = z.input<typeof MaskingOptionsSchema>;

/** Masking options with every default in place. */
export type MaskingSettings = z.output<typeof MaskingOptionsSchema>;

/** Defaults of observation masking. */
export const DEFAULT_MASKING_OPTIONS: Readonly<MaskingSettings> = Object.freeze(MaskingOptionsSchema.parse({}));

const intents = INTENT_ORDER.join(', ');
const transitionsAllowed = `an array of [from, to] pairs of intents (${intents})`;
const intent = z.enum(INTENT_ORDER as [Intent, ...Intent[]], { error: `an intent: ${intents}` });

const semanticTriggerShape = {
  /** Edit -> test -> pass sequences and explicit completion statements. @default true */
  subtask: flag().default(true),
  /** Transitions of the assistant's intent, e.g. EXPLORE -> IMPLEMENT. @default true */
  intent: flag().default(true),
  /** A switch of working file after edits. @default true */
  file: flag().default(true),
  /** A switch of module (leading directories) after edits. @default true */
  module: flag().default(true),
  /** A test that passes after it failed. @default true */
  test: flag().default(true),
  /** A successful state-changing API call of a function-calling agent (update_, book_, cancel_, ...). @default true */
  api: flag().default(true),
  /** Intent transitions that end a segment. @default DEFAULT_INTENT_TRANSITIONS */
  transitions: z
    .array(z.tuple([intent, intent], { error: 'a [from, to] pair of intents' }).readonly(), {
      error: transitionsAllowed,
    })
    .readonly()
    .meta({ allowed: transitionsAllowed })
    .default(DEFAULT_INTENT_TRANSITIONS),
  /** A semantic fold below the budget threshold must free at least this many tokens. @default 2000 */
  minTokens: whole(0, ' of tokens').default(2_000),
  /**
   * Put off a fold while the work after the segment still quotes the segment's tool results: a path, a name or a
   * value from a result that the assistant wrote again in a later step (the engine scans the steps after the segment for them). Hiding what the
   * agent works from is the likeliest way to make it fetch it again; the fold comes once the work moved on, or when
   * the budget asks. @default true
   */
  deferWhileQuoted: flag().default(true),
};

/** Which semantic detectors run, and how much a semantic fold must free. */
export const SemanticTriggerOptionsSchema: StrictObject<typeof semanticTriggerShape> = group(semanticTriggerShape);

/** Which semantic detectors run, and how much a semantic fold must free. */
export type SemanticTriggerOptions = z.input<typeof SemanticTriggerOptionsSchema>;

/** Semantic trigger options with every default in place. */
export type SemanticTriggerSettings = z.output<typeof SemanticTriggerOptionsSchema>;

/** Defaults of the semantic triggers. */
export const DEFAULT_SEMANTIC_TRIGGER_OPTIONS: Readonly<SemanticTriggerSettings> = Object.freeze(
  SemanticTriggerOptionsSchema.parse({}),
);

const weight = () => number('a number of at least 0', (schema) => schema.min(0));

const weightsShape = {
  /** Weight of the observation's age. */
  age: weight(),
  /** Weight of the missing references to it in the recent steps. */
  references: weight(),
  /** Weight of its missing relevance to the recent steps. */
  relevance: weight(),
};

/** Weights of the staleness score's three terms, all three given. */
const StalenessWeightsSchema: StrictObject<typeof weightsShape> = group(weightsShape);

const stalenessShape = {
  /** Weights of age, missing recent references and missing relevance. @default { age: 0.3, references: 0.4, relevance: 0.3 } */
  weights: StalenessWeightsSchema.default({ age: 0.3, references: 0.4, relevance: 0.3 }),
  /** Steps after which an observation counts as fully aged. @default 20 */
  maxAge: whole(1, ' of steps').default(20),
  /** References in the recent window that make an observation fully referenced. @default 3 */
  maxReferences: whole(1).default(3),
  /** Recent steps read for references and relevance. @default 5 */
  window: whole(1, ' of steps').default(5),
  /** Score from which an observation is stale. @default 0.7 */
  threshold: weight().default(0.7),
  /**
   * Relevance (0 to 1) of an observation to the recent context; plug in embeddings here.
   * @default lexical TF-IDF cosine
   */
  relevance: callback<(observation: string, context: string) => number>().optional(),
};

/** Options of the staleness detector (seed formula: 0.3 age + 0.4 references + 0.3 relevance, threshold 0.7). */
export const StalenessOptionsSchema: StrictObject<typeof stalenessShape> = group(stalenessShape);

/** Options of the staleness detector. */
export type StalenessOptions = z.input<typeof StalenessOptionsSchema>;

/** Staleness options with every default in place. */
export type StalenessSettings = z.output<typeof StalenessOptionsSchema>;

/** Defaults of the staleness detector (seed formula: 0.3 age + 0.4 references + 0.3 relevance, threshold 0.7). */
export const DEFAULT_STALENESS_OPTIONS: Readonly<StalenessSettings> = Object.freeze(StalenessOptionsSchema.parse({}));

const cachePricingShape = {
  /** Price of a cached input token. @default 0.1 */
  read: number('a number of at least 0', (schema) => schema.nonnegative()).default(0.1),
  /** Price of an input token written to the cache. @default 1.25 */
  write: number('a number greater than 0', (schema) => schema.positive()).default(1.25),
  /** Price of an output token (a model summarizer's), for the price of a call in its report. @default 5 */
  output: number('a number of at least 0', (schema) => schema.nonnegative()).default(5),
};

/** Prompt-cache prices (and the output price) as multiples of the input price. */
const CachePricingSchema: StrictObject<typeof cachePricingShape> = group(cachePricingShape);

const foldLeaseShape = {
  /** Milliseconds an instance waits for the state another one is making. @default 3000 */
  waitMs: whole(0, ' of milliseconds', 2_147_483_647).default(DEFAULT_FOLD_LEASE_WAIT_MS),
};

/** One summarizer run per fold across instances sharing a store. */
const FoldLeaseOptionsSchema: StrictObject<typeof foldLeaseShape> = z.strictObject(foldLeaseShape);

const summarizeAheadShape = {
  /**
   * Given each background summary, to keep a serverless function alive until it is done: Vercel's `waitUntil`
   * (`@vercel/functions`), Next.js `after`, a Worker's `ctx.waitUntil`. @default none
   */
  waitUntil: callback<(work: Promise<unknown>) => void>().optional(),
  /** Aborts the summaries running and starts no more (a server shutting down). @default none */
  signal: custom<AbortSignal>(
    'an AbortSignal',
    (value) =>
      typeof value === 'object' && value !== null && 'aborted' in value && hasMethods(value, ['addEventListener']),
  ).optional(),
};

/** Summaries made in the background before the call that needs them. */
const SummarizeAheadOptionsSchema: StrictObject<typeof summarizeAheadShape> = z.strictObject(summarizeAheadShape);

const triggersShape = {
  /** Semantic folds below the budget threshold (they need `folding`); `false` turns them off. @default on */
  semantic: switchable(SemanticTriggerOptionsSchema).prefault({}),
  /** Masking of superseded and stale tool results (it needs `masking`); `false` turns it off. @default on */
  staleness: switchable(StalenessOptionsSchema).prefault({}),
};

/** The two detector families. */
const TriggerOptionsSchema: StrictObject<typeof triggersShape> = group(triggersShape);

const redactionShape = {
  /** The redaction tool's name, as registered with the model. @default DEFAULT_REDACTION_TOOL_NAME */
  toolName: nonEmptyText().default(DEFAULT_REDACTION_TOOL_NAME),
  /** Tools whose results are never redacted. @default masking.excludeTools */
  excludeTools: toolNames().optional(),
};

/** Replay of the model's redaction directives. */
const RedactionOptionsSchema: StrictObject<typeof redactionShape> = z.strictObject(redactionShape);

const recallShape = {
  /**
   * Share of the budget the recall block made for one user message may take; a question in a conversation without
   * tool calls may take twice it while the prompt stays below `compressAt`. @default 0.1
   */
  budgetShare: share().default(DEFAULT_RECALL_SHARE),
};

/** Recall of earlier messages for a new user message. */
const RecallOptionsSchema: StrictObject<typeof recallShape> = z.strictObject(recallShape);

/** Prompt-cache prices as multiples of the input price (Anthropic: reads 0.1x, writes 1.25x). */
export const DEFAULT_CACHE_PRICING: Readonly<z.output<typeof CachePricingSchema>> = Object.freeze(
  CachePricingSchema.parse({}),
);

const compressionOptionsShape = {
  /** The model's context window in tokens. @default looked up from the model id; an error when unknown */
  contextWindow: whole(1_024, ' of tokens').optional(),
  /**
   * Tokens kept free for the answer; the budget is `contextWindow - reserveOutputTokens`. A call that asks for more
   * output (its `maxOutputTokens` or `max_tokens`, or the provider package's default, as Anthropic's) keeps that free.
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
  /**
   * Milliseconds before a summarizer call is abandoned; a fold larger than the summarizer's window makes several
   * calls, each with this much time. @default 30000
   */
  summarizerTimeoutMs: timeout().default(DEFAULT_SUMMARIZER_TIMEOUT_MS),
  /**
   * Tokens one summarizer call can take in, its answer included: a fold larger than that (less the summarizer's
   * instructions, the state so far, 4096 tokens for its answer and a 10% margin) is summarized in chunks, each call
   * merging the next chunk into the state the call before returned.
   * @default the summarizer's `contextWindow` (an AI SDK or LangChain model's, looked up from its id or profile); no
   * limit for a function or the extractive summarizer
   */
  summarizerContextWindow: whole(1_024, ' of tokens').optional(),
  /**
   * Counts tokens.
   * @default gptTokenizerCounter() (o200k_base); utf8BytesCounter() in the AI SDK adapter's edge build (`edge-light`,
   * `worker`), calibrated by the provider's usage
   */
  tokenCounter: custom<TokenCounter>(
    'an object with count(text), and a calibrationFloor above 0 and at most 1 if it has one',
    (value) => hasMethods(value, ['count']) && validFloor((value as TokenCounter).calibrationFloor),
  ).optional(),
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
   * store's) and 5 s more (renewed before each call of a fold made in chunks), and is given up as soon as the state is stored or the fold failed, so a crashed holder
   * blocks no one for long. `false`: each instance summarizes on its own. Without a `store` of the caller's there is
   * nothing to share, and no lease. Instances sharing a store and namespace should share their options too.
   * @default { waitMs: 3000 }
   */
  foldLease: switchable(FoldLeaseOptionsSchema).prefault({}),
  /**
   * Summaries made ahead of time, so no request waits for the summarizer: a fold is summarized in the background
   * (after the call's prompt went out) and made by the first call from a history length at which its summary had the
   * time to be made (as many calls on as a summary takes, measured). The fold the call crossing the threshold will
   * need is planned a few calls before it; a finished segment's fold, and the budget's while the prompt is below the
   * hard limit, wait for their summary. Only a prompt over the hard limit folds at once: after the conversation's
   * first fold, the offline summarizer stands in for a summary not due yet, and the next fold starts from that summary
   * once made. The plan is stored, so the same request sends the same prompt on any instance. One summary per
   * conversation at a time; a failure goes to `onError` (`fallback: 'continued'`). `false` turns it off.
   * @default on with a model summarizer (an AI SDK or LangChain model, `modelSummarizer`, `chatModelSummarizer`), off
   * with a function (turn it on with `{}` for one that calls a model) and with the extractive summarizer
   */
  summarizeAhead: switchable(SummarizeAheadOptionsSchema).optional(),
  /** Separates stored states, e.g. per tenant; per-call options can add to it. @default '' */
  namespace: text().default(''),
  /**
   * Text that tells the model how its context is managed: after the system prompt from the first call whose prompt the
   * middleware changed, on every call of the conversation from then on (before that the prompt goes out as it came);
   * empty: none. @default DEFAULT_AWARENESS_BLOCK
   */
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
  triggers: TriggerOptionsSchema.prefault({}),
  /**
   * Replays the model's redaction directives (calls of `redactionTool()`) found in the conversation. `false` turns
   * it off. @default { toolName: DEFAULT_REDACTION_TOOL_NAME }
   */
  redaction: switchable(RedactionOptionsSchema).prefault({}),
  /**
   * Prompt-cache prices as multiples of the input price, for deciding whether a masking step pays for the cache
   * break it causes, and with the output price for the price of a call in its report (`CompressionReport.price`).
   * @default { read: 0.1, write: 1.25, output: 5 } (Anthropic's published multipliers)
   */
  cachePricing: CachePricingSchema.prefault({}),
  /**
   * Recall: when a new user message arrives and earlier messages have left the prompt (folded into the state, or
   * masked tool results), the pieces of them that best match it (BM25 over the history the caller sends) are quoted
   * verbatim in a `<recalled_messages>` block just before it, within `budgetShare` of the budget. The choice is made
   * once per user message and stored with the state, so later calls send the same prefix; the block leaves the
   * prompt with its turn. `false` turns it off. @default { budgetShare: 0.1 }
   */
  recall: switchable(RecallOptionsSchema).prefault({}),
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
   * the session state is in the prompt, and this call's `change` if it made any (a page that shows every request).
   * The report has the shape the adapters put in the answer's metadata, told once the provider took the prompt.
   */
  onCall: callback<(report: CompressionReport) => void>().optional(),
  /** Called when something failed and the engine fell back; the user's call still goes on. */
  onError: callback<(event: CompressionErrorEvent) => void>().optional(),
  /**
   * Every prompt is checked before it is sent: it begins with the previous prompt of the conversation unless the call
   * reports a change, no recall block comes back after it left, the state and recall blocks keep to their caps, no
   * step takes it over the hard limit, no tool call is parted from its result. A plan that would break one is not
   * used and `onError` gets a `BrokenPromiseError` (`'report'`); `'throw'` makes the call throw it instead, for tests
   * and fuzzing. @default 'report'
   */
  onBrokenPromise: oneOf(['report', 'throw']).default('report'),
};

/**
 * The options of the compression engine, shared by both adapters: the one source of their types, their checks and
 * their defaults (`resolveOptions`), and of the options reference (`npm run docs:options`).
 */
export const CompressionOptionsSchema: StrictObject<typeof compressionOptionsShape> =
  z.strictObject(compressionOptionsShape);

/**
 * Options of the compression engine, shared by both adapters. Every factory checks them when called: an unknown key,
 * a value out of range or `null` instead of the options object (from JavaScript) is an `InvalidOptionError` naming the
 * option, the value given and the values allowed.
 */
export type CompressionOptions = z.input<typeof CompressionOptionsSchema>;

/** A counter's `calibrationFloor`: absent, or a ratio above 0 and at most 1. */
function validFloor(floor: unknown): boolean {
  return floor === undefined || (typeof floor === 'number' && floor > 0 && floor <= 1);
}
