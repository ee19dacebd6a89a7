import { APICallError } from '@ai-sdk/provider';
import { generateText, type ModelMessage, streamText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompressionErrorEvent,
  type CompressionReport,
  contextCompression,
  ProviderOverflowError,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { longChat, providerCount, type RejectionShape, strictModel } from '../../helpers/strict-provider.js';

/** The resent chat: 90 messages on the first call, a turn more on each of the next nine. */
const chat = longChat(108);
/** Our count (o200k, the provider's at factor 1) of messages of the chat. */
const ours = (messages: typeof chat) =>
  providerCount(
    messages.map((message) => ({ role: message.role, content: [{ type: 'text' as const, text: message.content }] })),
    1,
  );
/** Our count of the first call's 90 messages (o200k, as the provider counts at factor 1). */
const FIRST = providerCount(
  chat
    .slice(0, 90)
    .map((message) => ({ role: message.role, content: [{ type: 'text' as const, text: message.content }] })),
  1,
);
/**
 * The provider's window: the first call is below our compression threshold (70% of the window minus the reserve)
 * by our count, and over the window by the provider's count at 2x.
 */
const WINDOW = Math.round(FIRST * 1.8);
const RESERVE = Math.round(WINDOW * 0.1);

/** Sends the chat as a stateless server receives it: the whole history each time, 90 messages and then growing. */
async function replay(
  shape: RejectionShape,
  mode: 'generate' | 'stream',
  {
    factor = 2,
    contextWindow = WINDOW,
    window = WINDOW,
    from = 90,
  }: { factor?: number; contextWindow?: number; window?: number; from?: number } = {},
) {
  const { model: provider, rejected } = strictModel({ window, factor, shape });
  const errors: CompressionErrorEvent[] = [];
  const model = withContextCompression(provider, {
    contextWindow,
    reserveOutputTokens: RESERVE,
    onError: (event) => errors.push(event),
  });
  let answered = 0;
  let calls = 0;
  for (let end = from; end <= chat.length; end += 2) {
    calls++;
    const messages: ModelMessage[] = chat.slice(0, end);
    if (mode === 'generate') {
      const { text } = await generateText({ model, instructions: 'Answer briefly.', messages, maxRetries: 0 });
      if (text === 'ok') answered++;
    } else {
      const result = streamText({ model, instructions: 'Answer briefly.', messages, maxRetries: 0, onError: () => {} });
      if ((await result.text) === 'ok') answered++;
    }
  }
  return { answered, calls, rejected, errors };
}

describe('a provider that counts more than we do', () => {
  for (const mode of ['generate', 'stream'] as const) {
    it(`answers every call of a resent 90-message chat counted at 2x (${mode}Text), each rejection reported`, async () => {
      const { answered, calls, rejected, errors } = await replay('anthropic', mode);
      expect(answered).toBe(calls);
      expect(rejected.length).toBeGreaterThan(0);
      expect(rejected.length).toBeLessThanOrEqual(2);
      const reported = errors.filter((event) => ProviderOverflowError.isInstance(event.error));
      expect(reported).toHaveLength(rejected.length);
      expect(reported.every((event) => event.fallback === 'retried')).toBe(true);
      const first = reported[0]?.error as ProviderOverflowError;
      expect(first.providerTokens).toBe(rejected[0]);
      expect(first.providerLimit).toBe(WINDOW);
      expect(first.learnedRatio).toBeGreaterThan(1.9);
      expect(first.estimatedTokens).toBeLessThan(WINDOW);
      expect(first.estimatedTokens).toBeGreaterThan(FIRST * 0.9);
    });
  }

  for (const shape of ['openai', 'openai-responses', 'gemini', 'stream-error-part'] as const) {
    it(`reads the rejection and retries it: ${shape}`, async () => {
      const { answered, calls, rejected } = await replay(shape, 'stream');
      expect(answered).toBe(calls);
      expect(rejected.length).toBeGreaterThan(0);
      expect(rejected.length).toBeLessThanOrEqual(2);
    });
  }

  it('a chat that grows from its first message is not rejected: the usage the provider reports calibrates', async () => {
    const { answered, calls, rejected } = await replay('anthropic', 'generate', { from: 1 });
    expect(answered).toBe(calls);
    expect(rejected).toEqual([]);
  });

  it('learns a window smaller than the configured one from the provider (llama.cpp)', async () => {
    const { answered, calls, rejected, errors } = await replay('llama.cpp', 'generate', {
      factor: 1,
      window: Math.round(FIRST * 0.9),
      contextWindow: WINDOW * 4,
    });
    expect(answered).toBe(calls);
    expect(rejected.length).toBe(1);
    const [first] = errors;
    expect(first && ProviderOverflowError.isInstance(first.error) && first.error.providerLimit).toBe(
      Math.round(FIRST * 0.9),
    );
  });

  it('without the retry, the same replay fails: the test provider does reject', async () => {
    const { model: provider } = strictModel({ window: WINDOW, factor: 2 });
    await expect(generateText({ model: provider, messages: chat.slice(0, 90), maxRetries: 0 })).rejects.toThrow(
      /prompt is too long/,
    );
  });
});

describe('any chat, any window, a provider counting up to 2x', () => {
  it('answers every call of a resent chat with at most two rejections, each reported', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          factor: fc.double({ min: 1, max: 2, noNaN: true }),
          // the provider's window over our count of the first call: below 1 the provider always overflows first
          room: fc.double({ min: 0.9, max: 2.4, noNaN: true }),
          joinAt: fc.integer({ min: 20, max: 100 }),
          mode: fc.constantFrom('generate' as const, 'stream' as const),
        }),
        async ({ factor, room, joinAt, mode }) => {
          const start = joinAt % 2 === 0 ? joinAt + 1 : joinAt;
          const window = Math.round(ours(chat.slice(0, start)) * room);
          const { model: provider, rejected } = strictModel({ window, factor });
          const reported: string[] = [];
          const model = withContextCompression(provider, {
            contextWindow: window,
            reserveOutputTokens: Math.round(window * 0.1),
            onError: ({ error, fallback }) => {
              if (ProviderOverflowError.isInstance(error)) reported.push(fallback);
            },
          });
          for (let end = start; end <= Math.min(chat.length, start + 10); end += 2) {
            const messages = chat.slice(0, end);
            const text =
              mode === 'generate'
                ? (await generateText({ model, messages, maxRetries: 0 })).text
                : await streamText({ model, messages, maxRetries: 0, onError: () => {} }).text;
            expect(text).toBe('ok');
          }
          expect(rejected.length).toBeLessThanOrEqual(2);
          expect(reported).toEqual(rejected.map(() => 'retried'));
        },
      ),
      { numRuns: 25, seed: 20261127 },
    );
  });
});

