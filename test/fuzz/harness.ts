/**
 * What both adapters' fuzz cases share: the library options of a generated `FuzzOptions`, the sizing of a
 * conversation for its window, and a recorder that pairs each model call with the events the library reported
 * for it.
 */
import {
  approximateCounter,
  type CompressEvent,
  type CompressionErrorEvent,
  type CompressionOptions,
  DEFAULT_AWARENESS_BLOCK,
  gptTokenizerCounter,
  type StateStore,
  type SummarizeFunction,
  type TokenCounter,
} from '../../src/index.js';
import type { ConversationSpec, FuzzOptions } from './arbitraries.js';
import { type CheckLimits, SUMMARIZER_FAILURE, type Violation } from './invariants.js';
import { budgetOf, type Sizing, sizing } from './turns.js';

/** What one case found. */
export interface CaseReport {
  /** Prompts the model received and the checker read. */
  readonly prompts: number;
  readonly violations: readonly Violation[];
  /** What the case exercised (see `ConversationChecker.coverage`). */
  readonly coverage: ReadonlyMap<string, number>;
}

// the AI SDK logs a warning per call for what the mock model does not support; the checker reads the prompts
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const gptTokenizer = gptTokenizerCounter();
const approximate = approximateCounter();

/** The token counter of a case (the library and the checker count alike). */
export function counterOf(options: FuzzOptions): TokenCounter {
  return options.counter === 'approximate' ? approximate : gptTokenizer;
}

/** Loads the default tokenizer once, before any case is timed. */
export async function loadTokenizer(): Promise<void> {
  await gptTokenizer.load?.();
}

/** Usage without input tokens: the library's calibration stays at 1, so the checker's counts are the library's. */
export const NO_USAGE = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** Usage as a provider reports it: `tokens` input tokens, or none. */
export function usageOf(tokens: number | undefined) {
  return tokens === undefined ? NO_USAGE : { ...NO_USAGE, inputTokens: { ...NO_USAGE.inputTokens, total: tokens } };
}

/** Collects the events of the call in flight; the mock model takes them when it receives its prompt. */
export class EventRecorder {
  private events: CompressEvent[] = [];
  private errors: CompressionErrorEvent[] = [];

  readonly onCompress = (event: CompressEvent) => {
    this.events.push(event);
  };

  readonly onError = (event: CompressionErrorEvent) => {
    this.errors.push(event);
  };

  /** The events reported since the last take. */
  take(): { events: CompressEvent[]; errors: CompressionErrorEvent[] } {
    const taken = { events: this.events, errors: this.errors };
    this.events = [];
    this.errors = [];
    return taken;
  }
}

function summarizerOf(options: FuzzOptions): SummarizeFunction | undefined {
  if (options.summarizer === 'failing')
    return async () => {
      throw new Error(SUMMARIZER_FAILURE);
    };
  if (options.summarizer === 'default') return undefined;
  let next = 0;
  return async () => structuredClone(options.summaries[next++ % options.summaries.length] as never);
}

/** A store that keeps values as JSON text, as one backed by Redis or a database does. */
export function jsonStore(): StateStore {
  const values = new Map<string, string>();
  return {
    get: async (key) => {
      const text = values.get(key);
      return text === undefined ? undefined : JSON.parse(text);
    },
    set: async (key, value) => {
      values.set(key, JSON.stringify(value));
    },
  };
}

/** The library's options for a case, reporting to `recorder`; instances of one server share `store`. */
export function libraryOptions(
  options: FuzzOptions,
  recorder: EventRecorder,
  store: StateStore | undefined = options.store === 'json' ? jsonStore() : undefined,
): CompressionOptions {
  const summarizer = summarizerOf(options);
  return {
    contextWindow: options.contextWindow,
    ...(options.reserveOutputTokens !== undefined ? { reserveOutputTokens: options.reserveOutputTokens } : {}),
    ...(options.shares ?? {}),
    ...(options.masking !== undefined ? { masking: options.masking } : {}),
    ...(options.folding !== undefined ? { folding: options.folding } : {}),
    ...(options.recall !== undefined ? { recall: options.recall } : {}),
    ...(options.triggers !== undefined ? { triggers: options.triggers } : {}),
    ...(options.maxToolResultTokens !== undefined ? { maxToolResultTokens: options.maxToolResultTokens } : {}),
    ...(options.awarenessBlock !== undefined ? { awarenessBlock: options.awarenessBlock } : {}),
    ...(summarizer ? { summarizer } : {}),
    // summaries made ahead of time in half the cases of a summarizer of the harness's own (derived from the window,
    // so the cases drawn for a seed stay those drawn before the option existed)
    ...(summarizer && options.contextWindow % 2 === 0 ? { summarizeAhead: {} } : {}),
    ...(store ? { store } : {}),
    tokenCounter: counterOf(options),
    // a prompt that would break a promise throws: the checker reports it, with the stage and the promise
    onBrokenPromise: 'throw',
    onCompress: recorder.onCompress,
    onError: recorder.onError,
  };
}

/** The limits the checker holds a case to. */
export function checkLimits(options: FuzzOptions): CheckLimits {
  return {
    contextWindow: options.contextWindow,
    reserveOutputTokens: options.reserveOutputTokens,
    hardLimit: options.shares?.hardLimit ?? 0.85,
    recallShare: options.recall === false ? 0 : (options.recall?.budgetShare ?? 0.1),
    awareness: options.awarenessBlock ?? DEFAULT_AWARENESS_BLOCK,
    failingSummarizer: options.summarizer === 'failing',
    usageRatio: options.usageRatio,
  };
}

/** The sizing of a conversation for a case's window. */
export function caseSizing(spec: ConversationSpec, options: FuzzOptions, maxTotalTokens?: number): Sizing {
  return sizing(spec, budgetOf(options.contextWindow, options.reserveOutputTokens), counterOf(options), maxTotalTokens);
}

/** Runs `body`, turning anything it throws into the checker's verdict on it. */
export async function guarded(
  body: () => Promise<void>,
  onThrown: (error: unknown) => readonly Violation[],
): Promise<readonly Violation[]> {
  try {
    await body();
    return [];
  } catch (error) {
    return onThrown(error);
  }
}
