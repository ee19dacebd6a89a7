/** What one request sent and changed, for the page: the assistant message's metadata. */
export interface CompressionMetadata {
  /** Tokens of the history as the page sent it, and of the prompt the model received. */
  readonly historyTokens: number;
  readonly promptTokens: number;
  /** Messages of the history the prompt left out: folded into the session state (by this request or before). */
  readonly messagesOutOfPrompt: number;
  readonly stateInPrompt: boolean;
  /** Leading tokens the prompt shares with the previous request's: what a provider's prompt cache reads. */
  readonly cacheablePrefixTokens: number;
  /** What this request changed: the trigger, messages folded, tool results masked, pieces recalled. */
  readonly trigger: string | undefined;
  readonly messagesFolded: number;
  readonly resultsMasked: number;
  readonly recalled: number;
}
