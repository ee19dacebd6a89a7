import { ContextOverflowError } from '@langchain/core/errors';
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import {
  type CompressionErrorEvent,
  contextCompressionMiddleware,
  ProviderOverflowError,
  withContextCompression,
} from '../../../adapters/langchain/index.js';
import { StreamingRecordingChatModel } from '../../helpers/langchain.js';
import { longChat } from '../../helpers/strict-provider.js';

const PLAIN = { disallowedSpecial: new Set<string>() };

/** The provider's count: twice o200k of every message's text, plus 4 per message. */
function providerCount(messages: readonly BaseMessage[]): number {
  return 2 * messages.reduce((sum, message) => sum + 4 + countTokens(message.text, PLAIN), 0);
}

type Shape = 'openai' | 'anthropic';

/** The error a provider's LangChain package throws for a too-long prompt. */
function tooLong(shape: Shape, tokens: number, limit: number): Error {
  if (shape === 'openai') {
    // @langchain/openai wraps the OpenAI SDK's 400 in LangChain's ContextOverflowError
    const cause = Object.assign(
      new Error(
        `400 This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens.`,
      ),
      { status: 400, code: 'context_length_exceeded' },
    );
    return ContextOverflowError.fromError(cause);
  }
  const body = {
    type: 'error',
    error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${limit} maximum` },
  };
  return Object.assign(new Error(`400 ${JSON.stringify(body)}`), { status: 400, error: body });
}

/** A chat model that counts 2x o200k, reports it as usage, and rejects a prompt over its window. */
class StrictChatModel extends StreamingRecordingChatModel {
  readonly rejected: number[] = [];

  constructor(
    private readonly window: number,
    private readonly shape: Shape,
  ) {
    super({ model: 'strict-model' });
  }

  private check(messages: BaseMessage[]): number {
    const tokens = providerCount(messages);
    if (tokens > this.window) {
      this.rejected.push(tokens);
      throw tooLong(this.shape, tokens, this.window);
    }
    return tokens;
  }

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const tokens = this.check(messages);
    const message = new AIMessage({
      content: 'ok',
      usage_metadata: { input_tokens: tokens, output_tokens: 1, total_tokens: tokens + 1 },
    });
    return { generations: [{ text: 'ok', message }] };
  }

  override async *_streamResponseChunks(messages: BaseMessage[]): AsyncGenerator<ChatGenerationChunk> {
    const tokens = this.check(messages);
    yield new ChatGenerationChunk({
      text: 'ok',
      message: new AIMessageChunk({
        content: 'ok',
        usage_metadata: { input_tokens: tokens, output_tokens: 1, total_tokens: tokens + 1 },
      }),
    });
  }
}

const chat = longChat(108).map((message) =>
  message.role === 'user' ? new HumanMessage(message.content) : new AIMessage(message.content),
);
/** Our count of the first call's 90 messages; the window is under twice that and over it. */
const FIRST = providerCount(chat.slice(0, 90)) / 2;
const WINDOW = Math.round(FIRST * 1.8);
const options = { contextWindow: WINDOW, reserveOutputTokens: Math.round(WINDOW * 0.1) };

/** Sends the chat as a stateless server receives it: 90 messages, then a turn more each call. */
async function replay(send: (messages: BaseMessage[]) => Promise<string>) {
  let answered = 0;
  let calls = 0;
  for (let end = 90; end <= chat.length; end += 2) {
    calls++;
    if ((await send(chat.slice(0, end))) === 'ok') answered++;
  }
  return { answered, calls };
}

function expectReported(errors: CompressionErrorEvent[], rejected: number[]) {
  expect(rejected.length).toBeGreaterThan(0);
  expect(rejected.length).toBeLessThanOrEqual(2);
  const reported = errors.filter((event) => ProviderOverflowError.isInstance(event.error));
  expect(reported.map((event) => event.fallback)).toEqual(rejected.map(() => 'retried'));
  const first = reported[0]?.error;
  expect(first && ProviderOverflowError.isInstance(first) && first.providerTokens).toBe(rejected[0]);
}

describe('LangChain: a provider that counts 2x o200k', () => {
  for (const shape of ['openai', 'anthropic'] as const) {
    it(`withContextCompression answers every call of a resent 90-message chat (invoke, ${shape})`, async () => {
      const provider = new StrictChatModel(WINDOW, shape);
      const errors: CompressionErrorEvent[] = [];
      const model = withContextCompression(provider, { ...options, onError: (event) => errors.push(event) });
      const { answered, calls } = await replay(async (messages) => (await model.invoke(messages)).text);
      expect(answered).toBe(calls);
      expectReported(errors, provider.rejected);
    });
  }

  it('withContextCompression answers every call when streamed', async () => {
    const provider = new StrictChatModel(WINDOW, 'openai');
    const errors: CompressionErrorEvent[] = [];
    const model = withContextCompression(provider, { ...options, onError: (event) => errors.push(event) });
    const { answered, calls } = await replay(async (messages) => {
      let text = '';
      for await (const chunk of await model.stream(messages)) text += chunk.text;
      return text;
    });
    expect(answered).toBe(calls);
    expectReported(errors, provider.rejected);
  });

  it('the createAgent middleware answers every call', async () => {
    const provider = new StrictChatModel(WINDOW, 'anthropic');
    const errors: CompressionErrorEvent[] = [];
    const agent = createAgent({
      model: provider,
      tools: [],
      middleware: [contextCompressionMiddleware({ ...options, onError: (event) => errors.push(event) })],
    });
    const { answered, calls } = await replay(async (messages) => {
      const result = await agent.invoke({ messages });
      return (result.messages.at(-1) as BaseMessage).text;
    });
    expect(answered).toBe(calls);
    expectReported(errors, provider.rejected);
  });

  it('without compression the same calls are rejected: the test model does reject', async () => {
    const provider = new StrictChatModel(WINDOW, 'openai');
    await expect(provider.invoke(chat.slice(0, 90))).rejects.toThrow(/maximum context length/);
  });

  it('an error that is not a rejection for length is not retried', async () => {
    const provider = new StrictChatModel(WINDOW, 'openai');
    let calls = 0;
    provider._generate = async () => {
      calls++;
      throw Object.assign(new Error('429 Rate limit reached: tokens per min (TPM)'), { status: 429 });
    };
    const errors: CompressionErrorEvent[] = [];
    const model = withContextCompression(provider, { ...options, onError: (event) => errors.push(event) });
    await expect(model.invoke(chat.slice(0, 3), { maxRetries: 0 } as never)).rejects.toThrow(/Rate limit/);
    expect(calls).toBe(1);
    expect(errors).toEqual([]);
  });
});
