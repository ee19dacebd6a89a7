import type { LanguageModelV4Message, LanguageModelV4Prompt, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { Message, Part } from '../../src/transcript/transcript.js';

/**
 * Removes `providerOptions.openai.itemId`: with it, OpenAI's Responses API would resend the stored item
 * instead of the text we edited.
 */
export function withoutOpenAIItemId(
  providerOptions: SharedV4ProviderOptions | undefined,
): SharedV4ProviderOptions | undefined {
  const openai = providerOptions?.openai;
  if (!openai || !('itemId' in openai)) return providerOptions;
  const { itemId: _itemId, ...rest } = openai;
  const { openai: _openai, ...others } = providerOptions;
  return Object.keys(rest).length > 0
    ? { ...others, openai: rest }
    : Object.keys(others).length > 0
      ? others
      : undefined;
}

type ContentPart = Exclude<LanguageModelV4Message['content'], string>[number];

function rebuildPart(part: Part): ContentPart {
  const original = part.original as (ContentPart & { providerOptions?: SharedV4ProviderOptions }) | undefined;
  // only client-side results are rebuilt as text: provider-executed ones are read as `other` parts and always go out
  // as the caller's part (see `providerExecutedPart` in to-transcript.ts)
  if (part.type === 'tool-result' && part.edited) {
    const base = (original ?? { type: 'tool-result', toolCallId: part.callId, toolName: part.name }) as ContentPart;
    const providerOptions = withoutOpenAIItemId(original?.providerOptions);
    return {
      ...base,
      type: 'tool-result',
      toolCallId: part.callId,
      toolName: part.name,
      output: { type: part.isError ? 'error-text' : 'text', value: part.output },
      ...(providerOptions ? { providerOptions } : {}),
    } as ContentPart;
  }
  if (part.type === 'text' && part.edited) {
    const providerOptions = withoutOpenAIItemId(original?.providerOptions);
    return { type: 'text', text: part.text, ...(providerOptions ? { providerOptions } : {}) };
  }
  if (original) return original;
  if (part.type === 'text' || part.type === 'reasoning') return { type: part.type, text: part.text };
  throw new Error(`context-compression: cannot rebuild a ${part.type} part without its original`);
}

function fromMessage(message: Message): LanguageModelV4Message {
  if (!message.edited && message.original) return message.original as LanguageModelV4Message;
  if (message.role === 'system') {
    const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    return { ...(message.original as object), role: 'system', content: text } as LanguageModelV4Message;
  }
  const original = message.original as LanguageModelV4Message | undefined;
  return {
    ...(original ?? {}),
    role: message.role,
    content: message.parts.map(rebuildPart),
  } as LanguageModelV4Message;
}

/**
 * Converts the engine's output back into an AI SDK prompt; untouched messages are the framework objects they were
 * converted from (the caller's, or an equal one of an earlier call of the conversation, see `ConversionMemory`).
 */
export function fromTranscript(system: readonly Message[], messages: readonly Message[]): LanguageModelV4Prompt {
  return [...system.map(fromMessage), ...messages.map(fromMessage)];
}
