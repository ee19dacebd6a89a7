/**
 * The replayed data: every trajectory and conversation of ../shared/fixtures, as per-call histories in both
 * frameworks' forms, with the windows each data set is measured at.
 */
import { resolve } from 'node:path';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { ModelMessage } from 'ai';
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

function baseMessages(session: SessionFile): { messages: BaseMessage[]; after: number[] } {
  const system = session.messages.filter((message) => message.role === 'system').map((message) => message.content);
  const messages: BaseMessage[] = system.length
    ? [new SystemMessage({ content: system.join('\n\n'), id: 'system' })]
    : [];
  const after: number[] = [];
  session.messages.forEach((message, index) => {
    const id = `m${index}`;
    if (message.role === 'user') messages.push(new HumanMessage({ content: message.content, id }));
    else if (message.role === 'assistant') {
      const calls = message.toolCalls ?? [];
      const content = calls.length === 0 ? message.content || '(no text)' : message.content;
      messages.push(
        new AIMessage({
          content,
          id,
          tool_calls: calls.map((call) => ({
            id: call.id,
            name: call.name,
            args: call.args as Record<string, unknown>,
          })),
        }),
      );
    } else if (message.role === 'tool')
      messages.push(
        new ToolMessage({
          content: message.content,
          id,
          tool_call_id: message.toolCallId ?? '',
          name: message.toolName ?? 'tool',
        }),
      );
    after.push(messages.length);
  });
  return { messages, after };
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
  const base = baseMessages(session);
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
