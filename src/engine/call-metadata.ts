import type { CallReport } from '../reports/events.js';

/** The key under which the adapters put a call's report in the framework's own metadata. */
export const METADATA_KEY = 'context-compression';

/**
 * What one call did, as plain JSON for the places a framework already shows (the AI SDK's `providerMetadata`,
 * LangChain's `response_metadata`): tokens in the provider's (calibrated) count. `change` is there when the call
 * changed what the model sees (the event `onCompress` hears).
 */
export type CompressionMetadata = {
  /** The history as the caller sent it, system prompt and tool definitions included. */
  historyTokens: number;
  /** The prompt the model received. */
  promptTokens: number;
  /** Leading tokens of the prompt byte-identical to the previous call's: what a prompt cache reads. */
  cacheablePrefixTokens: number;
  /** Messages of the history the prompt leaves out (folded into the session state, or dropped). */
  messagesOutOfPrompt: number;
  /** Whether the prompt carries the session state. */
  stateInPrompt: boolean;
  change?: {
    /** What set this call's compression off (`budget`, `semantic`, `staleness`, `recall`, ...). */
    trigger: string;
    tokensBefore: number;
    tokensAfter: number;
    messagesFolded: number;
    messagesDropped: number;
    toolResultsMasked: number;
    toolResultsRedacted: number;
    toolResultsTruncated: number;
    /** Pieces of earlier messages quoted in the recall block placed by this call, and their tokens. */
    recalledPieces: number;
    recalledTokens: number;
    summarizerCalls: number;
    /** Whether a stored state was reused instead of summarizing again. */
    reusedState: boolean;
  };
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
};

/**
 * A call's report as `CompressionMetadata`. Its token figures are read from the report when first read: a call sent
 * as it came (proven far below the thresholds without counting all of it) counts them only if somebody looks.
 */
export function callMetadata(report: CallReport): CompressionMetadata {
  const { event } = report;
  return {
    get historyTokens() {
      return report.historyTokens;
    },
    get promptTokens() {
      return report.promptTokens;
    },
    get cacheablePrefixTokens() {
      return report.cacheablePrefixTokens;
    },
    messagesOutOfPrompt: report.messagesOutOfPrompt,
    stateInPrompt: report.stateInPrompt,
    ...(event && {
      change: {
        trigger: event.trigger,
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        messagesFolded: event.messagesFolded,
        messagesDropped: event.messagesDropped,
        toolResultsMasked: event.observationsMasked.count,
        toolResultsRedacted: event.observationsRedacted.count,
        toolResultsTruncated: event.toolResultsTruncated,
        recalledPieces: event.recalled.chunks,
        recalledTokens: event.recalled.tokens,
        summarizerCalls: event.summarizerCalls,
        reusedState: event.reusedState,
      },
    }),
    ...(report.rejection && {
      rejection: {
        providerMessage: report.rejection.providerMessage,
        providerTokens: report.rejection.providerTokens,
        providerLimit: report.rejection.providerLimit,
        providerOutputTokens: report.rejection.providerOutputTokens,
        rejectedPromptTokens: report.rejection.estimatedTokens,
        learnedRatio: Math.round(report.rejection.learnedRatio * 100) / 100,
        learnedInputLimit: report.rejection.learnedInputLimit,
      },
    }),
  };
}
