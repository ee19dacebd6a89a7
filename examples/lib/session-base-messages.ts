import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { SessionFileMessage } from './session-file.js';

/**
 * A session's messages as LangChain messages, mirroring `toModelMessages`: the system messages joined into one
 * SystemMessage (id `system`), an assistant message without calls or text says '(no text)', one ToolMessage per
 * tool result, and every other message with the id `m<index in the session>`. `after[i]` is how many LangChain
 * messages the session's first `i + 1` messages make.
 */
export function toBaseMessages(session: readonly SessionFileMessage[]): { messages: BaseMessage[]; after: number[] } {
  const system = session.filter((message) => message.role === 'system').map((message) => message.content);
  const messages: BaseMessage[] = system.length
    ? [new SystemMessage({ content: system.join('\n\n'), id: 'system' })]
    : [];
  const after: number[] = [];
  session.forEach((message, index) => {
    const id = `m${index}`;
    if (message.role === 'user') messages.push(new HumanMessage({ content: message.content, id }));
    else if (message.role === 'assistant') {
      const calls = message.toolCalls ?? [];
      messages.push(
        new AIMessage({
          content: calls.length === 0 ? message.content || '(no text)' : message.content,
          id,
          tool_calls: calls.map((call) => ({
            id: call.id,
            name: call.name,
            args: call.args as Record<string, unknown>,
            type: 'tool_call' as const,
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
