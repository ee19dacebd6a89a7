import { LRUCache } from 'lru-cache';
import type { CallFacts } from '../call/call-facts.js';
import { announces } from '../call/stage.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { commonPrefixTokens, PrefixTracker } from '../counting/prefix-tracker.js';
import { HardLimitError, type ProviderOverflowError } from '../errors.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { CallPrice, CallReport, CompressEvent } from '../reports/events.js';
import type { SummarizerUsage } from '../reports/usage.js';
import type { Message } from '../transcript/transcript.js';
import { compressEvent } from './compress-event.js';
import type { Decided } from './decide.js';
import { type EditReport, reportEdits } from './report-edits.js';
import type { Listeners } from './safe-listeners.js';
import { extendsMark, type HistoryMark } from './sent-prompts.js';

/** What a call's view changed beside its plans, and whether the call tells `onCompress` of its changes. */
export interface CallEdits {
  readonly edits: EditReport;
  readonly announced: boolean;
}

/**
 * The report stage: what a call changed, told once through `onCompress` (and what went wrong through `onError`),
 * measured against what this instance sent last for the conversation (its prompt and the results it showed cut).
 */
export class CallReporter {
  private readonly prefixes = new PrefixTracker();
  private readonly truncatedShown = new LRUCache<string, ReadonlySet<string>>({ max: 1_000 });
  /** The history of each conversation's last call: what a prompt cache would have read of the next one sent whole. */
  private readonly histories = new LRUCache<string, HistoryMark>({ max: 1_000 });

  constructor(
    private readonly options: Partial<Listeners>,
    private readonly meter: MessageMeter,
    /** Whether the caller listens to every call (`onCall`): the report is made only then. */
    private readonly reportCalls = false,
    /** Prices of cached, written and output tokens, for a call's price. */
    private readonly pricing: CallPricing = { read: 0.1, write: 1.25, output: 5 },
  ) {}

  /** Reports a summarizer failure and a prompt left over the hard limit (`total` tokens); neither fails the call. */
  failures(facts: CallFacts, decided: Decided, total: number): void {
    if (decided.failure) {
      // dropped by this call, or the drop an earlier failure made sent again
      const fallback =
        decided.point.coveredCount > decided.lasting.coveredCount ? 'dropped-oldest-turns' : 'sent-uncompressed';
      this.options.onError?.({ error: decided.failure, fallback });
    }
    if (total > facts.limits.hardLimit) {
      this.options.onError?.({
        error: new HardLimitError({
          promptTokens: Math.round(total * facts.limits.ratio),
          hardLimitTokens: Math.round(facts.limits.hardLimit * facts.limits.ratio),
        }),
        fallback: 'over-hard-limit',
      });
    }
  }

  /**
   * What the call's view changed beside its stages' plans (results shortened, redactions of the latest step), measured
   * against what this instance sent last, and whether the call tells `onCompress` of its changes.
   */
  edits(facts: CallFacts, decided: Pick<Decided, 'projection' | 'point'> & Partial<Decided>): CallEdits {
    const edits = reportEdits({
      facts,
      view: decided.projection.view,
      covered: decided.point.coveredCount,
      previousPrompt: this.prefixes.previous(facts.conversationKey),
      previousTruncated: this.truncatedShown.get(facts.conversationKey) ?? new Set(),
      meter: this.meter,
    });
    const announced =
      (decided.decisions?.length ?? 0) + edits.decisions.length > 0 &&
      (announces(decided) || edits.redacted.count + edits.truncated.count > 0 || decided.stateRefitted === true);
    return { edits, announced };
  }

  /** Tells `onCall` of a call's report (every call, once: see `CompressionEngine.reportCall`). */
  called(report: CallReport): void {
    if (this.reportCalls) this.options.onCall?.(report);
  }

