import type { ModelMessage } from 'ai';
import type { Message, Part } from '../../src/transcript/transcript.js';
import { toolOutputText } from './to-transcript.js';

/**
 * Converts the `ModelMessage`s a tool's `execute` receives into transcript messages, enough to validate against:
 * roles, text, tool calls and tool results.
 */
export function modelMessagesToTranscript(messages: readonly ModelMessage[]): Message[] {
  return messages.map((message) => {
    if (typeof message.content === 'string')
      return { role: message.role, parts: [{ type: 'text', text: message.content }] };
    const parts: Part[] = [];
    for (const part of message.content) {
      if (part.type === 'text') parts.push({ type: 'text', text: part.text });
      else if (part.type === 'tool-call')
        parts.push({ type: 'tool-call', id: part.toolCallId, name: part.toolName, args: part.input });
      else if (part.type === 'tool-result') {
        const { text, isError } = toolOutputText(part.output as Parameters<typeof toolOutputText>[0]);
        parts.push({ type: 'tool-result', callId: part.toolCallId, name: part.toolName, output: text, isError });
      }
    }
    return { role: message.role, parts };
  });
}
