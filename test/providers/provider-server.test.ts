import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import type { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { APICallError, generateText, jsonSchema, type LanguageModel, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countRequestTokens,
  errorBodies,
  LONG_CONTEXT_WINDOW,
  type ProviderApi,
  type ProviderRequest,
  type ProviderServer,
  type Reply,
  startProviderServer,
} from './provider-server.js';

/**
 * The fake provider server against the real provider packages: every package parses every answer the server gives
 * (a text and a tool call, non-streamed and streamed), reports the server's count as its input tokens, and surfaces
 * the provider's status and message when the server rejects a request over its window.
 */

const ARGS = { city: 'Paris', days: 3 };
const TEXT = 'Sunny in Paris, 21 degrees.';
/** About 800 o200k tokens: over the tight servers' window of 300. */
const LONG = 'The quick brown fox jumps over the lazy dog. '.repeat(80);
const LONG_CONTEXT_BETA = 'context-1m-2025-08-07';

/** A tool call when the request defines tools, else a text. */
function reply(request: ProviderRequest): Reply {
  const body = request.body as { tools?: unknown[] };
  return Array.isArray(body.tools) && body.tools.length > 0
    ? { toolCalls: [{ name: 'get_weather', args: ARGS }] }
    : { text: TEXT };
}

const getWeather = tool({
  description: 'The weather forecast of a city',
  inputSchema: jsonSchema<{ city: string; days: number }>({
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'number' } },
    required: ['city', 'days'],
  }),
});

const openAiTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather forecast of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number' } },
      required: ['city', 'days'],
    },
  },
};

let server: ProviderServer;
/** Window 300 for every API; Chat Completions counts the requested output too. */
let tight: ProviderServer;
/** As `tight`, with a streamed Responses request rejected by an HTTP 400. */
let tightHttp: ProviderServer;

beforeAll(async () => {
  [server, tight, tightHttp] = await Promise.all([
    startProviderServer({ reply, lifetimeMs: 60_000 }),
    startProviderServer({ reply, window: 300, countsOutput: { 'openai-chat': true }, lifetimeMs: 60_000 }),
    startProviderServer({ reply, window: 300, responsesStreamRejection: 'http', lifetimeMs: 60_000 }),
  ]);
});

afterAll(async () => {
  await Promise.all([server.close(), tight.close(), tightHttp.close()]);
});

function last(on: ProviderServer): ProviderRequest {
  const request = on.requests.at(-1);
  if (!request) throw new Error('no request received');
  return request;
}