  /**
   * The call's decisions, event and report; `onCompress` hears of it only when the call changed what the model sees
   * (`onCall` hears of every call's report through `called`).
   */
  changes({
    facts,
    decided,
    edits: { edits, announced },
    sent,
    tokensBefore,
    tokensAfter,
    reusedState,
  }: {
    facts: CallFacts;
    decided: Decided;
    edits: CallEdits;
    /** Measures of the messages sent after the system prompt. */
    sent: readonly MessageMeasure[];
    tokensBefore: number;
    tokensAfter: number;
    reusedState: boolean;
  }): { decisions: CompressionDecision[]; event: CompressEvent | undefined; report: CallReport } {
    this.truncatedShown.set(facts.conversationKey, edits.truncatedShown);
    const cacheablePrefixTokens = this.prefixes.update(facts.conversationKey, [...facts.fixedMeasures, ...sent]);
    const decisions = [...decided.decisions, ...edits.decisions];
    const outcome = {
      decisions,
      messagesFolded: decided.messagesFolded,
      messagesDropped: decided.messagesDropped,
      masked: decided.masked,
      redacted: edits.redacted,
      truncated: edits.truncated,
      summarizerMs: decided.summarizerMs,
      summarizerCalls: decided.summarizerCalls,
      summarizerUsage: decided.summarizerUsage,
      quotesRejected: decided.quotesRejected,
      reusedState,
      recalled: decided.recalled,
    };
    const event = compressEvent(outcome, { limits: facts.limits, tokensBefore, tokensAfter, cacheablePrefixTokens });
    // reported once, by the call that changed what the model sees; later calls reuse the same view silently
    if (event && announced) this.options.onCompress?.(event);
    const { ratio } = facts.limits;
    const historyTokens = this.historyCount(facts);
    const promptTokens = Math.round(tokensAfter * ratio);
    const sentPrice = this.priced(cacheablePrefixTokens * ratio, promptTokens);
    // priced when the prompt is not the history as it came (a call sent as it came costs what it costs)
    const { point } = decided;
    const changed =
      event !== undefined ||
      point.coveredCount > 0 ||
      point.state !== undefined ||
      point.masked.size > 0 ||
      tokensAfter !== tokensBefore;
    const price = changed ? this.priceOf(facts, historyTokens, sentPrice, event?.summarizerUsage) : undefined;
    if (!changed) this.histories.set(facts.conversationKey, historyMark(facts));
    const report: CallReport = {
      get historyTokens() {
        return historyTokens();
      },
      promptTokens,
      cacheablePrefixTokens: Math.round(cacheablePrefixTokens * ratio),
      messagesOutOfPrompt: decided.point.coveredCount,
      stateInPrompt: decided.point.state !== undefined,
      event,
    };
    // read when read, as `historyTokens`
    if (price) Object.defineProperty(report, 'price', { get: price, enumerable: true });
    return { decisions, event, report };
  }

  /**
   * Reports a call that left the history as it came (nothing to change, proven without counting it all): the same
   * figures `changes` gives such a call, each counted only when a listener reads it. `sent` are the measures of the
   * messages sent, whose tokens may be counted on read.
   */
  unchanged({
    facts,
    sent,
    promptTokens,
  }: {
    facts: CallFacts;
    sent: readonly MessageMeasure[];
    /** The prompt's tokens, counted when called. */
    promptTokens: () => number;
  }): CallReport {
    this.truncatedShown.set(facts.conversationKey, new Set());
    this.histories.set(facts.conversationKey, historyMark(facts));
    const sentPrompt = [...facts.fixedMeasures, ...sent];
    const { ratio } = facts.limits;
    const historyTokens = this.historyCount(facts);
    const count = promptCounts(
      promptTokens,
      this.prefixes.replace(facts.conversationKey, sentPrompt) ?? [],
      sentPrompt,
    );
    const report: CallReport = {
      get historyTokens() {
        return historyTokens();
      },
      get promptTokens() {
        return Math.round(count().prompt * ratio);
      },
      get cacheablePrefixTokens() {
        return Math.round(count().prefix * ratio);
      },
      messagesOutOfPrompt: 0,
      stateInPrompt: false,
      event: undefined,
    };
    return report;
  }

