import { describe, expect, it, vi } from 'vitest';
import { TokenCalibration } from '../../src/counting/calibration.js';
import { ModelLimits } from '../../src/engine/model-limits.js';
import { OverflowLearning } from '../../src/engine/overflow-learning.js';
import { InvalidOptionError, ProviderOverflowError, UnknownContextWindowError } from '../../src/errors.js';
import { DEFAULT_RESERVE_OUTPUT_TOKENS } from '../../src/options/compression-options.js';
import { lookupContextWindow } from '../../src/options/context-windows.js';
import { type CompressionOptions, resolveOptions } from '../../src/options/options.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';

/** ModelLimits on resolved options: budgets, the limits of a call, and what rejections and usage teach it. */

function limitsOf(options: CompressionOptions = {}) {
  const errors: CompressionErrorEvent[] = [];
  const calibration = new TokenCalibration();
  const models = new ModelLimits(
    resolveOptions(options),
    calibration,
    new OverflowLearning(calibration, (event) => errors.push(event)),
  );
  return { models, calibration, errors };
}

/** A provider's error for a prompt over a window of `limit` tokens, `tokens` of its own. */
const overflow = (limit: number, tokens: number) =>
  Object.assign(
    new Error(
      `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    ),
    { statusCode: 400 },
  );

describe('ModelLimits.budgetFor', () => {
  it('is the context window minus the reserved output', () => {
    const { models } = limitsOf({ contextWindow: 4_000, reserveOutputTokens: 500 });
    expect(models.budgetFor('any-model')).toBe(3_500);
  });

  it('takes the contextWindow option over the window an adapter knows', () => {
    const { models } = limitsOf({ contextWindow: 4_000, reserveOutputTokens: 500 });
    expect(models.budgetFor('any-model', 100_000)).toBe(3_500);
  });

  it('takes the window an adapter knows over the table, then the table', () => {
    const { models } = limitsOf({ reserveOutputTokens: 1_000 });
    expect(models.budgetFor('gpt-4o', 10_000)).toBe(9_000);
    expect(models.budgetFor('gpt-4o')).toBe((lookupContextWindow('gpt-4o') as number) - 1_000);
  });

  it('reserves the default output, at most a quarter of a small window', () => {
    const { models } = limitsOf();
    expect(models.budgetFor('any-model', 100_000)).toBe(100_000 - DEFAULT_RESERVE_OUTPUT_TOKENS);
    expect(models.budgetFor('any-model', 8_000)).toBe(6_000);
  });

  it('throws UnknownContextWindowError for a model id it cannot find a window for', () => {
    const { models } = limitsOf();
    expect(() => models.budgetFor('no-such-model-anywhere')).toThrow(UnknownContextWindowError);
    try {
      models.budgetFor('no-such-model-anywhere');
    } catch (error) {
      expect(error).toMatchObject({ modelId: 'no-such-model-anywhere' });
    }
  });

  it('throws the option error when the reserve does not leave half of a window an adapter knows', () => {
    const { models } = limitsOf({ reserveOutputTokens: 3_000 });
    expect(() => models.budgetFor('any-model', 4_000)).toThrow(InvalidOptionError);
    expect(models.budgetFor('any-model', 8_000)).toBe(5_000);
  });
});

describe('ModelLimits.callLimits', () => {
  it('shares out the budget at the configured shares, uncalibrated at first', () => {
    const { models } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 2_000, compressAt: 0.75 });
    const limits = models.callLimits('m', 'provider:m');
    expect(limits.budget).toBe(8_000);
    expect(limits.ratio).toBe(1);
    expect(limits.compressAt).toBe(6_000);
    expect(limits.maxStateTokens).toBe(2_000);
  });

  it('lowers the budget to a smaller window a provider’s rejection showed, for that model key only', () => {
    const { models, errors } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 1_000 });
    const error = models.rejected({
      modelId: 'm',
      modelKey: 'provider:m',
      estimatedTokens: 6_500,
      error: overflow(6_000, 6_600),
      retry: false,
    });
    expect(ProviderOverflowError.isInstance(error)).toBe(true);
    expect(models.callLimits('m', 'provider:m').budget).toBe(5_000);
    expect(models.callLimits('m', 'other:m').budget).toBe(9_000);
    // budgetFor is the configured budget: what was learned applies to calls
    expect(models.budgetFor('m')).toBe(9_000);
    expect(errors.map((event) => event.fallback)).toEqual(['retried']);
  });

  it('keeps a call’s own budget when it is below the learned window’s', () => {
    const { models } = limitsOf({ reserveOutputTokens: 1_000 });
    models.rejected({
      modelId: 'm',
      contextWindow: 20_000,
      estimatedTokens: 12_000,
      error: overflow(16_000, 17_000),
      retry: false,
    });
    expect(models.callLimits('m', 'm', 20_000).budget).toBe(15_000);
    expect(models.callLimits('m', 'm', 8_000).budget).toBe(7_000);
  });

  it('learns the smallest of the windows successive rejections showed', () => {
    const { models } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 1_000 });
    models.rejected({ modelId: 'm', estimatedTokens: 7_000, error: overflow(8_000, 8_200), retry: false });
    models.rejected({ modelId: 'm', estimatedTokens: 6_500, error: overflow(9_000, 9_100), retry: true });
    expect(models.callLimits('m', 'm').budget).toBe(7_000);
  });

  it('divides the shares by the calibration ratio the model’s usage taught', () => {
    const { models } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 2_000, compressAt: 0.75 });
    models.used('provider:m', 1_000, 1_250);
    const limits = models.callLimits('m', 'provider:m');
    expect(limits.budget).toBe(8_000);
    expect(limits.ratio).toBe(1.25);
    expect(limits.compressAt).toBe(4_800);
  });
});

describe('ModelLimits.rejected', () => {
  it('reports a rejection of the retry as rethrown', () => {
    const { models, errors } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 1_000 });
    models.rejected({ modelId: 'm', estimatedTokens: 9_000, error: overflow(8_000, 9_500), retry: true });
    expect(errors.map((event) => event.fallback)).toEqual(['rethrown']);
  });

  it('learns nothing from an error that is not a rejection for length, and reports nothing', () => {
    const { models, calibration, errors } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 1_000 });
    const estimate = vi.fn(() => 9_000);
    const rateLimited = Object.assign(new Error('Rate limit reached, try again later'), { statusCode: 429 });
    expect(models.rejected({ modelId: 'm', estimatedTokens: estimate, error: rateLimited, retry: false })).toBe(
      undefined,
    );
    expect(models.callLimits('m', 'm').budget).toBe(9_000);
    expect(calibration.ratio('m')).toBe(1);
    expect(errors).toEqual([]);
  });

  it('reads an estimate given as a function, and raises the calibration by the provider’s count', () => {
    const { models, calibration } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 1_000 });
    const estimate = vi.fn(() => 8_000);
    const error = models.rejected({
      modelId: 'm',
      estimatedTokens: estimate,
      error: overflow(9_000, 10_000),
      retry: false,
    });
    expect(estimate).toHaveBeenCalledTimes(1);
    expect(calibration.ratio('m')).toBeGreaterThanOrEqual(10_000 / 8_000);
    expect(error?.learnedRatio).toBe(calibration.ratio('m'));
  });
});

describe('ModelLimits.used', () => {
  it('records the calibration ratio of the provider’s count over ours', () => {
    const { models, calibration } = limitsOf({ contextWindow: 10_000 });
    models.used('provider:m', 1_000, 1_100);
    expect(calibration.ratio('provider:m')).toBeCloseTo(1.1);
    expect(calibration.ratio('provider:other')).toBe(1);
  });

  it('records nothing without a reported count, and then never reads a lazy estimate', () => {
    const { models, calibration } = limitsOf({ contextWindow: 10_000 });
    const estimate = vi.fn(() => 1_000);
    models.used('k', estimate, undefined);
    models.used('k', estimate, 0);
    expect(estimate).not.toHaveBeenCalled();
    expect(calibration.ratio('k')).toBe(1);
    models.used('k', estimate, 1_300);
    expect(estimate).toHaveBeenCalledTimes(1);
    expect(calibration.ratio('k')).toBeCloseTo(1.3);
  });
});
