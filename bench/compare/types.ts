/**
 * The contract between the comparison harness (`run.ts`) and the systems it compares. Every system sees the same
 * growing history, call by call, and reports the prompt its model received as an engine transcript, so every
 * figure is measured the same way whatever the framework.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { ModelMessage } from 'ai';
import type { TokenCounter } from '../../src/counting/token-counter.js';
import type { Transcript } from '../../src/transcript/transcript.js';

/** Everything before one model call, in both frameworks' forms. */
export interface History {
  /** The session's system prompt (its system messages joined), if any. */
  readonly instructions: string | undefined;
  /** The history as AI SDK messages (without the system prompt). Grows by appending; earlier objects are reused. */
  readonly model: readonly ModelMessage[];
  /**
   * The same history as LangChain messages: a SystemMessage first when there are instructions, one ToolMessage per
   * tool result, every message with a stable `id`. Grows by appending; earlier objects are reused, as in an agent's
   * state. Stateful systems append `base.slice(seen)` to their own state.
   */
  readonly base: readonly BaseMessage[];
}

/** The same budget for every system. */
export interface Setup {
  readonly contextWindow: number;
  readonly reserveOutputTokens: number;
  /** `contextWindow - reserveOutputTokens`: what a prompt may use. */
  readonly budget: number;
  /** The tokenizer every system that takes one is given (tiktoken o200k_base). */
  readonly tokenCounter: TokenCounter;
  /**
   * The summarizing stand-in's shared settings: `count` counts its calls (stand-ins made by `stand-in.ts` increment
   * it), `maxChars` caps each summary (15% of the budget, as an LLM asked for a summary writes a few hundred tokens).
   */
  readonly summarizerCalls: SummarizerCalls;
}

/** One system over one session. */
export interface SystemRun {
  /** Makes the model call for this history and returns the prompt the model received. */
  call(history: History): Promise<Transcript>;
  /**
   * A copy of the run whose calls and this run's never change each other: how each question is asked of the same
   * state. Absent for runs whose calls depend only on the history they are given (state kept by content, or none).
   */
  fork?(): SystemRun;
}

/** A system under comparison. */
export interface System {
  readonly name: string;
  /** One line: what it is and how it is configured. */
  readonly config: string;
  /** A fresh run for one session (no state shared between sessions). */
  create(setup: Setup): SystemRun;
}

/**
 * What a system's summarizing LLM was asked, as a provider would bill it: its calls, and the tokens of their requests
 * (everything sent: instructions, messages, the output schema) and answers, counted as o200k.
 */
export interface SummarizerCalls {
  count: number;
  maxChars?: number;
  inputTokens: number;
  outputTokens: number;
}
