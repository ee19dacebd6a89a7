import { LRUCache } from 'lru-cache';
import type { CallFacts } from '../call/call-facts.js';
import { announces } from '../call/stage.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { commonPrefixTokens, PrefixTracker } from '../counting/prefix-tracker.js';
import { HardLimitError, type ProviderOverflowError } from '../errors.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { CallReport, CompressEvent } from '../reports/events.js';
import { compressEvent } from './compress-event.js';
import type { Decided } from './decide.js';
import { type EditReport, reportEdits } from './report-edits.js';
import type { Listeners } from './safe-listeners.js';

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

  constructor(
    private readonly options: Partial<Listeners>,
    private readonly meter: MessageMeter,
    /** Whether the caller listens to every call (`onCall`): the report is made only then. */
    private readonly reportCalls = false,
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
    const report: CallReport = {
      get historyTokens() {
        return historyTokens();
      },
      promptTokens: Math.round(tokensAfter * ratio),
      cacheablePrefixTokens: Math.round(cacheablePrefixTokens * ratio),
      messagesOutOfPrompt: decided.point.coveredCount,
      stateInPrompt: decided.point.state !== undefined,
      event,
    };
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

  /** `historyTokens`, counted when first asked for and kept. */
  private historyCount(facts: CallFacts): () => number {
    return countedOnce(() => this.historyTokens(facts));
  }

  /** The history as the caller sent it, fixed part included, in the provider's (calibrated) tokens. */
  private historyTokens(facts: CallFacts): number {
    const history = facts.messages.reduce((sum, message) => sum + this.meter.measure(message).tokens, 0);
    return Math.round((facts.fixedTokens + history) * facts.limits.ratio);
  }
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
