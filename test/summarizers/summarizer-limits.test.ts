import { describe, expect, it } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { ProviderOverflowError, SummarizerError } from '../../src/errors.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { summarizeInChunks } from '../../src/summarizers/summarize-in-chunks.js';
import type { Summarizer } from '../../src/summarizers/summarizer.js';
import { renderedTokens } from '../../src/summarizers/summarizer-chunks.js';
import { SummarizerLimits } from '../../src/summarizers/summarizer-limits.js';
import type { Message } from '../../src/transcript/transcript.js';
import { text } from '../helpers/fixtures.js';

/** What a summarizer's provider teaches by rejecting a call, and a fold that goes on after it. */

const meter = new MessageMeter(approximateCounter());

/** OpenAI's Chat Completions error for a call of `tokens` over a window of `limit`. */
const tooLong = (tokens: number, limit: number) =>
  Object.assign(
    new Error(
      `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    ),
    { status: 400, code: 'context_length_exceeded' },
  );

const noFigures = () =>
  Object.assign(
    new Error('Your input exceeds the context window of this model. Please adjust your input and try again.'),
    {
      status: 400,
    },
  );

const STATE: SessionState = { logos: ['fact'], pathos: [], abstract: [], conversationSummary: 'so far' };

/** A chat of `count` messages of about `size` tokens each. */
function chat(count: number, size: number): Message[] {
  return Array.from({ length: count }, (_, index) =>
    text(index % 2 === 0 ? 'user' : 'assistant', `message ${index} `.repeat(Math.ceil(size / 3))),
  );
}

/**
 * A summarizer whose provider counts `factor` times our tokens and rejects a call over `window` with the provider's
 * figures (or none); each call's count is kept.
 */
function countingSummarizer(window: number, factor: number, figures = true) {
  const calls: number[] = [];
  const summarizer: Summarizer = {
    name: 'model:test',
    contextWindow: window,
    async summarize({ messages }) {
      const tokens = Math.round(messages.reduce((sum, each) => sum + renderedTokens(each, meter), 0) * factor);
      calls.push(tokens);
      if (tokens > window) throw figures ? tooLong(tokens, window) : noFigures();
      return STATE;
    },
  };
  return { summarizer, calls };
}

describe('SummarizerLimits', () => {
  it('learns the ratio a rejection shows, and reports it as a ProviderOverflowError', () => {
    const limits = new SummarizerLimits('model:x', { contextWindow: 10_000, fixedPrompt: '' });
    const error = limits.learn(tooLong(12_000, 10_000), 10_000);
    expect(ProviderOverflowError.isInstance(error)).toBe(true);
    expect(error?.modelKey).toBe('model:x');
    expect(limits.window()?.ratio).toBeCloseTo(1.2 * 1.05, 5);
    expect(limits.window()?.contextWindow).toBe(10_000);
  });

  it('learns a window smaller than the configured one, and halves a call that explains nothing', () => {
    const limits = new SummarizerLimits('model:x', { contextWindow: 10_000, fixedPrompt: '' });
    limits.learn(tooLong(7_000, 6_000), 7_000);
    expect(limits.window()?.contextWindow).toBe(6_000);
    limits.learn(noFigures(), 4_000);
    expect(limits.window()?.bound).toBe(2_000);
  });

  it('gives a summarizer without a window one from its first rejection', () => {
    const limits = new SummarizerLimits('fn', undefined);
    expect(limits.window()).toBeUndefined();
    limits.learn(noFigures(), 8_000);
    expect(limits.window()).toMatchObject({ contextWindow: 4_000, bound: 4_000 });
  });

  it('learns nothing from an error that is not a rejection for length', () => {
    const limits = new SummarizerLimits('model:x', { contextWindow: 10_000, fixedPrompt: '' });
    expect(limits.learn(new Error('rate limit reached'), 5_000)).toBeUndefined();
    expect(limits.window()).toEqual({ contextWindow: 10_000, fixedPrompt: '', ratio: 1 });
  });
});

describe('summarizeInChunks after a rejection for length', () => {
  for (const factor of [1.2, 1.75]) {
    it(`cuts the chunk again and folds, with one rejection, for a provider that counts ${factor}x ours`, async () => {
      // a 100k window: the chunks' 10% margin and 4,096 of reserve leave room for ~1.13x, not 1.2x
      const { summarizer, calls } = countingSummarizer(100_000, factor);
      const limits = new SummarizerLimits(summarizer.name, { contextWindow: 100_000, fixedPrompt: '' });
      const rejected: ProviderOverflowError[] = [];
      const folded = await summarizeInChunks(summarizer, {
        messages: chat(60, 4_000),
        previous: undefined,
        timeoutMs: 5_000,
        limits,
        meter,
        onRejected: (error) => rejected.push(error),
      });
      expect(folded.state.logos).toEqual(['fact']);
      expect(rejected).toHaveLength(1);
      expect(calls.filter((tokens) => tokens > 100_000)).toHaveLength(1);
      expect(folded.calls).toBe(calls.length - 1);
    });
  }

  it('halves the chunk after a rejection with no figure, and folds', async () => {
    const { summarizer, calls } = countingSummarizer(4_000, 1.6, false);
    const limits = new SummarizerLimits(summarizer.name, { contextWindow: 4_000, fixedPrompt: '' });
    const folded = await summarizeInChunks(summarizer, {
      messages: chat(24, 400),
      previous: undefined,
      timeoutMs: 5_000,
      limits,
      meter,
    });
    expect(folded.state.logos).toEqual(['fact']);
    expect(calls.filter((tokens) => tokens > 4_000)).toHaveLength(1);
  });

  it('fails the fold when the same chunk is rejected twice', async () => {
    // every call is rejected: the provider counts far more than any ratio learned from one rejection
    const summarizer: Summarizer = {
      name: 'model:never',
      contextWindow: 4_000,
      summarize: async () => {
        throw tooLong(100, 50);
      },
    };
    const limits = new SummarizerLimits(summarizer.name, { contextWindow: 4_000, fixedPrompt: '' });
    await expect(
      summarizeInChunks(summarizer, { messages: chat(6, 100), previous: undefined, timeoutMs: 5_000, limits, meter }),
    ).rejects.toSatisfy((error) => SummarizerError.isInstance(error));
  });

  it('does not retry another failure', async () => {
    let calls = 0;
    const summarizer: Summarizer = {
      name: 'model:flaky',
      summarize: async () => {
        calls++;
        throw new Error('network down');
      },
    };
    const limits = new SummarizerLimits(summarizer.name, undefined);
    await expect(
      summarizeInChunks(summarizer, { messages: chat(4, 100), previous: undefined, timeoutMs: 5_000, limits, meter }),
    ).rejects.toSatisfy((error) => SummarizerError.isInstance(error));
    expect(calls).toBe(1);
  });
});
