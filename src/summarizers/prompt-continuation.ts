import type { SummarizerUsage } from '../reports/usage.js';
import { type SessionState, SessionStateSchema } from '../session-state/session-state.js';

/**
 * A summary request made as a continuation of the previous call's prompt: that request as it was sent (the same
 * system prompt, tools and messages, byte for byte, so the provider reads it from its prompt cache), the messages the
 * conversation gained since, and an instruction as the last user message. Offered to a summarizer that continues
 * prompts (`Summarizer.continuesPrompts`) when the fold's messages were all in that prompt or came after it, and the
 * provider's usage showed a prompt cache at work.
 */
export interface PromptContinuation {
  /** The model the request goes to (the model of the call): a summarizer of another model does not continue it. */
  readonly modelId: string;
  /** Messages at the end of the continued prompt that stay in the conversation: the summary leaves them out. */
  readonly keptAfter: number;
  /** Whether the continued prompt carries a session state: the summary merges it. */
  readonly hasState: boolean;
  /** Sends the request with `instruction` as its last user message; the model's text and what it reported of tokens. */
  complete(instruction: string, abortSignal: AbortSignal): Promise<{ text: string; usage?: SummarizerUsage }>;
}

/**
 * The instruction a continued prompt ends with: which of the messages above to fold (all but the last `keptAfter`,
 * merged with the session state at the start when there is one) and the JSON to answer with.
 */
export function continuationInstruction(
  instructions: string,
  { keptAfter, hasState }: Pick<PromptContinuation, 'keptAfter' | 'hasState'>,
): string {
  const span =
    keptAfter > 0
      ? `every message of this conversation above, except the last ${keptAfter === 1 ? 'message' : `${keptAfter} messages`} (they stay in the conversation as they are)`
      : 'every message of this conversation above';
  const merge = hasState
    ? ' The <session_state> block at the start of the conversation is the memory so far: merge it.'
    : ' There is no memory so far.';
  return `[Memory update: not a message of the user. Do not call a tool and do not answer the conversation.]
The messages to fold are ${span}.${merge}

${instructions}

Answer with the JSON object alone, no other text.`;
}

/**
 * The session state in a model's text answer: the JSON object it holds (in a code fence or bare), read leniently as
 * the model summarizers read structured output. Undefined when there is none, or it is not a state.
 */
export function stateFromText(text: string): SessionState | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1];
  const candidate = fenced ?? text;
  const start = candidate.indexOf('{');
  const end = candidate.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(candidate.slice(start, end + 1));
  } catch {
    return undefined;
  }
  const parsed = SessionStateSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
