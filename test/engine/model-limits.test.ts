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
  const models = new ModelLimits(resolveOptions(options), calibration, new OverflowLearning(calibration), (event) =>
    errors.push(event),
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

/** OpenAI's Responses API error for a prompt over the window: no figure at all. */
const figureless = () =>
  Object.assign(
    new Error('Your input exceeds the context window of this model. Please adjust your input and try again.'),
    {
      statusCode: 400,
    },
  );

/** Anthropic's error when the input and the call's `max_tokens` together exceed the window. */
const withOutput = (input: number, output: number, window: number) =>
  Object.assign(
    new Error(
      `input length and \`max_tokens\` exceed context limit: ${input} + ${output} > ${window}, decrease input length or \`max_tokens\` and try again`,
    ),
    { statusCode: 400 },
  );

describe('ModelLimits: the output a call asks for', () => {
  it('keeps the call’s own output free when it is more than the configured reserve', () => {
    const { models } = limitsOf();
    expect(models.callLimits('claude-sonnet-4-5', 'k', undefined, 64_000).budget).toBe(136_000);
    expect(models.callLimits('claude-sonnet-4-5', 'k', undefined, 1_000).budget).toBe(
      200_000 - DEFAULT_RESERVE_OUTPUT_TOKENS,
    );
  });

  it('keeps the configured reserve when the call asks for more than 3/4 of the window (a small test window)', () => {
    const { models } = limitsOf({ contextWindow: 8_000 });
    expect(models.callLimits('claude-sonnet-4-5', 'k', undefined, 64_000).budget).toBe(6_000);
  });

  it('learns the output a provider counts against the window, and its count of the input', () => {
    const { models, calibration, errors } = limitsOf();
    const error = models.rejected({
      modelId: 'claude-x',
      modelKey: 'k',
      estimatedTokens: 150_000,
      error: withOutput(155_114, 64_000, 200_000),
      retry: false,
    });
    expect(error?.providerOutputTokens).toBe(64_000);
    expect(error?.providerTokens).toBe(155_114);
    // the counts nearly agree: the ratio grows to the provider's count with its margin, not blindly
    expect(calibration.ratio('k')).toBeCloseTo((155_114 / 150_000) * 1.05, 3);
    expect(models.callLimits('claude-x', 'k').budget).toBe(136_000);
    expect(error?.learnedInputLimit).toBe(136_000);
    expect(errors.map((event) => event.fallback)).toEqual(['retried']);
  });
});

describe('ModelLimits: the output a provider counts, over 3/4 of the window', () => {
  it('learns the input it takes beside that output, so the retry fits', () => {
    // a window of 100k set to compress early, a call asking 128k of output: the configured reserve is kept
    const { models } = limitsOf({ contextWindow: 100_000 });
    expect(models.callLimits('claude-sonnet-4-6', 'k', undefined, 128_000).budget).toBe(
      100_000 - DEFAULT_RESERVE_OUTPUT_TOKENS,
    );
    const error = models.rejected({
      modelId: 'claude-sonnet-4-6',
      modelKey: 'k',
      maxOutputTokens: 128_000,
      estimatedTokens: 80_000,
      error: withOutput(80_000, 128_000, 200_000),
      retry: false,
    });
    expect(models.callLimits('claude-sonnet-4-6', 'k', undefined, 128_000).budget).toBe(72_000);
    expect(error?.learnedInputLimit).toBe(72_000);
  });
});

describe('ModelLimits: a rejection without figures', () => {
  it('bounds the model’s calls below our count of the rejected prompt, whatever the ratio, and does not grow it', () => {
    const { models, calibration } = limitsOf();
    const error = models.rejected({
      modelId: 'gpt-4o',
      modelKey: 'k',
      estimatedTokens: 80_000,
      error: figureless(),
      retry: false,
    });
    expect(calibration.ratio('k')).toBe(1);
    expect(models.callLimits('gpt-4o', 'k').budget).toBe(60_000);
    expect(error?.learnedInputLimit).toBe(60_000);
    expect(models.callLimits('gpt-4o', 'other').budget).toBe(128_000 - DEFAULT_RESERVE_OUTPUT_TOKENS);
  });

  it('keeps the bound in our tokens: the ratio its usage teaches after it calibrates it', () => {
    const { models, calibration } = limitsOf();
    models.used('k', 40_000, 50_000);
    models.rejected({ modelId: 'gpt-4o', modelKey: 'k', estimatedTokens: 80_000, error: figureless(), retry: false });
    // 3/4 of the rejected 80k of ours, at the ratio of the time
    expect(models.callLimits('gpt-4o', 'k').budget).toBe(Math.floor(60_000 * calibration.ratio('k')));
    // the provider counts more than it seemed: that explains part of the rejection, and the bound follows
    models.used('k', 40_000, 70_000);
    expect(calibration.ratio('k')).toBeGreaterThan(1.25);
    const limits = models.callLimits('gpt-4o', 'k');
    expect(limits.budget).toBe(Math.floor(60_000 * calibration.ratio('k')));
    // the limits in our own tokens: the budget divided by the ratio
    expect(limits.hardLimit).toBeCloseTo((limits.budget * 0.85) / limits.ratio, 0);
  });

  it('bounds by the largest prompt the provider took, when it lies between 3/4 of the rejected one and it', () => {
    const { models } = limitsOf();
    models.used('k', 60_000, 66_000);
    models.used('k', 10_000, 11_000);
    models.rejected({ modelId: 'gpt-4o', modelKey: 'k', estimatedTokens: 64_000, error: figureless(), retry: false });
    // the rejected prompt was about 70k of the provider's tokens, and it took 66k: its window is between the two
    expect(models.callLimits('gpt-4o', 'k').budget).toBeGreaterThanOrEqual(65_990);
    expect(models.callLimits('gpt-4o', 'k').budget).toBeLessThanOrEqual(66_000);
  });

  it('does not bound below 3/4 of the rejected prompt by a small prompt taken before', () => {
    const { models } = limitsOf();
    models.used('k', 2_000, 2_000);
    models.rejected({ modelId: 'gpt-4o', modelKey: 'k', estimatedTokens: 80_000, error: figureless(), retry: false });
    expect(models.callLimits('gpt-4o', 'k').budget).toBe(60_000);
  });

  it('keeps the smallest bound of successive rejections', () => {
    const { models } = limitsOf();
    models.rejected({ modelId: 'gpt-4o', modelKey: 'k', estimatedTokens: 80_000, error: figureless(), retry: false });
    models.rejected({ modelId: 'gpt-4o', modelKey: 'k', estimatedTokens: 50_000, error: figureless(), retry: true });
    models.rejected({ modelId: 'gpt-4o', modelKey: 'k', estimatedTokens: 70_000, error: figureless(), retry: false });
    expect(models.callLimits('gpt-4o', 'k').budget).toBe(37_500);
  });

  it('bounds by the rejected prompt when its figures explain nothing, the prompt within our limits', () => {
    const { models, calibration } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 1_000 });
    // the provider counts as we do and names its window, ours: nothing explains why 7,000 tokens were too many
    models.rejected({ modelId: 'm', estimatedTokens: 7_000, error: overflow(10_000, 7_000), retry: false });
    expect(calibration.ratio('m')).toBe(1);
    expect(models.callLimits('m', 'm').budget).toBe(5_250);
  });

  it('shrinks the tool-result cap instead, by half as much again each time, for a prompt over our own hard limit', () => {
    const { models, calibration } = limitsOf({ contextWindow: 10_000, reserveOutputTokens: 1_000 });
    const before = models.callLimits('m', 'm').maxToolResultTokens;
    // sent over the hard limit (7,650): nothing was left to fold, so a bound would change nothing
    models.rejected({ modelId: 'm', estimatedTokens: 11_000, error: overflow(10_000, 10_500), retry: false });
    const once = models.callLimits('m', 'm');
    expect(calibration.ratio('m')).toBe(1);
    expect(once.budget).toBe(9_000);
    expect(once.maxToolResultTokens).toBeLessThan(before);
    models.rejected({ modelId: 'm', estimatedTokens: 9_000, error: figureless(), retry: true });
    expect(models.callLimits('m', 'm').maxToolResultTokens).toBeLessThan(once.maxToolResultTokens);
    expect(models.callLimits('m', 'm').budget).toBe(9_000);
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
