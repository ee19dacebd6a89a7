import { HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import * as aiSdk from '../../adapters/ai-sdk/index.js';
import { readCallOptions } from '../../adapters/langchain/call-options.js';
import * as langchain from '../../adapters/langchain/index.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError, UnknownContextWindowError } from '../../src/errors.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { echoModel } from '../helpers/mock-model.js';

/** The error a factory throws for options a JavaScript caller might pass, bypassing the type checker. */
function errorOf(build: () => unknown): Error & Partial<InvalidOptionError> {
  try {
    build();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the options to be rejected');
}

const engineError = (options: unknown) => errorOf(() => new CompressionEngine(options as CompressionOptions));

describe('option errors name the option, the value and the allowed values', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'compressAt above 1',
      { compressAt: 1.5 },
      'compressAt',
      'Invalid option `compressAt`: must be a number greater than 0 and less than 1 (got 1.5)',
    ],
    [
      'contextWindow NaN',
      { contextWindow: Number.NaN },
      'contextWindow',
      'Invalid option `contextWindow`: must be a whole number of tokens of at least 1024 (got NaN)',
    ],
    [
      'contextWindow Infinity',
      { contextWindow: Number.POSITIVE_INFINITY },
      'contextWindow',
      'Invalid option `contextWindow`: must be a whole number of tokens of at least 1024 (got Infinity)',
    ],
    [
      'a BigInt',
      { reserveOutputTokens: 10n },
      'reserveOutputTokens',
      'Invalid option `reserveOutputTokens`: must be a whole number of tokens of at least 0 (got 10n)',
    ],
    [
      'a timer past 2^31 - 1 ms',
      { summarizerTimeoutMs: 2 ** 31 },
      'summarizerTimeoutMs',
      'Invalid option `summarizerTimeoutMs`: must be a whole number of milliseconds from 1 to 2147483647 (about 24.8 days) (got 2147483648)',
    ],
    [
      'a nested option',
      { masking: { keepRecent: -1 } },
      'masking.keepRecent',
      'Invalid option `masking.keepRecent`: must be a whole number of at least 0 (got -1)',
    ],
    [
      'a union of false and an object',
      { masking: true },
      'masking',
      'Invalid option `masking`: must be false or an object { keepRecent?, clearAtLeast?, excludeTools? } (got true)',
    ],
    ['a callback', { onError: 'log' }, 'onError', 'Invalid option `onError`: must be a function (got "log")'],
    [
      'the reserve against the window',
      { contextWindow: 4_000, reserveOutputTokens: 2_000 },
      'reserveOutputTokens',
      'Invalid option `reserveOutputTokens`: must be less than half of the context window (4000 tokens), i.e. below 2000 (got 2000)',
    ],
  ])('%s', (_name, options, option, message) => {
    const error = engineError(options);
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(error.option).toBe(option);
    expect(error.message).toBe(message);
  });
});

describe('compressTo < compressAt < hardLimit blames the option the caller set', () => {
  it.each<[string, Record<string, number>, string, string]>([
    [
      'hardLimit alone, below the default compressAt',
      { hardLimit: 0.5 },
      'hardLimit',
      'Invalid option `hardLimit`: must be a number greater than compressAt = 0.7 (default) and at most 1, since compressTo < compressAt < hardLimit (got 0.5)',
    ],
    [
      'compressAt alone, below the default compressTo',
      { compressAt: 0.5 },
      'compressAt',
      'Invalid option `compressAt`: must be a number greater than compressTo = 0.6 (default) and less than hardLimit = 0.85 (default), since compressTo < compressAt < hardLimit (got 0.5)',
    ],
    [
      'compressTo alone, above the default compressAt',
      { compressTo: 0.8 },
      'compressTo',
      'Invalid option `compressTo`: must be a number greater than 0 and less than compressAt = 0.7 (default), since compressTo < compressAt < hardLimit (got 0.8)',
    ],
    [
      'compressAt and hardLimit both set',
      { compressAt: 0.8, hardLimit: 0.75 },
      'compressAt',
      'Invalid option `compressAt`: must be a number greater than compressTo = 0.6 (default) and less than hardLimit = 0.75, since compressTo < compressAt < hardLimit (got 0.8)',
    ],
  ])('%s', (_name, options, option, message) => {
    const error = engineError(options);
    expect(error.option).toBe(option);
    expect(error.message).toBe(message);
  });

  it('accepts a consistent set that moves all three', () => {
    expect(() => new CompressionEngine({ compressTo: 0.3, compressAt: 0.4, hardLimit: 0.5 })).not.toThrow();
  });
});

