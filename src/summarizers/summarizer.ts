import type { SummarizerUsage } from '../reports/usage.js';
import type { SessionState } from '../session-state/session-state.js';
import type { Message } from '../transcript/transcript.js';
import type { PromptContinuation } from './prompt-continuation.js';

/** What a summarizer receives: the messages to fold and the state that already covers earlier ones. */
export interface SummarizeInput {
  /** The messages leaving the prompt, oldest first. */
  readonly messages: readonly Message[];
  /** The state covering everything before `messages`, if any; the result must merge it. */
  readonly previous: SessionState | undefined;
  /** Aborted when the engine's timeout passes. */
  readonly abortSignal: AbortSignal;
  /**
   * Tells the engine what the summarizer's model reported of this call's tokens, for the report of the call whose
   * fold it is (`change.summarizerUsage`). The model summarizers call it; a summarizer of yours may.
   */
  readonly reportUsage?: (usage: SummarizerUsage) => void;
  /**
   * The previous call's prompt, to continue with the summary request (see `PromptContinuation`): given only to a
   * summarizer that continues prompts, when the fold's messages are in that prompt or came after it and the
   * provider's usage showed its prompt cache. `messages` and `previous` are what the request must fold, as always.
   */
  readonly continuation?: PromptContinuation;
}

/** Folds messages into a SessionState, merged with the previous one. */
export interface Summarizer {
  /** A short name for events and logs, e.g. `extractive` or `model:gpt-4o-mini`. */
  readonly name: string;
  /**
   * Tokens one call of it can take in, its output included (its model's context window), when it has a limit: a
   * fold larger than that is summarized in chunks. `summarizerContextWindow` overrides it.
   */
  readonly contextWindow?: number;
  /** The text every call of it sends besides the messages and the previous state (instructions, prompt template). */
  readonly fixedPrompt?: string;
  /**
   * Whether it makes a summary as a continuation of the call's cached prompt when the engine offers one
   * (`SummarizeInput.continuation`), which the engine then sends whole, without cutting the fold in chunks.
   */
  readonly continuesPrompts?: boolean;
  summarize(input: SummarizeInput): Promise<SessionState>;
}

/** A plain async function that folds messages into a state. */
export type SummarizeFunction = (input: SummarizeInput) => Promise<SessionState> | SessionState;

/** Accepts a summarizer object or a plain function and returns a summarizer. */
export function toSummarizer(summarizer: Summarizer | SummarizeFunction): Summarizer {
  if (typeof summarizer === 'function') return { name: 'function', summarize: async (input) => summarizer(input) };
  return summarizer;
}
