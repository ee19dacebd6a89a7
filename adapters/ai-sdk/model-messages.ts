import type { LanguageModelV4Message } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { type Message, messageText, type Part } from '../../src/transcript/transcript.js';
import { toolOutputText } from './to-transcript.js';
import { takePromptOfToolCall } from './tool-call-prompts.js';

/**
 * Converts the `ModelMessage`s a tool's `execute` receives (or a model's prompt, whose parts have the same fields)
 * into transcript messages, enough to validate against: roles, text, tool calls and tool results.
 */
export function modelMessagesToTranscript(messages: readonly (ModelMessage | LanguageModelV4Message)[]): Message[] {
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

const toolResultCount = (messages: readonly Message[]) =>
  messages.reduce((count, message) => count + message.parts.filter((part) => part.type === 'tool-result').length, 0);

const userTexts = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === 'user').map(messageText);

/**
 * The history a call of this package's tools answers from: the messages the framework gave the tool (the AI SDK gives
 * the whole history), or the prompt a compressed model answered with this call when that holds more tool results
 * (frameworks that give a tool little or no history: Mastra, the OpenAI Agents SDK) and every user message given.
 */
export function toolCallHistory(
  toolCallId: string | undefined,
  messages: readonly ModelMessage[] | undefined,
): Message[] {
  const given = modelMessagesToTranscript(messages ?? []);
  const prompt = takePromptOfToolCall(toolCallId);
  if (!prompt) return given;
  const remembered = modelMessagesToTranscript(prompt);
  const rememberedUserTexts = new Set(userTexts(remembered));
  // a prompt of another conversation (a reused call id) is never read
  if (!userTexts(given).every((text) => rememberedUserTexts.has(text))) return given;
  return toolResultCount(remembered) > toolResultCount(given) ? remembered : given;
}
