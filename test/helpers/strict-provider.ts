/**
 * A mock provider that counts tokens its own way (a multiple of o200k) and rejects a prompt over its window as the
 * real providers do: the AI SDK's `APICallError` with Anthropic's, OpenAI's or Gemini's body, or an error part in the
 * stream. Used to test what happens when the provider disagrees with our count.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { textResult, usage } from './mock-model.js';

const PLAIN = { disallowedSpecial: new Set<string>() };

/** The provider's count of a prompt: `factor` times o200k of every text, plus 4 per message. */
export function providerCount(prompt: LanguageModelV4Prompt, factor: number): number {
  let tokens = 0;
  for (const message of prompt) {
    tokens += 4;
    if (typeof message.content === 'string') {
      tokens += countTokens(message.content, PLAIN);
      continue;
    }
    for (const part of message.content) {
      const text =
        part.type === 'text' || part.type === 'reasoning'
          ? part.text
          : part.type === 'tool-call'
            ? JSON.stringify(part.input)
            : part.type === 'tool-result'
              ? JSON.stringify(part.output)
              : '';
      tokens += countTokens(text, PLAIN);
    }
  }
  return Math.round(tokens * factor);
}

export type RejectionShape = 'anthropic' | 'openai' | 'openai-responses' | 'gemini' | 'llama.cpp' | 'stream-error-part';

/** The error a provider answers a too-long prompt with, as the AI SDK's provider packages build it. */
export function tooLongError(shape: Exclude<RejectionShape, 'stream-error-part'>, tokens: number, limit: number) {
  const bodies = {
    anthropic: {
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${limit} maximum` },
    },
    openai: {
      error: {
        message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    // OpenAI's Responses API: no figure at all
    'openai-responses': {
      error: {
        message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    },
    gemini: {
      error: {
        code: 400,
        message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
        status: 'INVALID_ARGUMENT',
      },
    },
    'llama.cpp': {
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: tokens,
        n_ctx: limit,
      },
    },
  } as const;
  const data = bodies[shape];
  return new APICallError({
    message: data.error.message,
    url: 'https://provider.test/v1/messages',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify(data),
    isRetryable: false,
    data,
  });
}

/** Options of `strictModel`. */
export interface StrictModelOptions {
  /** The provider's window: a prompt counted above it is rejected. */
  readonly window: number;
  /** Provider tokens per o200k token. @default 2 */
  readonly factor?: number;
  /** How the rejection comes. @default 'anthropic' */
  readonly shape?: RejectionShape;
  readonly provider?: string;
  readonly modelId?: string;
}

/** A model that answers every prompt it can read, reports its own count as usage, and rejects the others. */
export function strictModel({
  window,
  factor = 2,
  shape = 'anthropic',
  provider = 'strict.messages',
  modelId = 'strict-model',
}: StrictModelOptions) {
  const rejected: number[] = [];
  const check = (options: LanguageModelV4CallOptions) => {
    const tokens = providerCount(options.prompt, factor);
    if (tokens > window) rejected.push(tokens);
    return tokens;
  };
  const model = new MockLanguageModelV4({
    provider,
    modelId,
    doGenerate: async (options) => {
      const tokens = check(options);
      if (tokens > window) throw tooLongError(shape === 'stream-error-part' ? 'anthropic' : shape, tokens, window);
      return textResult('ok', { inputTokens: tokens });
    },
    doStream: async (options) => {
      const tokens = check(options);
      if (tokens > window && shape !== 'stream-error-part') throw tooLongError(shape, tokens, window);
      const chunks: LanguageModelV4StreamPart[] =
        tokens > window
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'error', error: tooLongError('openai', tokens, window).data },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't1' },
              { type: 'text-delta', id: 't1', delta: 'ok' },
              { type: 'text-end', id: 't1' },
              { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: usage(tokens) },
            ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
  return { model, rejected };
}

/** A resent chat of `messages` messages, each about 150 o200k tokens, facts in every one. */
export function longChat(messages: number) {
  const filler = 'The figures were checked twice against the ledger and the notes from the last review. '.repeat(8);
  return Array.from({ length: messages }, (_, index) =>
    index % 2 === 0
      ? {
          role: 'user' as const,
          content: `Step ${index}: invoice INV-${4000 + index} is due on day ${index}. ${filler}`,
        }
      : { role: 'assistant' as const, content: `Noted INV-${3999 + index} for day ${index - 1}. ${filler}` },
  );
}
