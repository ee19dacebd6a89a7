import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { type CompressionReport, withContextCompression } from '../../adapters/ai-sdk/index.js';
import { textResult } from '../helpers/mock-model.js';

/** A call's price in its report: the history as it came against the prompt sent and the summary, cache-priced. */

const STATE = {
  logos: ['Files read so far.'],
  pathos: [],
  abstract: [],
  salience: [],
  conversationSummary: 'Reading.',
};

async function loop(steps: number) {
  let step = 0;
  const model = new MockLanguageModelV4({
    modelId: 'loop-model',
    doGenerate: async ({ prompt }) => {
      step++;
      return step > steps
        ? textResult('Done.')
        : ({
            content: [
              { type: 'tool-call', toolCallId: `read-${step}`, toolName: 'readFile', input: `{"path":"f${step}.ts"}` },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_use' },
            usage: {
              inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 10, text: 10, reasoning: undefined },
            },
            warnings: [],
            prompt,
          } as never);
    },
  });
  const summarizer = new MockLanguageModelV4({
    modelId: 'summarizer-model',
    doGenerate: async () => ({
      ...textResult(JSON.stringify(STATE)),
      usage: {
        inputTokens: { total: 2_000, noCache: 1_000, cacheRead: 1_000, cacheWrite: undefined },
        outputTokens: { total: 100, text: 100, reasoning: undefined },
      },
    }),
  });
  const reports: CompressionReport[] = [];
  await generateText({
    model: withContextCompression(model, {
      contextWindow: 12_000,
      summarizer,
      summarizeAhead: false,
      cachePricing: { read: 0.1, write: 1.25, output: 4 },
      onCall: (report) => reports.push(report),
    }),
    messages: [{ role: 'user', content: 'Read the files.' }],
    tools: {
      readFile: tool({
        description: 'Reads a file',
        inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
        execute: async ({ path }) => `// ${path}\n${'export const value = compute(input, options);\n'.repeat(80)}`,
      }),
    },
    stopWhen: stepCountIs(steps + 1),
  });
  return reports;
}

describe('the price of a call in its report', () => {
  it('prices a fold (cache writes, the summary) and the calls after it (the history kept out)', async () => {
    const reports = await loop(16);
    const folds = reports.filter((report) => (report.change?.messagesFolded ?? 0) > 0);
    expect(folds.length).toBeGreaterThan(0);
    for (const report of reports) {
      if (report.promptTokens === report.historyTokens && !report.stateInPrompt) continue;
      const price = report.price;
      expect(price).toBeDefined();
      if (!price) continue;
      expect(price.saved).toBe(price.uncompressed - price.sent - price.summarizer);
    }
    const fold = folds[0] as CompressionReport;
    // the summary: 1,000 input tokens at 1, 1,000 cached at 0.1, 100 output at 4
    expect(fold.price?.summarizer).toBe(1_500);
    // the call after a fold reads its prompt from the cache and keeps the folded history out: it saves
    const after = reports[reports.indexOf(fold) + 1];
    if (after && !after.change) {
      expect(after.price?.summarizer).toBe(0);
      expect(after.price?.saved).toBeGreaterThan(0);
      expect(after.price?.saved ?? 0).toBeGreaterThan(fold.price?.saved ?? 0);
    }
  });

  it('is not in the report of a call sent as it came', async () => {
    const reports = await loop(2);
    expect(reports.length).toBeGreaterThan(0);
    for (const report of reports) expect(report.price).toBeUndefined();
    expect(JSON.stringify(reports[0])).not.toContain('price');
  });
});