async function caught(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** The error part of a streamed AI SDK call (the stream itself does not throw). */
async function streamError(model: LanguageModel, options: { prompt: string; maxOutputTokens?: number }) {
  const result = streamText({ model, maxRetries: 0, onError: () => {}, ...options });
  for await (const part of result.fullStream) if (part.type === 'error') return part.error;
  throw new Error('expected an error part');
}

/** An AI SDK error carrying the provider's status and message, not retried. */
function expectApiCallError(error: unknown, status: number, message: string): void {
  expect(APICallError.isInstance(error)).toBe(true);
  const apiError = error as APICallError;
  expect(apiError.statusCode).toBe(status);
  expect(apiError.message).toBe(message);
  expect(apiError.isRetryable).toBe(false);
}

const OPENAI_TOO_LONG = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

// ---------------------------------------------------------------------------------------------------------------
// AI SDK

interface AiSdkCase {
  name: string;
  api: ProviderApi;
  model: (on: ProviderServer) => LanguageModel;
  /** The message of a rejection of `LONG` with `maxOutputTokens: 50` by the tight server. */
  tooLong: (request: ProviderRequest) => string;
}

const aiSdkCases: AiSdkCase[] = [
  {
    name: '@ai-sdk/openai responses',
    api: 'openai-responses',
    model: (on) => createOpenAI({ baseURL: on.baseURL('openai'), apiKey: 'test' }).responses('gpt-5'),
    tooLong: () => OPENAI_TOO_LONG,
  },
  {
    name: '@ai-sdk/openai chat',
    api: 'openai-chat',
    model: (on) => createOpenAI({ baseURL: on.baseURL('openai'), apiKey: 'test' }).chat('gpt-4o'),
    tooLong: (request) =>
      `This model's maximum context length is 300 tokens. However, you requested ${request.inputTokens + 50} tokens ` +
      `(${request.inputTokens} in the messages, 50 in the completion). Please reduce the length of the messages or completion.`,
  },
  {
    name: '@ai-sdk/anthropic',
    api: 'anthropic',
    model: (on) => createAnthropic({ baseURL: on.baseURL('anthropic'), apiKey: 'test' })('claude-sonnet-4-5'),
    tooLong: (request) => `prompt is too long: ${request.inputTokens} tokens > 300 maximum`,
  },
  {
    name: '@ai-sdk/google',
    api: 'google',
    model: (on) => createGoogleGenerativeAI({ baseURL: on.baseURL('google'), apiKey: 'test' })('gemini-2.5-flash'),
    tooLong: (request) =>
      `The input token count (${request.inputTokens}) exceeds the maximum number of tokens allowed (300).`,
  },
];

for (const testCase of aiSdkCases) {
  describe(testCase.name, () => {
    it('answers a text, with usage, non-streamed and streamed', async () => {
      const model = testCase.model(server);
      const generated = await generateText({ model, system: 'Be brief.', prompt: 'Weather?', maxRetries: 0 });
      const request = last(server);
      expect(generated.text).toBe(TEXT);
      expect(request).toMatchObject({ api: testCase.api, stream: false });
      expect(request.inputTokens).toBe(countRequestTokens(testCase.api, request.body));
      expect(generated.usage.inputTokens).toBe(request.inputTokens);

      const streamed = streamText({ model, system: 'Be brief.', prompt: 'Weather?', maxRetries: 0 });
      expect(await streamed.text).toBe(TEXT);
      expect(last(server)).toMatchObject({ api: testCase.api, stream: true });
      expect((await streamed.usage).inputTokens).toBe(last(server).inputTokens);
    });

    it('answers a tool call, parsed, non-streamed and streamed', async () => {
      const model = testCase.model(server);
      const generated = await generateText({ model, prompt: 'Weather?', tools: { getWeather }, maxRetries: 0 });
      expect(generated.toolCalls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', ARGS]]);
      expect(generated.usage.inputTokens).toBe(last(server).inputTokens);

      const streamed = streamText({ model, prompt: 'Weather?', tools: { getWeather }, maxRetries: 0 });
      const calls = await streamed.toolCalls;
      expect(calls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', ARGS]]);
      expect((await streamed.usage).inputTokens).toBe(last(server).inputTokens);
    });

    it('surfaces the provider status and message of a rejection', async () => {
      const model = testCase.model(tight);
      const error = await caught(() => generateText({ model, prompt: LONG, maxOutputTokens: 50, maxRetries: 0 }));
      expect(last(tight).rejected?.status).toBe(400);
      expectApiCallError(error, 400, testCase.tooLong(last(tight)));
      expect((error as APICallError).responseBody).toBe(JSON.stringify(last(tight).rejected?.body));

      // a streamed Responses request is rejected inside a 200 stream (see below), the others by the same 400
      const streamed = await streamError(model, { prompt: LONG, maxOutputTokens: 50 });
      expect(last(tight).rejected?.status).toBe(testCase.api === 'openai-responses' ? 200 : 400);
      expectApiCallError(streamed, 400, testCase.tooLong(last(tight)));
    });
  });
}

describe('@ai-sdk/openai, more', () => {
  it('a streamed Responses request rejected in the stream throws before any output, as a 400', async () => {
    const model = aiSdkCases[0]?.model(tight) as LanguageModel;
    const error = await streamError(model, { prompt: LONG });
    const request = last(tight);
    expect(request.rejected).toEqual({
      status: 200,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
          message: OPENAI_TOO_LONG,
          param: 'input',
        },
        sequence_number: 2,
      },
    });
    // @ai-sdk/openai reads the error event before any output and throws an APICallError, its status derived from
    // the code (no HTTP status was sent): the whole frame is the response body
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).message).toBe(OPENAI_TOO_LONG);
    expect(JSON.parse((error as APICallError).responseBody ?? '{}')).toEqual(request.rejected?.body);
  });

  it('a streamed Responses request rejected by an HTTP 400 (responsesStreamRejection: http)', async () => {
    const model = aiSdkCases[0]?.model(tightHttp) as LanguageModel;
    const error = await streamError(model, { prompt: LONG });
    expect(last(tightHttp).rejected).toEqual({ status: 400, body: errorBodies['openai-responses'].body });
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).responseBody).toBe(JSON.stringify(errorBodies['openai-responses'].body));
  });

  it('Chat Completions without max_tokens is rejected with the messages-only text', async () => {
    const model = aiSdkCases[1]?.model(tight) as LanguageModel;
    const error = await caught(() => generateText({ model, prompt: LONG, maxRetries: 0 }));
    const request = last(tight);
    expect(request.maxTokens).toBeUndefined();
    expectApiCallError(
      error,
      400,
      `This model's maximum context length is 300 tokens. However, your messages resulted in ${request.inputTokens} tokens. Please reduce the length of the messages.`,
    );
  });

  it('sends max_output_tokens (Responses) and max_tokens (Chat Completions)', async () => {
    const openai = createOpenAI({ baseURL: server.baseURL('openai'), apiKey: 'test' });
    await generateText({ model: openai.responses('gpt-5'), prompt: 'hi', maxOutputTokens: 77, maxRetries: 0 });
    expect((last(server).body as Record<string, unknown>).max_output_tokens).toBe(77);
    expect(last(server).maxTokens).toBe(77);
    await generateText({ model: openai.chat('gpt-4o'), prompt: 'hi', maxOutputTokens: 78, maxRetries: 0 });
    expect((last(server).body as Record<string, unknown>).max_tokens).toBe(78);
    expect(last(server).maxTokens).toBe(78);
  });
});

