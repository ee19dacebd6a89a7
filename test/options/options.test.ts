import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError, UnknownContextWindowError } from '../../src/errors.js';
import { lookupContextWindow } from '../../src/options/context-windows.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { memoryStateStore } from '../../src/persistence/state-store.js';

/** Builds an engine from options a JavaScript caller might pass, bypassing the type checker. */
const build = (options: unknown) => new CompressionEngine(options as CompressionOptions);

function constructionError(options: unknown): unknown {
  try {
    build(options);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('options checked at construction', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['compressAt above 1', { compressAt: 1.5 }, 'compressAt'],
    ['compressAt zero', { compressAt: 0 }, 'compressAt'],
    ['compressAt not a number', { compressAt: '0.7' }, 'compressAt'],
    ['compressTo equal to compressAt', { compressAt: 0.6, compressTo: 0.6 }, 'compressTo'],
    ['compressTo above compressAt', { compressAt: 0.5, compressTo: 0.55 }, 'compressTo'],
    ['hardLimit above 1', { hardLimit: 1.2 }, 'hardLimit'],
    ['negative contextWindow', { contextWindow: -4_000 }, 'contextWindow'],
    ['fractional contextWindow', { contextWindow: 4_000.5 }, 'contextWindow'],
    ['tiny contextWindow', { contextWindow: 100 }, 'contextWindow'],
    ['negative reserveOutputTokens', { reserveOutputTokens: -1 }, 'reserveOutputTokens'],
    [
      'reserveOutputTokens at half the window',
      { contextWindow: 4_000, reserveOutputTokens: 2_000 },
      'reserveOutputTokens',
    ],
    [
      'reserveOutputTokens over the window',
      { contextWindow: 4_000, reserveOutputTokens: 5_000 },
      'reserveOutputTokens',
    ],
    ['zero maxToolResultTokens', { maxToolResultTokens: 0 }, 'maxToolResultTokens'],
    ['negative summarizerTimeoutMs', { summarizerTimeoutMs: -5 }, 'summarizerTimeoutMs'],
    ['zero stateTtlMs', { stateTtlMs: 0 }, 'stateTtlMs'],
    ['numeric namespace', { namespace: 42 }, 'namespace'],
    ['empty acknowledgement', { acknowledgement: '' }, 'acknowledgement'],
    ['store without get/set', { store: { get: 1 } }, 'store'],
    ['store as a string', { store: 'redis://localhost' }, 'store'],
    ['summarizer as a string', { summarizer: 'gpt-4o-mini' }, 'summarizer'],
    ['summarizer as a number', { summarizer: 42 }, 'summarizer'],
    ['tokenCounter without count', { tokenCounter: { name: 'x' } }, 'tokenCounter'],
    ['tokenCounter as a function', { tokenCounter: (text: string) => text.length }, 'tokenCounter'],
    ['onCompress not a function', { onCompress: 'log' }, 'onCompress'],
    ['onError not a function', { onError: {} }, 'onError'],
  ])('%s fails with InvalidOptionError naming the option', (_name, options, option) => {
    const error = constructionError(options);
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe(option);
    expect((error as Error).message).toContain(`\`${option}\``);
  });

  it('rejects compressAt at or above hardLimit and says which order is expected', () => {
    const error = constructionError({ compressAt: 0.8, hardLimit: 0.75 });
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionError).option).toBe('compressAt');
    expect((error as Error).message).toContain('less than hardLimit = 0.75, since compressTo < compressAt < hardLimit');
  });

  it('rejects options that are not an object', () => {
    for (const options of [null, 'fast', 3]) {
      const error = constructionError(options);
      expect(InvalidOptionError.isInstance(error)).toBe(true);
      expect((error as InvalidOptionError).option).toBe('options');
    }
  });

  it('accepts valid options and every kind of summarizer', () => {
    const state = { logos: [], pathos: [], abstract: [], conversationSummary: '' };
    expect(() => build({})).not.toThrow();
    expect(() =>
      build({
        contextWindow: 4_000,
        reserveOutputTokens: 500,
        compressAt: 0.75,
        compressTo: 0.5,
        hardLimit: 0.9,
        store: memoryStateStore(),
        tokenCounter: approximateCounter(),
        summarizer: async () => state,
        onCompress: () => {},
        onError: () => {},
      }),
    ).not.toThrow();
    expect(() => build({ summarizer: { name: 'object', summarize: async () => state } })).not.toThrow();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['null store', { store: null }, 'store'],
    ['null tokenCounter', { tokenCounter: null }, 'tokenCounter'],
  ])('%s fails with InvalidOptionError', (_name, options, option) => {
    const error = constructionError(options);
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionError).option).toBe(option);
  });

  it('a summarizer object without summarize() fails at construction', () => {
    const error = constructionError({ summarizer: { name: 'no-method' } });
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionError).option).toBe('summarizer');
  });

  it('reserveOutputTokens larger than a looked-up window never gives a negative budget', () => {
    const engine = build({ reserveOutputTokens: 200_000 });
    let sane = false;
    try {
      sane = engine.budgetFor('gpt-4o') > 0;
    } catch (error) {
      sane = InvalidOptionError.isInstance(error);
    }
    expect(sane).toBe(true);
  });
});

describe('budgetFor and context windows', () => {
  it('throws UnknownContextWindowError naming `contextWindow` for an unknown model', () => {
    const engine = build({});
    let caught: unknown;
    try {
      engine.budgetFor('some-unknown-model');
    } catch (error) {
      caught = error;
    }
    expect(UnknownContextWindowError.isInstance(caught)).toBe(true);
    expect((caught as UnknownContextWindowError).modelId).toBe('some-unknown-model');
    expect((caught as Error).message).toContain('`contextWindow`');
    expect((caught as Error).message).toContain('some-unknown-model');
  });

  it('compress rejects with UnknownContextWindowError too', async () => {
    const engine = build({ tokenCounter: approximateCounter() });
    const transcript = { system: [], tools: [], messages: [{ role: 'user' as const, parts: [] }] };
    await expect(engine.compress({ transcript, modelId: 'some-unknown-model' })).rejects.toSatisfy((error) =>
      UnknownContextWindowError.isInstance(error),
    );
  });

  it.each([
    ['gpt-4o-mini', 128_000],
    ['gpt-4o', 128_000],
    ['gpt-4', 8_192],
    ['gpt-4.1-mini', 1_047_576],
    ['claude-sonnet-4-5', 200_000],
    ['claude-3-5-haiku-latest', 200_000],
    ['anthropic/claude-opus-4-1', 200_000],
    ['gemini-2.5-flash', 1_048_576],
    ['models/gemini-2.0-flash', 1_048_576],
    ['GPT-4o-2024-08-06', 128_000],
    ['some-unknown-model', undefined],
  ])('lookupContextWindow(%s) = %s', (modelId, tokens) => {
    expect(lookupContextWindow(modelId)).toBe(tokens);
  });

  it('budget is the window minus the reserve', () => {
    expect(build({ contextWindow: 4_000, reserveOutputTokens: 500 }).budgetFor('anything')).toBe(3_500);
    expect(build({ contextWindow: 4_000 }).budgetFor('anything')).toBe(3_000);
    expect(build({}).budgetFor('gpt-4o-mini')).toBe(128_000 - 4_096);
  });
});
