import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { CompressEvent } from '../../src/reports/events.js';
import { addSummarizerUsage } from '../../src/reports/usage.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import { chat, SYSTEM, text } from '../helpers/fixtures.js';

/** What a summarizer's provider reported reaches the report of the call whose fold it made, summed over its calls. */
describe("a summarizer's usage in the report", () => {
  const summarizer = (model: (call: number) => string) => {
    let calls = 0;
    return {
      name: 'reporting',
      async summarize({ messages, reportUsage }: SummarizeInput) {
        calls++;
        reportUsage?.({
          inputTokens: 100 * messages.length,
          cacheReadTokens: 10,
          outputTokens: 7,
          model: model(calls),
        });
        return { logos: [], pathos: [], abstract: [], salience: [], conversationSummary: `folded ${messages.length}` };
      },
    };
  };
  const engineWith = (events: CompressEvent[], extra: Record<string, unknown>) =>
    new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      summarizeAhead: false,
      onCompress: (event) => events.push(event),
      ...extra,
    });
  const call = (engine: CompressionEngine, messages: ReturnType<typeof chat>) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });

  it('one call: its figures and model', async () => {
    const events: CompressEvent[] = [];
    const engine = engineWith(events, { summarizer: summarizer(() => 'small-model') });
    await call(engine, [...chat(60), text('user', 'And now?')]);
    const fold = events.find((event) => event.summarizerCalls > 0);
    expect(fold?.summarizerCalls).toBe(1);
    expect(fold?.summarizerUsage).toEqual({
      inputTokens: 100 * (fold?.messagesFolded ?? 0),
      cacheReadTokens: 10,
      outputTokens: 7,
      model: 'small-model',
    });
  });

  it('a fold in chunks: summed over its calls, every model named once', async () => {
    const events: CompressEvent[] = [];
    const engine = engineWith(events, {
      summarizer: summarizer((index) => (index === 1 ? 'model-a' : 'model-b')),
      summarizerContextWindow: 1_200,
    });
    await call(engine, [...chat(60), text('user', 'And now?')]);
    const fold = events.find((event) => event.summarizerCalls > 1);
    const calls = fold?.summarizerCalls ?? 0;
    expect(calls).toBeGreaterThan(1);
    expect(fold?.summarizerUsage?.cacheReadTokens).toBe(10 * calls);
    expect(fold?.summarizerUsage?.outputTokens).toBe(7 * calls);
    expect(fold?.summarizerUsage?.model).toBe('model-a, model-b');
  });

  it('a summarizer that reports nothing: no usage in the report', async () => {
    const events: CompressEvent[] = [];
    const engine = engineWith(events, {
      summarizer: async () => ({ logos: [], pathos: [], abstract: [], salience: [], conversationSummary: 'x' }),
    });
    await call(engine, [...chat(60), text('user', 'And now?')]);
    const fold = events.find((event) => event.summarizerCalls > 0);
    expect(fold).toBeDefined();
    expect(fold?.summarizerUsage).toBeUndefined();
  });

  it('sums only finite figures, and leaves out what neither has', () => {
    expect(addSummarizerUsage({ inputTokens: 5, model: 'a' }, { inputTokens: Number.NaN, outputTokens: 2 })).toEqual({
      inputTokens: 5,
      outputTokens: 2,
      model: 'a',
    });
    expect(addSummarizerUsage(undefined, undefined)).toBeUndefined();
    expect(addSummarizerUsage({ model: '' }, undefined)).toBeUndefined();
  });
});
