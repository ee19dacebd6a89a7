import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ModelMessage } from 'ai';

/** One message in the shared session file format (the same as ../shared/fixtures). */
export interface SessionFileMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: Array<{ id: string; name: string; args: unknown }>;
  toolCallId?: string;
  toolName?: string;
}

/** One recorded session: an agent run or a conversation. */
export interface SessionFile {
  id: string;
  source?: string;
  task?: string;
  messages: SessionFileMessage[];
  qa?: Array<{ question: string; answer: unknown; category: string; evidenceIdx: number[] }>;
}

/** Reads a JSON-lines file of sessions. */
export function readSessions(path: string): SessionFile[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as SessionFile);
}

/** The shared fixtures folder beside the checkout, or undefined when it is absent (a fresh clone). */
export function fixturesDir(): string | undefined {
  const candidates = [
    resolve(process.cwd(), '../shared/fixtures'),
    resolve(import.meta.dirname ?? '.', '../../../shared/fixtures'),
  ];
  return candidates.find((dir) => existsSync(resolve(dir, 'trajectories.jsonl')));
}

/** The session's instructions (its system messages) and its other messages as AI SDK model messages. */
export function toModelMessages(session: SessionFile): { instructions: string | undefined; messages: ModelMessage[] } {
  const system = session.messages.filter((message) => message.role === 'system').map((message) => message.content);
  const messages: ModelMessage[] = [];
  for (const message of session.messages) {
    if (message.role === 'system') continue;
    if (message.role === 'user') messages.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant') {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) {
        messages.push({ role: 'assistant', content: message.content || '(no text)' });
        continue;
      }
      messages.push({
        role: 'assistant',
        content: [
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...calls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.args,
          })),
        ],
      });
    } else {
      const result = {
        type: 'tool-result' as const,
        toolCallId: message.toolCallId ?? '',
        toolName: message.toolName ?? 'tool',
        output: { type: 'text' as const, value: message.content },
      };
      const previous = messages.at(-1);
      if (previous?.role === 'tool') previous.content.push(result);
      else messages.push({ role: 'tool', content: [result] });
    }
  }
  return { instructions: system.length > 0 ? system.join('\n\n') : undefined, messages };
}

/**
 * The model calls of a replay: one per assistant turn, each prompt being the history before that turn.
 * Returns the index (exclusive end) into `messages` of every call's prompt.
 */
export function assistantTurns(messages: readonly ModelMessage[]): number[] {
  const ends: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && index > 0) ends.push(index);
  });
  return ends;
}