describe('an agent step whose own tool result does not fit the provider', () => {
  it('is answered: after the rejection, tool results are cut to what the provider counts', async () => {
    const line = (index: number) => `line ${index}: const value${index} = compute(${index}); // checked`;
    const output = Array.from({ length: 320 }, (_, index) => line(index)).join('\n');
    const task = `Fix the failing test. ${'The repository holds many modules and the test suite is long. '.repeat(250)}`;
    const messages: ModelMessage[] = [{ role: 'user', content: task }];
    for (let step = 0; step < 3; step++) {
      messages.push({
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `call-${step}`, toolName: 'bash', input: { command: `cat f${step}.ts` } },
        ],
      });
      messages.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call-${step}`,
            toolName: 'bash',
            output: { type: 'text', value: step === 2 ? output : output.slice(0, 1_500) },
          },
        ],
      });
    }
    const { model: provider, rejected } = strictModel({ window: 12_000, factor: 2 });
    const errors: CompressionErrorEvent[] = [];
    const model = withContextCompression(provider, {
      contextWindow: 12_000,
      reserveOutputTokens: 1_200,
      onError: (event) => errors.push(event),
    });
    const { text } = await generateText({ model, messages, maxRetries: 0 });
    expect(text).toBe('ok');
    expect(rejected).toHaveLength(1);
    expect(
      errors.filter((event) => ProviderOverflowError.isInstance(event.error)).map((event) => event.fallback),
    ).toEqual(['retried']);
  });
});

describe('errors that are not a rejection for length', () => {
  const cases: [string, () => Error][] = [
    [
      'a rate limit that names tokens',
      () =>
        new APICallError({
          message: 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000.',
          url: 'https://provider.test',
          requestBodyValues: {},
          statusCode: 429,
          data: { error: { code: 'rate_limit_exceeded' } },
        }),
    ],
    [
      'another bad request',
      () =>
        new APICallError({
          message: 'messages.1.content: tool_use ids must be unique',
          url: 'https://provider.test',
          requestBodyValues: {},
          statusCode: 400,
        }),
    ],
    ['a network failure', () => new TypeError('fetch failed')],
    [
      'a server error that mentions the context length',
      () =>
        new APICallError({
          message: 'Internal error while checking the maximum context length',
          url: 'https://provider.test',
          requestBodyValues: {},
          statusCode: 500,
        }),
    ],
  ];
  for (const [name, error] of cases) {
    it(`passes ${name} to the caller, sent once, reported to no one`, async () => {
      const provider = new MockLanguageModelV4({
        doGenerate: async () => {
          throw error();
        },
      });
      const errors: CompressionErrorEvent[] = [];
      const model = withContextCompression(provider, { contextWindow: 8_000, onError: (event) => errors.push(event) });
      await expect(generateText({ model, prompt: 'hello', maxRetries: 0 })).rejects.toThrow();
      expect(provider.doGenerateCalls).toHaveLength(1);
      expect(errors).toEqual([]);
    });
  }
});

describe('a retry the provider rejects too', () => {
  it('is reported as rethrown and the provider error reaches the caller; the call is sent twice, no more', async () => {
    // a provider counting 40x ours: far more than the largest ratio the engine learns (5x), so the retry is rejected too
    const { model: provider, rejected } = strictModel({ window: 8_000, factor: 40 });
    const errors: CompressionErrorEvent[] = [];
    const model = withContextCompression(provider, { contextWindow: 8_000, onError: (event) => errors.push(event) });
    await expect(
      generateText({ model, messages: longChat(9), maxRetries: 0 }).catch((error: unknown) => {
        throw APICallError.isInstance(error) ? error : new Error(`not the provider error: ${error}`);
      }),
    ).rejects.toThrow(/prompt is too long/);
    expect(rejected).toHaveLength(2);
    expect(errors.map((event) => event.fallback)).toEqual(['retried', 'rethrown']);
  });
});

describe('onCall, once per call', () => {
  it('hears of a retried call once, by its retry, with the rejection; the answer carries the same', async () => {
    const { model: provider, rejected } = strictModel({ window: WINDOW, factor: 2, shape: 'openai-responses' });
    const reports: CompressionReport[] = [];
    const model = withContextCompression(provider, {
      contextWindow: WINDOW,
      reserveOutputTokens: RESERVE,
      onCall: (report) => reports.push(report),
    });
    const result = await generateText({ model, messages: chat.slice(0, 90), maxRetries: 0 });
    expect(rejected).toHaveLength(1);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.rejection?.providerMessage).toContain('exceeds the context window');
    // the prompt the report tells of is the one the provider took, below the one it rejected
    expect(reports[0]?.promptTokens).toBeLessThan((reports[0]?.rejection?.rejectedPromptTokens ?? 0) * 0.75);
    const metadata = result.providerMetadata?.['context-compression'] as CompressionReport | undefined;
    expect(metadata?.rejection).toMatchObject({
      providerMessage: expect.stringContaining('exceeds the context window'),
      learnedInputLimit: reports[0]?.rejection?.learnedInputLimit,
    });
  });

  it('hears of a call made with transformParams alone, once, on the next turn of the event loop', async () => {
    const reports: CompressionReport[] = [];
    const middleware = contextCompression({ contextWindow: 8_000, onCall: (report) => reports.push(report) });
    const model = new MockLanguageModelV4();
    await middleware.transformParams?.({
      type: 'generate',
      params: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hello.' }] }] },
      model,
    });
    expect(reports).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(reports).toHaveLength(1);
  });

  it('a loop of transformParams calls that never yields keeps at most 16 waiting; every call is heard of once', async () => {
    // an engine per call (a new middleware per request, a batch script with a mock model): each waiting report holds
    // its engine, so a loop that never turns the event loop must not keep them all
    const heard: number[] = [];
    const model = new MockLanguageModelV4();
    for (let call = 0; call < 100; call++) {
      const middleware = contextCompression({ contextWindow: 8_000, onCall: () => heard.push(call) });
      await middleware.transformParams?.({
        type: 'generate',
        params: { prompt: [{ role: 'user', content: [{ type: 'text', text: `Hello ${call}.` }] }] },
        model,
      });
    }
    expect(heard).toEqual(Array.from({ length: 84 }, (_, call) => call));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(heard).toEqual(Array.from({ length: 100 }, (_, call) => call));
  });

  it('hears of a stream that failed before its first part once', async () => {
    const reports: CompressionReport[] = [];
    const provider = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream({
          pull(controller) {
            controller.error(new Error('socket hang up'));
          },
        }),
      }),
    });
    const model = withContextCompression(provider, { contextWindow: 8_000, onCall: (report) => reports.push(report) });
    const result = streamText({ model, prompt: 'hello', maxRetries: 0, onError: () => {} });
    await Promise.resolve(result.text).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(reports).toHaveLength(1);
  });

  it('hears of a call that failed for another reason once', async () => {
    const reports: CompressionReport[] = [];
    const provider = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error('network down');
      },
    });
    const model = withContextCompression(provider, { contextWindow: 8_000, onCall: (report) => reports.push(report) });
    await expect(generateText({ model, prompt: 'hello', maxRetries: 0 })).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(reports).toHaveLength(1);
  });
});
