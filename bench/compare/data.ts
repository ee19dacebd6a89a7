/**
 * The replayed data: every trajectory and conversation of ../shared/fixtures, as per-call histories in both
 * frameworks' forms, with the windows each data set is measured at.
 */
import { resolve } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import type { ModelMessage } from 'ai';
import { toBaseMessages } from '../../examples/lib/session-base-messages.js';
import { readSessions, type SessionFile, toModelMessages } from '../../examples/lib/session-file.js';
import type { History } from './types.js';

/** A session prepared for replay. */
export interface Replay {
  readonly session: SessionFile;
  /** One history per model call: everything before each assistant message. */
  readonly calls: readonly History[];
  /** The history at question time (all messages and a question), for conversations. */
  readonly questionTime: History | undefined;
}

/** The question asked at the end of a conversation, after which evidence retention is measured. */
export const QUESTION = 'A question about something we talked about earlier: what do you remember of it?';

/** A history whose last message (the user message at question time) is replaced by `text`, in both forms. */
export function askedAt(history: History, text: string): History {
  return {
    instructions: history.instructions,
    model: [...history.model.slice(0, -1), { role: 'user', content: text }],
    base: [...history.base.slice(0, -1), new HumanMessage({ content: text, id: 'question' })],
  };
}

/** Number of AI SDK messages that `toModelMessages` makes of each prefix of a session. */
function modelCounts(session: SessionFile): number[] {
  const counts: number[] = [];
  let count = 0;
  let previous: string | undefined;
  for (const message of session.messages) {
    if (message.role !== 'system' && !(message.role === 'tool' && previous === 'tool')) count++;
    if (message.role !== 'system') previous = message.role;
    counts.push(count);
  }
  return counts;
}

/** Prepares one session: a history per assistant turn and, for conversations, one at question time. */
export function prepare(session: SessionFile, withQuestion: boolean): Replay {
  const { instructions, messages: model } = toModelMessages(session);
  const base = toBaseMessages(session.messages);
  const counts = modelCounts(session);
  const calls: History[] = [];
  session.messages.forEach((message, index) => {
    if (message.role !== 'assistant' || index === 0) return;
    calls.push({
      instructions,
      model: model.slice(0, counts[index - 1] ?? 0),
      base: base.messages.slice(0, base.after[index - 1] ?? 0),
    });
  });
  const question: ModelMessage = { role: 'user', content: QUESTION };
  const questionTime = withQuestion
    ? {
        instructions,
        model: [...model, question],
        base: [...base.messages, new HumanMessage({ content: QUESTION, id: 'question' })],
      }
    : undefined;
  return { session, calls, questionTime };
}

/** The fixture sessions. */
export function loadFixtures(dir: string): { trajectories: SessionFile[]; conversations: SessionFile[] } {
  return {
    trajectories: readSessions(resolve(dir, 'trajectories.jsonl')),
    conversations: readSessions(resolve(dir, 'conversations.jsonl')),
  };
}