describe('unknown keys', () => {
  it('rejects a misspelled top-level option and names the likely one', () => {
    const error = engineError({ compressat: 0.5 });
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(error.option).toBe('compressat');
    expect(error.message).toBe('Invalid option `compressat`: unknown option; did you mean `compressAt`? (got 0.5)');
  });

  it('lists the options when no known one is close', () => {
    const error = engineError({ verbose: true });
    expect(error.option).toBe('verbose');
    expect(error.message).toMatch(/^Invalid option `verbose`: unknown option; the options are contextWindow, /);
    expect(error.message).toMatch(/onError, onBrokenPromise \(got true\)$/);
  });

  it('names the likely one inside nested options and per-call options', async () => {
    expect(engineError({ masking: { keepRecnt: 2 } }).message).toBe(
      'Invalid option `masking.keepRecnt`: unknown option; did you mean `masking.keepRecent`? (got 2)',
    );
    const model = aiSdk.withContextCompression(echoModel(), { contextWindow: 8_000 });
    await expect(
      model.doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        providerOptions: { 'context-compression': { forse: true } },
      }),
    ).rejects.toThrow(
      "Invalid option `providerOptions['context-compression'].forse`: unknown option; did you mean `providerOptions['context-compression'].force`? (got true)",
    );
    expect(() => readCallOptions({ configurable: { 'context-compression': { namespace: 5 } } })).toThrow(
      "Invalid option `configurable['context-compression'].namespace`: must be a string (got 5)",
    );
  });

  it('rejects a misspelled option through every factory', () => {
    const options = { contextWindow: 8_000, compresAt: 0.5 } as never;
    for (const build of [
      () => aiSdk.withContextCompression(echoModel(), options),
      () => aiSdk.contextCompression(options),
      () => langchain.compressMessages(options),
      () => langchain.contextCompressionMiddleware(options),
    ]) {
      expect(errorOf(build).option).toBe('compresAt');
    }
  });
});

describe('null options', () => {
  it('are an InvalidOptionError from every factory, never a crash inside it', async () => {
    const message = 'Invalid option `options`: must be an object (got null)';
    for (const build of [
      () => aiSdk.withContextCompression(echoModel(), null as never),
      () => aiSdk.contextCompression(null as never),
      () => langchain.compressMessages(null as never),
      () => langchain.contextCompressionMiddleware(null as never),
      () => new CompressionEngine(null as never),
    ]) {
      const error = errorOf(build);
      expect(InvalidOptionError.isInstance(error)).toBe(true);
      expect(error.message).toBe(message);
    }
    await expect(aiSdk.explainCompression([], null as never)).rejects.toThrow(message);
    await expect(langchain.explainCompression([], null as never)).rejects.toThrow(message);
  });
});

describe('explainCompression without a context window', () => {
  const messages = [{ role: 'user' as const, content: 'hi' }];

  it.each([
    ['AI SDK', () => aiSdk.explainCompression(messages, {})],
    ['LangChain', () => langchain.explainCompression([new HumanMessage('hi')], {})],
  ])('%s: says to give contextWindow or modelId, not to call withContextCompression', async (_name, run) => {
    const error = await run().then(
      () => undefined,
      (caught: unknown) => caught as InvalidOptionError,
    );
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(error?.option).toBe('contextWindow');
    expect(error?.message).toBe(
      'Invalid option `contextWindow`: explainCompression sees no model, so give `contextWindow` (tokens, e.g. 128_000) or `modelId` (a known id such as "gpt-4o") (got neither)',
    );
  });

  it('an unknown modelId shows the explainCompression call to fix', async () => {
    const error = await aiSdk.explainCompression(messages, { modelId: 'in-house-7b' }).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(UnknownContextWindowError.isInstance(error)).toBe(true);
    expect(error?.message).toBe(
      'The context window of model "in-house-7b" is not known. Pass it as the `contextWindow` option, e.g. explainCompression(messages, { contextWindow: 128_000 }).',
    );
    expect(error?.message).not.toContain('withContextCompression');
  });

  it('a known modelId is enough', async () => {
    await expect(aiSdk.explainCompression(messages, { modelId: 'gpt-4o' })).resolves.toEqual([]);
  });
});
