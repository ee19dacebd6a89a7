import { generateText, isStepCount, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approximateCounter, type CompressionReport, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { echoModel, orderChat, textResult } from '../../helpers/mock-model.js';

const options = { contextWindow: 4_000, reserveOutputTokens: 500, tokenCounter: approximateCounter() };

const chat = orderChat;

/** The report of a call under `context-compression`, as JSON would carry it. */
const reportOf = (metadata: unknown) =>
  JSON.parse(JSON.stringify((metadata as Record<string, unknown> | undefined)?.['context-compression'] ?? null));

describe("the call's report in providerMetadata['context-compression']", () => {
  it('is on a generateText result that folded, with the figures onCall hears and the change', async () => {
    const reports: CompressionReport[] = [];
    const model = withContextCompression(echoModel(), { ...options, onCall: (report) => reports.push(report) });
    const result = await generateText({ model, instructions: 'Be brief.', messages: chat(31) });
    const report = reportOf(result.providerMetadata);
    const heard = reports[0] as CompressionReport;
    expect(report).toMatchObject({
      historyTokens: heard.historyTokens,
      promptTokens: heard.promptTokens,
      cacheablePrefixTokens: heard.cacheablePrefixTokens,
      messagesOutOfPrompt: heard.messagesOutOfPrompt,
      stateInPrompt: true,
      change: {
        trigger: 'budget',
        tokensBefore: heard.change?.tokensBefore,
        tokensAfter: heard.change?.tokensAfter,
        messagesFolded: heard.change?.messagesFolded,
      },
    });
    expect(report.change.messagesFolded).toBeGreaterThan(0);
    expect(report.promptTokens).toBeLessThan(report.historyTokens);
    // the step carries it too, where onStepFinish and steps[i] read it
    expect(reportOf(result.steps[0]?.providerMetadata)).toEqual(report);
  });

  it('is on every step of a tool loop, and has no change on a step that changed nothing', async () => {
    let step = 0;
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        step++;
        if (step > 2) return textResult('done');
        return textResult(`step ${step}`, { toolCalls: [{ id: `c${step}`, name: 'look', input: { q: `${step}` } }] });
      },
    });
    const finished: unknown[] = [];
    const result = await generateText({
      model: withContextCompression(mock, options),
      messages: chat(3),
      tools: { look: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'seen' }) },
      stopWhen: isStepCount(5),
      onStepFinish: (event) => {
        finished.push(reportOf(event.providerMetadata));
      },
    });
    expect(result.steps).toHaveLength(3);
    expect(finished).toHaveLength(3);
    for (const report of finished) {
      expect(report).toMatchObject({ messagesOutOfPrompt: 0, stateInPrompt: false });
      expect(report).not.toHaveProperty('change');
    }
    // each step's prompt grows by its tool pair, and starts with the previous one
    const prompts = finished.map((report) => (report as { promptTokens: number }).promptTokens);
    expect(prompts[1]).toBeGreaterThan(prompts[0] as number);
    expect((finished[1] as { cacheablePrefixTokens: number }).cacheablePrefixTokens).toBe(prompts[0]);
  });

  it('is on a streamText result, from the finish part', async () => {
    const model = withContextCompression(echoModel('streamed'), options);
    const result = streamText({ model, messages: chat(31) });
    await result.consumeStream();
    const report = reportOf(await result.providerMetadata);
    expect(report.stateInPrompt).toBe(true);
    expect(report.change.trigger).toBe('budget');
    expect(report.change.messagesFolded).toBeGreaterThan(0);
  });

  it("keeps the provider's own metadata beside it", async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: async () => ({
        ...textResult('hi'),
        providerMetadata: { anthropic: { cacheCreationInputTokens: 7 } },
      }),
    });
    const result = await generateText({ model: withContextCompression(mock, options), messages: chat(1) });
    expect(result.providerMetadata?.anthropic).toEqual({ cacheCreationInputTokens: 7 });
    expect(reportOf(result.providerMetadata).promptTokens).toBeGreaterThan(0);
  });
});
