import type { CallPrice, CompressionChange } from './events.js';
import type { ProviderUsage } from './usage.js';

export type { ProviderUsage } from './usage.js';

/**
 * What one call did: the report `onCall` hears and the adapters put where a framework already shows a call's details
 * (the AI SDK's `providerMetadata`, LangChain's `response_metadata`, both under `context-compression`; read them with
 * the adapter's `compressionReport`). Plain JSON, one shape everywhere; tokens in the provider's (calibrated) count.
 */
export type CompressionReport = {
  /** The history as the caller sent it, system prompt and tool definitions included. */
  historyTokens: number;
  /** The prompt the model received. */
  promptTokens: number;
  /**
   * Leading tokens of the prompt byte-identical to the previous call's: what a prompt cache can read (our estimate;
   * the provider's own figure is `providerUsage.cacheReadTokens`).
   */
  cacheablePrefixTokens: number;
  /** Messages of the history the prompt leaves out (folded into the session state, or dropped). */
  messagesOutOfPrompt: number;
  /** Whether the prompt carries the session state. */
  stateInPrompt: boolean;
  /** What this call changed in what the model sees, when it changed anything: the fields of `onCompress`'s event. */
  change?: CompressionChange;
  /**
   * When the provider rejected the call's first prompt as too long and the call was retried, compressed to fit (this
   * report is the retry's): what the provider said and what was learned for the model.
   */
  rejection?: {
    providerMessage: string;
    /** The rejected prompt's tokens as the provider counted them, when it said. */
    providerTokens: number | undefined;
    providerLimit: number | undefined;
    /** Output tokens (`max_tokens`) the provider counted against its limit, when it said. */
    providerOutputTokens: number | undefined;
    /** The rejected prompt's tokens as we counted them. */
    rejectedPromptTokens: number;
    learnedRatio: number;
    /** The model's input budget now, in the provider's tokens (prompts stay below its hard limit). */
    learnedInputLimit: number;
  };
  /**
   * The provider's own figures for the call, from the usage it answered with: in the report of the answer (AI SDK
   * `providerMetadata`, LangChain `response_metadata`), not in `onCall`, which hears of the call when the provider
   * took its prompt.
   */
  providerUsage?: ProviderUsage;
  /**
   * What the call cost against sending the history as it came, priced with the engine's `cachePricing` (see
   * `CallPrice`); on every call whose prompt was not the history as it came. `saved` summed over a conversation's calls
   * says whether compression paid.
   */
  price?: CallPrice;
};

/** @deprecated the former name of `CompressionReport`, the one shape of every report. */
export type CompressionMetadata = CompressionReport;
