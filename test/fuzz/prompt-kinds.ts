/**
 * What the checker (`invariants.ts`) needs to know of each framework's prompt: its transcript (through the adapter's
 * own conversion), message JSON, where its system prompt ends and what the caller's should become, and which of its
 * messages are empty.
 */

import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { BaseMessage } from '@langchain/core/messages';
import { toTranscript as aiSdkTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { toTranscript as langChainTranscript } from '../../adapters/langchain/to-transcript.js';
import type { Transcript } from '../../src/advanced.js';

/** What the checker needs to know of a framework's prompt type. */
export interface PromptKind<P> {
  readonly name: 'ai-sdk' | 'langchain';
  transcript(prompt: P, tools: readonly unknown[] | undefined): Transcript;
  /** JSON of each message, in order. */
  messageJson(prompt: P): string[];
  /** Count of leading system messages. */
  leadingSystem(prompt: P): number;
  /** The leading system messages of a prompt, as JSON, in the form `expectedSystem` gives. */
  systemHead(prompt: P): string[];
  /** The leading system messages expected in a sent prompt, as JSON, for a caller's prompt. */
  expectedSystem(caller: P, awareness: string): string[];
  /** Indexes of sent messages that are empty. */
  emptyMessages(prompt: P): number[];
}

const isBlank = (text: unknown) => typeof text !== 'string' || text.trim() === '';

export const AI_SDK: PromptKind<LanguageModelV4Prompt> = {
  name: 'ai-sdk',
  transcript: (prompt, tools) => aiSdkTranscript(prompt, tools as never),
  messageJson: (prompt) => prompt.map((message) => JSON.stringify(message)),
  leadingSystem: (prompt) => countLeading(prompt, (message) => message.role === 'system'),
  systemHead(prompt) {
    return prompt.slice(0, this.leadingSystem(prompt)).map((message) => JSON.stringify(message));
  },
  expectedSystem(caller, awareness) {
    const head = caller.slice(0, this.leadingSystem(caller)).map((message) => JSON.stringify(message));
    return awareness ? [...head, JSON.stringify({ role: 'system', content: awareness })] : head;
  },
  emptyMessages: (prompt) =>
    prompt.flatMap((message, index) => {
      if (message.role === 'system') return isBlank(message.content) ? [index] : [];
      const parts = message.content as ReadonlyArray<{ type: string; text?: unknown }>;
      const empty = parts.length === 0 || parts.every((part) => part.type === 'text' && isBlank(part.text));
      return empty ? [index] : [];
    }),
};

function lcContentJson(message: BaseMessage): string {
  return JSON.stringify({ type: message.getType(), content: message.content });
}

function lcBlank(content: BaseMessage['content']): boolean {
  if (typeof content === 'string') return content.trim() === '';
  return content.every(
    (block) => (block as { type?: string }).type === 'text' && isBlank((block as { text?: unknown }).text),
  );
}

export const LANGCHAIN: PromptKind<BaseMessage[]> = {
  name: 'langchain',
  transcript: (messages, tools) => langChainTranscript(messages, tools as unknown[] | undefined),
  messageJson: (messages) =>
    messages.map((message) =>
      JSON.stringify({
        type: message.getType(),
        content: message.content,
        id: message.id,
        tool_calls: (message as { tool_calls?: unknown }).tool_calls,
        tool_call_id: (message as { tool_call_id?: unknown }).tool_call_id,
        additional_kwargs: message.additional_kwargs,
      }),
    ),
  leadingSystem: (messages) => countLeading(messages, (message) => ['system', 'developer'].includes(message.getType())),
  systemHead(messages) {
    return messages.slice(0, this.leadingSystem(messages)).map(lcContentJson);
  },
  expectedSystem(caller, awareness) {
    const head = caller.slice(0, this.leadingSystem(caller));
    const json = head.map(lcContentJson);
    if (!awareness) return json;
    const last = head.at(-1);
    if (!last) return [JSON.stringify({ type: 'system', content: awareness })];
    const content = last.content;
    const merged =
      typeof content === 'string'
        ? content === ''
          ? awareness
          : `${content}\n\n${awareness}`
        : [...content, { type: 'text', text: awareness }];
    return [...json.slice(0, -1), JSON.stringify({ type: 'system', content: merged })];
  },
  emptyMessages: (messages) =>
    messages.flatMap((message, index) => {
      const type = message.getType();
      if (type === 'tool') return [];
      const calls = (message as { tool_calls?: unknown[] }).tool_calls ?? [];
      return calls.length === 0 && lcBlank(message.content) ? [index] : [];
    }),
};

function countLeading<T>(items: readonly T[], test: (item: T) => boolean): number {
  let count = 0;
  while (count < items.length && test(items[count] as T)) count++;
  return count;
}