describe('@ai-sdk/anthropic, more', () => {
  const anthropic = (on: ProviderServer) => createAnthropic({ baseURL: on.baseURL('anthropic'), apiKey: 'test' });

  it('sends max_tokens 64000 for claude-sonnet-4-5 by default', async () => {
    await generateText({ model: anthropic(server)('claude-sonnet-4-5'), prompt: 'hi', maxRetries: 0 });
    expect(last(server).maxTokens).toBe(64_000);
  });

  it('is rejected for input + max_tokens over the window with the max_tokens text', async () => {
    const model = anthropic(tight)('claude-sonnet-4-5');
    const error = await caught(() => generateText({ model, prompt: 'hi', maxRetries: 0 }));
    const request = last(tight);
    expectApiCallError(
      error,
      400,
      `input length and \`max_tokens\` exceed context limit: ${request.inputTokens} + 64000 > 300, decrease input length or \`max_tokens\` and try again`,
    );
    expect((error as APICallError).responseHeaders?.['request-id']).toMatch(/^req_/);
  });

  it('a context-1m beta (headers or providerOptions.anthropic.anthropicBeta) raises the window', async () => {
    const model = anthropic(tight)('claude-sonnet-4-5');
    const options = { prompt: LONG, maxOutputTokens: 50, maxRetries: 0 };
    await caught(() => generateText({ model, ...options }));
    expect(last(tight)).toMatchObject({ window: 300, betas: [], rejected: { status: 400 } });

    const viaHeader = await generateText({ model, ...options, headers: { 'anthropic-beta': LONG_CONTEXT_BETA } });
    expect(viaHeader.text).toBe(TEXT);
    expect(last(tight)).toMatchObject({ window: LONG_CONTEXT_WINDOW, betas: [LONG_CONTEXT_BETA] });
    expect(last(tight).rejected).toBeUndefined();

    const viaOptions = await generateText({
      model,
      ...options,
      providerOptions: { anthropic: { anthropicBeta: [LONG_CONTEXT_BETA] } },
    });
    expect(viaOptions.text).toBe(TEXT);
    expect(last(tight)).toMatchObject({ window: LONG_CONTEXT_WINDOW, betas: [LONG_CONTEXT_BETA] });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// LangChain

async function collect(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk> {
  let all: AIMessageChunk | undefined;
  for await (const chunk of stream) all = all ? all.concat(chunk) : chunk;
  if (!all) throw new Error('no chunk streamed');
  return all;
}

interface LangChainCase {
  name: string;
  api: ProviderApi;
  model: (on: ProviderServer) => ChatOpenAI | ChatAnthropic;
  /** The rejection of `LONG`, non-streamed and streamed, by the tight server. */
  tooLong: (request: ProviderRequest) => { message: string; streamedMessage: string; streamedStatus?: number };
}

const chatOpenAI = (on: ProviderServer, useResponsesApi: boolean) =>
  new ChatOpenAI({
    model: useResponsesApi ? 'gpt-5' : 'gpt-4o',
    apiKey: 'test',
    configuration: { baseURL: on.baseURL('openai') },
    useResponsesApi,
    maxRetries: 0,
  });

const chatAnthropic = (on: ProviderServer, fields: { maxTokens?: number; betas?: string[] } = {}) =>
  new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'test',
    clientOptions: { baseURL: on.baseURL('anthropic', 'langchain') },
    maxRetries: 0,
    ...fields,
  });

const langChainCases: LangChainCase[] = [
  {
    name: '@langchain/openai ChatOpenAI, Responses API',
    api: 'openai-responses',
    model: (on) => chatOpenAI(on, true),
    // the openai SDK throws the stream's `error` event as an APIError without status
    tooLong: () => ({ message: `400 ${OPENAI_TOO_LONG}`, streamedMessage: OPENAI_TOO_LONG }),
  },
  {
    name: '@langchain/openai ChatOpenAI, Chat Completions',
    api: 'openai-chat',
    model: (on) => chatOpenAI(on, false),
    tooLong: (request) => {
      const message = `400 This model's maximum context length is 300 tokens. However, your messages resulted in ${request.inputTokens} tokens. Please reduce the length of the messages.`;
      return { message, streamedMessage: message, streamedStatus: 400 };
    },
  },
  {
    name: '@langchain/anthropic ChatAnthropic',
    api: 'anthropic',
    model: (on) => chatAnthropic(on, { maxTokens: 50 }),
    // the Anthropic SDK's message is the status and the whole body
    tooLong: (request) => {
      const message = `400 ${JSON.stringify(request.rejected?.body)}`;
      return { message, streamedMessage: message, streamedStatus: 400 };
    },
  },
];

for (const testCase of langChainCases) {
  describe(testCase.name, () => {
    it('answers a text, with usage, invoked and streamed', async () => {
      const model = testCase.model(server);
      const invoked = await model.invoke([
        ['system', 'Be brief.'],
        ['human', 'Weather?'],
      ]);
      const request = last(server);
      expect(invoked.text).toBe(TEXT);
      expect(request).toMatchObject({ api: testCase.api, stream: false });
      expect(request.inputTokens).toBe(countRequestTokens(testCase.api, request.body));
      expect(invoked.usage_metadata?.input_tokens).toBe(request.inputTokens);

      const streamed = await collect(
        await model.stream([
          ['system', 'Be brief.'],
          ['human', 'Weather?'],
        ]),
      );
      expect(streamed.text).toBe(TEXT);
      expect(last(server)).toMatchObject({ api: testCase.api, stream: true });
      expect(streamed.usage_metadata?.input_tokens).toBe(last(server).inputTokens);
    });

    it('answers a tool call of a bound tool, parsed, invoked and streamed', async () => {
      const model = testCase.model(server).bindTools([openAiTool]);
      const invoked = await model.invoke('Weather?');
      expect(invoked.tool_calls?.map((call) => [call.name, call.args])).toEqual([['get_weather', ARGS]]);
      expect(invoked.usage_metadata?.input_tokens).toBe(last(server).inputTokens);

      const streamed = await collect(await model.stream('Weather?'));
      expect(last(server).stream).toBe(true);
      expect(streamed.tool_calls?.map((call) => [call.name, call.args])).toEqual([['get_weather', ARGS]]);
      expect(streamed.usage_metadata?.input_tokens).toBe(last(server).inputTokens);
    });

    it('surfaces the provider status and message of a rejection, as a ContextOverflowError', async () => {
      const model = testCase.model(tight);
      const error = (await caught(() => model.invoke(LONG))) as Error & { cause?: { status?: number } };
      expect(last(tight).rejected?.status).toBe(400);
      expect(error.name).toBe('ContextOverflowError');
      expect(error.message.split('\n')[0]).toBe(testCase.tooLong(last(tight)).message);
      expect(error.cause?.status).toBe(400);

      const streamed = (await caught(async () => collect(await model.stream(LONG)))) as Error & {
        cause?: { status?: number };
      };
      const expected = testCase.tooLong(last(tight));
      expect(streamed.name).toBe('ContextOverflowError');
      expect(streamed.message.split('\n')[0]).toBe(expected.streamedMessage);
      expect(streamed.cause?.status).toBe(expected.streamedStatus);
    });
  });
}

describe('@langchain/openai and @langchain/anthropic, more', () => {
  it('ChatOpenAI on the Responses API, a stream rejected by an HTTP 400 (responsesStreamRejection: http)', async () => {
    const error = (await caught(async () => collect(await chatOpenAI(tightHttp, true).stream(LONG)))) as Error & {
      cause?: { status?: number; code?: string };
    };
    expect(error.name).toBe('ContextOverflowError');
    expect(error.message).toBe(`400 ${OPENAI_TOO_LONG}`);
    expect(error.cause).toMatchObject({ status: 400, code: 'context_length_exceeded' });
  });

  it('ChatOpenAI sends max_output_tokens (Responses) and max_tokens (Chat Completions) from maxTokens', async () => {
    for (const useResponsesApi of [true, false]) {
      const model = new ChatOpenAI({
        model: 'gpt-4o',
        apiKey: 'test',
        configuration: { baseURL: server.baseURL('openai') },
        useResponsesApi,
        maxTokens: 66,
        maxRetries: 0,
      });
      await model.invoke('hi');
      const body = last(server).body as Record<string, unknown>;
      expect(body[useResponsesApi ? 'max_output_tokens' : 'max_tokens']).toBe(66);
      expect(last(server).maxTokens).toBe(66);
    }
  });

  it('ChatAnthropic sends max_tokens 16384 for claude-sonnet-4-5 by default', async () => {
    await chatAnthropic(server).invoke('hi');
    expect(last(server).maxTokens).toBe(16_384);
  });

  it('ChatAnthropic: input + max_tokens over the window is a plain 400, not a ContextOverflowError', async () => {
    const error = (await caught(() => chatAnthropic(tight).invoke('hi'))) as Error & { status?: number };
    const request = last(tight);
    expect(request.rejected?.status).toBe(400);
    // @langchain/anthropic recognises "prompt is too long" only
    expect(error.name).not.toBe('ContextOverflowError');
    expect(error.status).toBe(400);
    expect(error.message).toContain(
      `input length and \`max_tokens\` exceed context limit: ${request.inputTokens} + 16384 > 300`,
    );
  });

  it('ChatAnthropic betas: [context-1m] raises the window', async () => {
    const answered = await chatAnthropic(tight, { maxTokens: 50, betas: [LONG_CONTEXT_BETA] }).invoke(LONG);
    expect(answered.text).toBe(TEXT);
    expect(last(tight)).toMatchObject({ window: LONG_CONTEXT_WINDOW, betas: [LONG_CONTEXT_BETA] });
    expect(last(tight).inputTokens).toBeGreaterThan(300);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The server itself

describe('startProviderServer', () => {
  it('counts ratio × o200k plus 4 per message', async () => {
    const scaled = await startProviderServer({ ratio: 1.5 });
    try {
      const model = createOpenAI({ baseURL: scaled.baseURL('openai'), apiKey: 'test' }).chat('gpt-4o');
      const generated = await generateText({ model, system: 'Be brief.', prompt: LONG, maxRetries: 0 });
      const request = last(scaled);
      expect(request.inputTokens).toBe(countRequestTokens('openai-chat', request.body, 1.5));
      expect(request.inputTokens).toBeGreaterThan(countRequestTokens('openai-chat', request.body));
      expect(generated.usage.inputTokens).toBe(request.inputTokens);
      expect(generated.text).toBe('ok');
    } finally {
      await scaled.close();
    }
  });

  it('answers 413 over maxBodyBytes and 404 elsewhere', async () => {
    const small = await startProviderServer({ maxBodyBytes: 1000 });
    try {
      const post = (path: string, body: string) =>
        fetch(`${small.baseURL('openai')}${path}`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
      expect((await post('/chat/completions', JSON.stringify({ model: 'm', messages: [], pad: LONG }))).status).toBe(
        413,
      );
      expect((await post('/embeddings', '{}')).status).toBe(404);
      expect(small.requests).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('closes itself after lifetimeMs', async () => {
    const brief = await startProviderServer({ lifetimeMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await expect(fetch(`${brief.baseURL('google')}/models/m:generateContent`, { method: 'POST' })).rejects.toThrow();
    await brief.close();
  });
});
