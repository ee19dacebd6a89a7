/**
 * Real agent histories for the overhead figures: the fixture trajectories as a model middleware receives them from
 * the AI SDK, one after another, as often as it takes to reach the wanted length.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { recordingModel } from '../examples/lib/replay.js';
import { assistantTurns, type SessionFile, toModelMessages } from '../examples/lib/session-file.js';

/** Each session's last replayed prompt (all but the final assistant turn), converted by the AI SDK itself. */
export async function sessionPrompts(sessions: readonly SessionFile[]): Promise<LanguageModelV4Prompt[]> {
  const prompts: LanguageModelV4Prompt[] = [];
  for (const session of sessions) {
    const { instructions, messages } = toModelMessages(session);
    const model = recordingModel();
    await generateText({ model, instructions, messages: messages.slice(0, assistantTurns(messages).at(-1)) });
    prompts.push(model.doGenerateCalls[0]?.prompt ?? []);
  }
  return prompts;
}

/**
 * Copies of a session's messages with fresh tool call ids, numbered with `prefix`, so ids stay unique when sessions
 * repeat (and within a session: a few recorded runs reuse an id). A result takes the id of the latest call it answers.
 */
function renumbered(messages: LanguageModelV4Prompt, prefix: string): LanguageModelV4Prompt {
  const ids = new Map<string, string>();
  return messages.map((message) => {
    if (message.role === 'assistant')
      return {
        ...message,
        content: message.content.map((part) => {
          if (part.type !== 'tool-call') return part;
          ids.set(part.toolCallId, `${prefix}${ids.size}-${part.toolCallId}`);
          return { ...part, toolCallId: ids.get(part.toolCallId) ?? part.toolCallId };
        }),
      };
    if (message.role === 'tool')
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === 'tool-result' ? { ...part, toolCallId: ids.get(part.toolCallId) ?? part.toolCallId } : part,
        ),
      };
    return message;
  });
}

/**
 * The first session's system prompt followed by `length` messages: every session's conversation in turn, again from
 * the first when they run out. A cut between a tool call and its result only ever falls at the very end.
 */
export function agentHistory(prompts: readonly LanguageModelV4Prompt[], length: number): LanguageModelV4Prompt {
  const history: LanguageModelV4Prompt = (prompts[0] ?? []).filter((message) => message.role === 'system');
  const target = history.length + length;
  for (let round = 0; history.length < target; round++) {
    for (const [index, prompt] of prompts.entries()) {
      const messages = prompt.filter((message) => message.role !== 'system');
      history.push(...renumbered(messages, `r${round}s${index}-`).slice(0, target - history.length));
    }
  }
  return history;
}

/** Every text a tokenizer reads in a prompt: texts, tool call names and inputs, tool outputs. */
export function promptTexts(prompt: LanguageModelV4Prompt): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      texts.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
      else if (part.type === 'tool-call') texts.push(`${part.toolName} ${JSON.stringify(part.input)}`);
      else if (part.type === 'tool-result')
        texts.push(part.output.type === 'text' ? part.output.value : JSON.stringify(part.output));
    }
  }
  return texts;
}

/** New message and part objects around the same strings, as the AI SDK builds its prompt on every step. */
export const rebuilt = (prompt: LanguageModelV4Prompt): LanguageModelV4Prompt =>
  prompt.map(
    (message) =>
      ({
        ...message,
        content: Array.isArray(message.content) ? message.content.map((part) => ({ ...part })) : message.content,
      }) as typeof message,
  );
