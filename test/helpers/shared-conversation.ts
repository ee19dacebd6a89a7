import type { SessionState } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';

/**
 * One long conversation that many requests share (as instances of a service see it): 14 tool-call turns, then one of
 * several questions of the same length, so every request plans the same fold.
 */
export function sharedConversation(question: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < 14; turn++) {
    messages.push({
      role: 'user',
      parts: [{ type: 'text', text: `Step ${turn}: ${'look into the cache layer '.repeat(8)}` }],
    });
    messages.push({
      role: 'assistant',
      parts: [{ type: 'tool-call', id: `call-${turn}`, name: 'read_file', args: { path: `src/f${turn}.ts` } }],
    });
    messages.push({
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: `call-${turn}`,
          name: 'read_file',
          output: `export const f${turn} = ${'1 + '.repeat(60)}1;`,
        },
      ],
    });
    messages.push({
      role: 'assistant',
      parts: [{ type: 'text', text: `Read f${turn}: ${'it adds ones '.repeat(10)}` }],
    });
  }
  messages.push({
    role: 'user',
    parts: [{ type: 'text', text: `Question ${String(question).padStart(2, '0')}: what does f3 do?` }],
  });
  return messages;
}

/** A state a test summarizer returns, telling who made it. */
export function sharedState(madeBy: string): SessionState {
  return {
    logos: ['f0..f13 add ones'],
    pathos: [],
    abstract: ['reading the cache layer'],
    conversationSummary: `Read the files of the cache layer one by one (summarized by ${madeBy}).`,
  };
}

/** Whether every tool call of a prompt has its result, in order, before the next user message. */
export function pairedCalls(messages: readonly Message[]): boolean {
  const open = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') open.add(part.id);
      if (part.type === 'tool-result' && !open.delete(part.callId)) return false;
    }
    if (message.role !== 'assistant' && message.role !== 'tool' && open.size > 0) return false;
  }
  return open.size === 0;
}

/** The session-state message of a prompt, as text (undefined when the prompt has none). */
export function stateMessageText(messages: readonly Message[]): string | undefined {
  const found = messages.find((message) => JSON.stringify(message).includes('session_state'));
  return found && JSON.stringify(found);
}
