import { describe, expect, it } from 'vitest';
import { TokenCalibration } from '../../src/counting/calibration.js';
import { readProviderOverflow } from '../../src/counting/provider-overflow.js';
import { OverflowLearning } from '../../src/engine/overflow-learning.js';

/** An error object as a provider SDK builds it: an Error with extra fields. */
function sdkError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

const anthropicBody = {
  type: 'error',
  error: { type: 'invalid_request_error', message: 'prompt is too long: 210183 tokens > 200000 maximum' },
};

const overflows: [string, unknown, number | undefined, number | undefined][] = [
  [
    'the AI SDK, Anthropic',
    sdkError(anthropicBody.error.message, {
      name: 'AI_APICallError',
      statusCode: 400,
      responseBody: JSON.stringify(anthropicBody),
    }),
    210_183,
    200_000,
  ],
  [
    "Anthropic's own SDK (LangChain's ChatAnthropic)",
    sdkError(`400 ${JSON.stringify(anthropicBody)}`, { status: 400, error: anthropicBody }),
    210_183,
    200_000,
  ],
  [
    "OpenAI's SDK (chat completions)",
    sdkError(
      "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 131,072 tokens. Please reduce the length of the messages.",
      { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
    ),
    131_072,
    128_000,
  ],
  [
    'OpenAI responses, no figures',
    sdkError('Your input exceeds the context window of this model. Please adjust your input and try again.', {
      status: 400,
      code: 'context_length_exceeded',
    }),
    undefined,
    undefined,
  ],
  [
    'Gemini through its LangChain package',
    sdkError(
      '[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com: [400 Bad Request] The input token count (1231557) exceeds the maximum number of tokens allowed (1048576).',
      { status: 400, statusText: 'Bad Request' },
    ),
    1_231_557,
    1_048_576,
  ],
  [
    'vLLM (OpenAI-compatible)',
    sdkError(
      "This model's maximum context length is 4096 tokens. However, you requested 5021 tokens (4021 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      { status: 400 },
    ),
    4_021,
    4_096,
  ],
  [
    'Mistral',
    sdkError('Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length', {
      status: 400,
    }),
    40_000,
    32_768,
  ],
  [
    'xAI',
    sdkError("This model's maximum prompt length is 131072 but the request contains 150000 tokens.", { status: 400 }),
    150_000,
    131_072,
  ],
  [
    'Amazon Bedrock',
    sdkError('Input is too long for requested model.', { name: 'ValidationException' }),
    undefined,
    undefined,
  ],
  [
    'llama.cpp server body',
    sdkError('the request exceeds the available context size, try increasing it', {
      statusCode: 400,
      data: { error: { type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } },
    }),
    5_000,
    4_096,
  ],
  [
    "LangChain's ContextOverflowError around the provider's error",
    Object.assign(new Error('Input exceeded the context window'), {
      name: 'ContextOverflowError',
      cause: sdkError('maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens', {
        status: 400,
        code: 'context_length_exceeded',
      }),
    }),
    9_000,
    8_192,
  ],
  [
    'a stream error part (a plain object)',
    { error: { code: 'context_length_exceeded', message: 'too long' } },
    undefined,
    undefined,
  ],
  [
    "Anthropic, input and max_tokens together over the window (the input's count)",
    sdkError(
      '400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 155114 + 64000 > 200000, decrease input length or `max_tokens` and try again"}}',
      { status: 400 },
    ),
    155_114,
    200_000,
  ],
  [
    'OpenAI chat with the completion counted (the input is the request less the completion)',
    sdkError(
      "This model's maximum context length is 128000 tokens. However, you requested 140000 tokens (96000 in the messages, 4000 in the functions, and 40000 in the completion). Please reduce the length of the messages, functions, or completion.",
      { status: 400, code: 'context_length_exceeded' },
    ),
    100_000,
    128_000,
  ],
];

const others: [string, unknown][] = [
  [
    'a rate limit that names tokens',
    sdkError('Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000.', {
      status: 429,
      code: 'rate_limit_exceeded',
    }),
  ],
  [
    'the output cap',
    sdkError('max_tokens is too large: 50000. This model supports at most 16384 completion tokens.', { status: 400 }),
  ],
  ['an overloaded server', sdkError('Overloaded', { status: 529, error: { type: 'overloaded_error' } })],
  ['an abort', Object.assign(new Error('This operation was aborted'), { name: 'AbortError' })],
  ['a string', 'something failed'],
  ['undefined', undefined],
  [
    'a cycle',
    (() => {
      const value: Record<string, unknown> = { message: 'x' };
      value.cause = value;
      return value;
    })(),
  ],
];

describe('readProviderOverflow', () => {
  for (const [name, error, tokens, limit] of overflows) {
    it(`reads ${name}`, () => {
      const overflow = readProviderOverflow(error);
      expect(overflow).toBeDefined();
      expect(overflow?.providerTokens).toBe(tokens);
      expect(overflow?.providerLimit).toBe(limit);
    });
  }
  for (const [name, error] of others) {
    it(`does not take ${name} for a rejection for length`, () => {
      expect(readProviderOverflow(error)).toBeUndefined();
    });
  }
});

describe('OverflowLearning', () => {
  const learn = (error: unknown, estimatedTokens: number, contextWindow = 200_000) => {
    const calibration = new TokenCalibration();
    const learning = new OverflowLearning(calibration);
    const learned = learning.learn({ modelKey: 'p:m', estimatedTokens, contextWindow, error });
    return {
      learned,
      ratio: calibration.ratio('p:m'),
      window: learning.window('p:m'),
      bound: learning.bound('p:m'),
      inputLimit: learning.inputLimit('p:m'),
    };
  };

  it("takes the provider's count over ours, with a margin, into the model's calibration", () => {
    const { learned, ratio, window, bound } = learn(overflows[0]?.[1], 100_000);
    expect(ratio).toBeCloseTo(2.1018 * 1.05, 2);
    expect(window).toBeUndefined();
    expect(bound).toBeUndefined();
    expect(learned?.overflow.providerTokens).toBe(210_183);
    expect(learned?.learnedRatio).toBe(ratio);
  });

  it('learns a window smaller than ours and leaves the ratio when the counts agree', () => {
    const { ratio, window } = learn(overflows[9]?.[1], 5_000, 32_000);
    expect(window).toBe(4_096);
    expect(ratio).toBe(1);
  });

  it('bounds the model by the rejected prompt, and leaves the ratio, when the provider gave no figure', () => {
    const { ratio, bound, learned } = learn(overflows[3]?.[1], 100_000);
    expect(ratio).toBe(1);
    expect(bound).toBe(75_000);
    expect(learned?.bounded).toBe(true);
  });

  it('learns the input the provider takes beside the output it counts against its window', () => {
    const error = sdkError(
      'input length and `max_tokens` exceed context limit: 155114 + 64000 > 200000, decrease input length or `max_tokens` and try again',
      { statusCode: 400 },
    );
    const { inputLimit, window, bound, ratio } = learn(error, 150_000);
    expect(inputLimit).toBe(136_000);
    expect(window).toBeUndefined();
    expect(bound).toBeUndefined();
    expect(ratio).toBeCloseTo((155_114 / 150_000) * 1.05, 3);
  });

  it('learns nothing for another error', () => {
    const { learned, ratio } = learn(others[0]?.[1], 100_000);
    expect(learned).toBeUndefined();
    expect(ratio).toBe(1);
  });
});
