import { z } from 'zod';
import type { SummarizerUsage } from '../reports/usage.js';
import { mergeSessionStates } from '../session-state/merge-session-state.js';
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
 * The instruction a continued prompt ends with: which of the messages above to fold (all but the last `keptAfter`)
 * and what to answer. Without a state, the whole state as JSON. With one, only the change to it: the entries to add,
 * the entries to drop, and the new summary (see `stateFromText`); the model reads the state from the prompt, and does
 * not write again what it holds (its output, the dearest tokens of the request, is the change alone).
 */
export function continuationInstruction(
  instructions: string,
  { keptAfter, hasState }: Pick<PromptContinuation, 'keptAfter' | 'hasState'>,
): string {
  const span =
    keptAfter > 0
      ? `every message of this conversation above, except the last ${keptAfter === 1 ? 'message' : `${keptAfter} messages`} (they stay in the conversation as they are)`
      : 'every message of this conversation above';
  const answer = hasState
    ? `The <session_state> block at the start of the conversation is the memory so far. Do not write it again: answer with the change to it alone, as one JSON object {"add": {"logos": [], "pathos": [], "abstract": [], "salience": []}, "drop": [], "conversationSummary": ""}, where "add" holds only entries the memory lacks, "drop" the entries of the memory that the folded messages contradict (copied exactly), and "conversationSummary" the new summary of the whole conversation.`
    : 'There is no memory so far: answer with the whole memory as one JSON object.';
  return `[Memory update: not a message of the user. Do not call a tool and do not answer the conversation.]
The messages to fold are ${span}.

${instructions}

${answer} No other text.`;
}

/** The change to a state a continued prompt asks for when there is one (see `continuationInstruction`). */
const StateChangeSchema = z.object({
  add: z
    .object({
      logos: z.array(z.string()),
      pathos: z.array(z.string()),
      abstract: z.array(z.string()),
      salience: z.array(z.string()),
    })
    .partial()
    .default({}),
  drop: z.array(z.string()).default([]),
  conversationSummary: z.string().default(''),
});

/**
 * The session state in a model's text answer: the JSON object it holds (in a code fence or bare), a whole state, or
 * a change to `previous` (entries to add and to drop, a new summary) merged into it (`mergeSessionStates`).
 * Undefined when there is none, or it is neither.
 */
export function stateFromText(text: string, previous?: SessionState): SessionState | undefined {
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
  if (previous && typeof value === 'object' && value !== null && ('add' in value || 'drop' in value)) {
    const change = StateChangeSchema.safeParse(value);
    if (!change.success) return undefined;
    const { add, drop, conversationSummary } = change.data;
    const dropped = new Set(drop.map((entry) => entry.trim()));
    const kept = (entries: readonly string[] = []) => entries.filter((entry) => !dropped.has(entry.trim()));
    return mergeSessionStates(
      {
        ...previous,
        logos: kept(previous.logos),
        pathos: kept(previous.pathos),
        abstract: kept(previous.abstract),
        salience: kept(previous.salience),
      },
      {
        logos: add.logos ?? [],
        pathos: add.pathos ?? [],
        abstract: add.abstract ?? [],
        salience: add.salience ?? [],
        conversationSummary,
      },
    );
  }
  const parsed = SessionStateSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
