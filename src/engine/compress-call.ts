import type { ProviderOverflowError } from '../errors.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { CallReport, CompressEvent } from '../reports/events.js';
import type { PromptContinuation } from '../summarizers/prompt-continuation.js';
import type { Message, Transcript } from '../transcript/transcript.js';

/** One call to compress. */
export interface CompressInput {
  readonly transcript: Transcript;
  /** The model's id, for the context-window table. */
  readonly modelId: string;
  /** Key of the per-model calibration, e.g. `provider:modelId`. @default modelId */
  readonly modelKey?: string;
  /**
   * The model's context window when the adapter knows it (e.g. from a LangChain model profile). The engine's
   * `contextWindow` option wins over it; the table of known models is the last resort.
   */
  readonly contextWindow?: number;
  /**
   * Output tokens the call asks the model for: its `maxOutputTokens` / `max_tokens`, else the provider's default for
   * the model when the adapter knows it (Anthropic's SDKs send one on every call, and count it against the window).
   * The budget keeps them free when they are more than the configured reserve (and at most 3/4 of the window).
   */
  readonly maxOutputTokens?: number;
  /** Added to the engine's namespace for this call, e.g. a user or tenant id. */
  readonly namespace?: string;
  /** Fold all complete turns now, whatever the budget says. */
  readonly force?: boolean;
  /**
   * The adapter reports the call itself, once the provider took the prompt (`CompressionEngine.reportCall`): a call
   * the provider rejects and the adapter retries is then reported once, by the retry. @default false
   */
  readonly deferReport?: boolean;
  /** The provider's rejection this compression retries after: the call's report tells of it (`CallReport.rejection`). */
  readonly retryOf?: ProviderOverflowError;
  /**
   * The request this call will send, as a key of the adapter's (identity only): remembered with the prompt, so that a
   * later call of the conversation can make its summary as a continuation of it (`continueRequest`).
   */
  readonly request?: object;
  /**
   * The summary request continuing an earlier call's request (the `request` it carried): that request as it was sent,
   * this call's messages from history index `from` up to `to` (those the fold takes that came after it), and an
   * instruction as the last user message. Undefined when the adapter no longer knows that request, or the provider's
   * usage showed no prompt cache for it.
   */
  readonly continueRequest?: (request: object, from: number, to: number) => PromptContinuation['complete'] | undefined;
}

/** The compressed prompt and what was done to it. */
export interface CompressOutput {
  /** The caller's system messages followed by the awareness block: the same bytes on every call. */
  readonly system: readonly Message[];
  /** The session state pair (when a state exists), then the kept messages. */
  readonly messages: readonly Message[];
  /** Our token estimate of the whole prompt before calibration, to learn from the provider's count. */
  readonly estimatedTokens: number;
  readonly decisions: readonly CompressionDecision[];
  /** Folds that would have paid for their cache break but were put off: the work after them still quotes their results. */
  readonly deferred: readonly CompressionDecision[];
  /** Present when this call compressed. */
  readonly event: CompressEvent | undefined;
  /**
   * What this call sent, as `onCall` hears it; figures of a call sent as it came are counted when first read (see
   * `CallReport`).
   */
  readonly report: CallReport;
}