  /**
   * The call's price (see `CallPrice`), counted when first asked for: the history as it came priced by the part the
   * previous call's history had (read) and the rest (written), the prompt sent as `sent` gives, the summarizer's usage
   * by its own figures.
   */
  private priceOf(
    facts: CallFacts,
    historyTokens: () => number,
    sent: number,
    summarizerUsage: SummarizerUsage | undefined,
  ): () => CallPrice {
    const previous = this.histories.get(facts.conversationKey);
    this.histories.set(facts.conversationKey, historyMark(facts));
    const { read, write, output } = this.pricing;
    return countedOnce(() => {
      const history = historyTokens();
      const before =
        previous && extendsMark(facts.prefixHashes, previous)
          ? Math.min(history, this.historyTokens(facts, previous.length))
          : 0;
      const uncompressed = Math.round(this.priced(before, history));
      const summarizer = Math.round(summarizerUsage ? summarizerPrice(summarizerUsage, { read, write, output }) : 0);
      const paid = Math.round(sent);
      return { uncompressed, sent: paid, summarizer, saved: uncompressed - paid - summarizer };
    });
  }

  /** A prompt of `tokens` whose first `cached` a prompt cache reads, the rest written. */
  private priced(cached: number, tokens: number): number {
    return cached * this.pricing.read + Math.max(0, tokens - cached) * this.pricing.write;
  }

  /** `historyTokens`, counted when first asked for and kept. */
  private historyCount(facts: CallFacts): () => number {
    return countedOnce(() => this.historyTokens(facts));
  }

  /** The history as the caller sent it, fixed part included, in the provider's (calibrated) tokens. */
  private historyTokens(facts: CallFacts, length = facts.messages.length): number {
    let history = 0;
    for (let index = 0; index < length; index++) history += this.meter.measure(facts.messages[index] as Message).tokens;
    return Math.round((facts.fixedTokens + history) * facts.limits.ratio);
  }
}

/** Prices of cached, written and output tokens, as multiples of the input price (the engine's `cachePricing`). */
export interface CallPricing {
  readonly read: number;
  readonly write: number;
  readonly output: number;
}

/** Where a call's history stood. */
function historyMark(facts: CallFacts): HistoryMark {
  return { length: facts.messages.length, hash: facts.prefixHashes[facts.messages.length] as number };
}

/** A summarizer's reported tokens priced: uncached input at 1, cached at `read`, written at `write`, output at `output`. */
function summarizerPrice(usage: SummarizerUsage, { read, write, output }: CallPricing): number {
  const input = usage.inputTokens ?? 0;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return (
    Math.max(0, input - cacheRead - cacheWrite) +
    cacheRead * read +
    cacheWrite * write +
    (usage.outputTokens ?? 0) * output
  );
}

/** The prompt's tokens and its prefix shared with the previous call's, counted when first asked for and kept. */
function promptCounts(
  promptTokens: () => number,
  before: readonly MessageMeasure[],
  sent: readonly MessageMeasure[],
): () => { prompt: number; prefix: number } {
  return countedOnce(() => ({ prompt: promptTokens(), prefix: commonPrefixTokens(before, sent) }));
}

/**
 * `count`, run when first asked for and kept, then let go of with all it holds: a report kept with an answer (in an
 * agent's state, say) must not keep its call's facts and measures alive. Each caller makes `count` in a function of
 * its own, so that the report's getters do not hold what `count` holds.
 */
function countedOnce<T>(count: () => T): () => T {
  let pending: (() => T) | undefined = count;
  let value: T | undefined;
  return () => {
    if (pending) {
      value = pending();
      pending = undefined;
    }
    return value as T;
  };
}

/** A call's report with the provider's rejection of its first prompt (its getters kept: figures read on demand). */
export function withRejection(report: CallReport, rejection: ProviderOverflowError): CallReport {
  return Object.defineProperties(
    {},
    {
      ...Object.getOwnPropertyDescriptors(report),
      rejection: { value: rejection, enumerable: true },
    },
  ) as CallReport;
}
