import type { ContextCompressionError, ProviderOverflowError } from '../errors.js';
import type { CompressionDecision, TriggerName } from './decisions.js';
import type { SummarizerUsage } from './usage.js';

/**
 * What a call changed in what the model sees: it folded or dropped messages, or shortened a tool result that the
 * previous call did not. The same fields in `onCompress`'s event and in every report's `change`.
 */
export type CompressionChange = {
  /** What set the compression off (`budget`, `semantic`, `staleness`, `recall`, ...). */
  readonly trigger: TriggerName;
  /** Estimated prompt tokens before and after, calibrated to the provider's count. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Messages folded into the session state by this call. */
  readonly messagesFolded: number;
  /** Messages dropped without a summary (summarizer failure over the hard limit). */
  readonly messagesDropped: number;
  /** Tool results this call newly masked (observation masking), and the tokens that freed. */
  readonly toolResultsMasked: { readonly count: number; readonly tokensFreed: number };
  /** Tool results this call newly replaced on the model's request (the redaction tool), and the tokens freed. */
  readonly toolResultsRedacted: { readonly count: number; readonly tokensFreed: number };
  /** Tool results this call newly shortened (by relevance, every block kept or named) because each alone was too large (earlier calls' cuts are not counted again). */
  readonly toolResultsTruncated: number;
  /**
   * The recall block this call placed before the latest user message (chunks quoted and tokens, 0 when none), how
   * many blocks made for earlier user messages it took out of the prompt, and how many quoted pieces it took out of
   * blocks because the model redacted their tool results.
   */
  readonly recalled: {
    readonly chunks: number;
    readonly tokens: number;
    readonly blocksDropped: number;
    readonly piecesRedacted: number;
  };
  /** Salience quotes the summarizer returned that were not verbatim in the folded messages, and were dropped. */
  readonly quotesRejected: number;
  /** Time the summarizer took, 0 when none ran. */
  readonly summarizerMs: number;
  /**
   * Summarizer calls this call made: one per fold, several for a fold larger than the summarizer's window (see
   * `summarizerContextWindow`); 0 when none ran or the state came from another instance.
   */
  readonly summarizerCalls: number;
  /**
   * What a model summarizer's provider reported of those calls (tokens in, of them read from its cache, out; its
   * model), when it reported any: a fold made ahead of time is reported by the call that uses it.
   */
  readonly summarizerUsage?: SummarizerUsage;
  /** Whether a stored state was reused instead of summarizing again. */
  readonly reusedState: boolean;
  /** Prompt tokens at the start of this call's prompt that are byte-identical to the previous call's. */
  readonly cacheablePrefixTokens: number;
};

/**
 * Reported by a call that changed what the model sees (`onCompress`): the change, with the decisions behind it. Calls
 * that only reuse an earlier compression stay silent.
 */
export interface CompressEvent extends CompressionChange {
  readonly decisions: readonly CompressionDecision[];
}

/** Reported when something failed but the call went on (a summarizer error, the hard limit not reached). */
export interface CompressionErrorEvent {
  readonly error: ContextCompressionError;
  /**
   * What the engine did instead: sent the prompt uncompressed, dropped the oldest turns, went on over the hard limit,
   * (an embedder failure) ranked and compared texts by their words alone, (a store failure or an invalid record) went
   * on as if the store held nothing and kept nothing, (unpaired tool calls or results) left them out of the prompt,
   * (a token counter that threw or returned no number) counted about four characters a token,
   * (a listener that threw) simply went on, (the provider rejected the prompt as too long) sent the call again
   * compressed to fit what it learned, or (the retry was rejected too) passed the provider's error to the caller;
   * (a prompt that would have broken a promise, a `BrokenPromiseError`) left a stage's plan out, or sent what the
   * previous call of the conversation sent, continued.
   */
  readonly fallback:
    | 'sent-uncompressed'
    | 'dropped-oldest-turns'
    | 'over-hard-limit'
    | 'lexical'
    | 'without-store'
    | 'left-out-unpaired'
    | 'approximate-count'
    | 'continued'
    | 'retried'
    | 'rethrown'
    | 'plan-rejected'
    | 'previous-prompt';
}

/**
 * What one call sent, whether or not it changed anything (`onCall`): for dashboards and pages that show every request,
 * where `onCompress` tells only of the calls that changed what the model sees. Tokens are the provider's (calibrated).
 * A call sent as it came without counting all of it (proven far below the thresholds) counts its token figures when
 * they are read: the same numbers, paid for only by a listener that reads them.
 */
export interface CallReport {
  /**
   * The history as the caller sent it, with the system prompt and the tool definitions (and the awareness block, which
   * every prompt carries).
   */
  readonly historyTokens: number;
  /** The prompt the model received. */
  readonly promptTokens: number;
  /** Leading tokens the prompt shares with the previous call's prompt of the conversation: what a prompt cache reads. */
  readonly cacheablePrefixTokens: number;
  /** Messages of the history the prompt leaves out: folded into the session state, or dropped. */
  readonly messagesOutOfPrompt: number;
  /** Whether the prompt carries the session state (made by this call or an earlier one, in any instance). */
  readonly stateInPrompt: boolean;
  /** This call's changes, when it made any: the event `onCompress` hears. */
  readonly event: CompressEvent | undefined;
  /** What the call cost against sending the history as it came (see `CallPrice`), when its prompt was not that. */
  readonly price?: CallPrice;
  /**
   * When the provider rejected the call's first prompt as too long and the call was retried, compressed to fit: what
   * the provider said and what the engine learned from it (`learnedRatio`, `learnedInputLimit`). The report is the
   * retry's; the rejected prompt is reported nowhere else.
   */
  readonly rejection?: ProviderOverflowError;
}

/**
 * A call's price against sending the history as it came, in input-token units at the engine's `cachePricing`
 * (a cached token at `read`, a written one at `write`, an output token at `output`; an input token 1). Our estimate,
 * in the provider's (calibrated) tokens: the prompt as sent priced by its prefix shared with the previous call's, the
 * history as it came by its part the previous call's history had (what a prompt cache would have read of it), and the
 * summarizer's usage as its provider reported it. Summed over a conversation's calls, `saved` says whether
 * compression paid: a fold costs on its call (cache writes, the summary) and saves on each call after it.
 */
export type CallPrice = {
  /** The history as it came, priced as a prompt cache would have priced it. */
  uncompressed: number;
  /** The prompt as it was sent. */
  sent: number;
  /** The summarizer's calls reported with this call (input, cached input and output). */
  summarizer: number;
  /** `uncompressed` - `sent` - `summarizer`: what compression saved on this call (negative: what it cost). */
  saved: number;
};
