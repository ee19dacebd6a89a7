import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  approximateCounter,
  type CompressionReport,
  contextCompression,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { base64, pdf, png } from '../../helpers/images.js';
import { textResult } from '../../helpers/mock-model.js';

const SCREENSHOT = png(1568, 1568);

/** A user message with ten 1568x1568 PNGs (or none), as bytes or base64, with OpenAI's detail when given. */
function prompt(images: number, { detail, asBase64 = false }: { detail?: string; asBase64?: boolean } = {}) {
  const messages: ModelMessage[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Which of these screenshots shows the failing build?' },
        ...Array.from({ length: images }, () => ({
          type: 'image' as const,
          image: asBase64 ? base64(SCREENSHOT) : SCREENSHOT,
          mediaType: 'image/png',
          ...(detail ? { providerOptions: { openai: { imageDetail: detail } } } : {}),
        })),
      ],
    },
  ];
  return messages;
}

const mockModel = (provider: string, modelId: string) =>
  new MockLanguageModelV4({ provider, modelId, doGenerate: async () => textResult('ok') });

const OPTIONS = { contextWindow: 1_000_000, tokenCounter: approximateCounter() };

/** Tokens our count gives the images of `messages`: the call's history less the same call without them. */
async function imageTokens(provider: string, modelId: string, options: { detail?: string; asBase64?: boolean } = {}) {
  const reports: CompressionReport[] = [];
  const model = withContextCompression(mockModel(provider, modelId), {
    ...OPTIONS,
    onCall: (report) => reports.push(report),
  });
  await generateText({ model, messages: prompt(10, options) });
  await generateText({ model, messages: prompt(0) });
  const [withImages, without] = reports as [CompressionReport, CompressionReport];
  return withImages.historyTokens - without.historyTokens;
}

const within20Percent = (value: number, expected: number) => {
  expect(value).toBeGreaterThanOrEqual(expected * 0.8);
  expect(value).toBeLessThanOrEqual(expected * 1.2);
};

describe('files counted as the AI SDK model provider counts them', () => {
  it("ten 1568x1568 PNGs: Claude's ~16,000 tokens", async () => {
    const tokens = await imageTokens('anthropic.messages', 'claude-sonnet-4-5');
    within20Percent(tokens, 16_000);
    expect(tokens).toBe(10 * 1_600);
  });

  it("ten 1568x1568 PNGs: gpt-4o's 7,650 at high detail, 850 at low", async () => {
    within20Percent(await imageTokens('openai.chat', 'gpt-4o'), 7_650);
    expect(await imageTokens('openai.responses', 'gpt-4o', { asBase64: true })).toBe(7_650);
    expect(await imageTokens('openai.chat', 'gpt-4o', { detail: 'low' })).toBe(850);
  });

  it("ten 1568x1568 PNGs: Gemini's nine 768-px tiles of 258 each", async () => {
    expect(await imageTokens('google.generative-ai', 'gemini-2.5-flash')).toBe(10 * 9 * 258);
    expect(await imageTokens('google.vertex.chat', 'gemini-2.5-pro')).toBe(10 * 9 * 258);
  });

  it('a PDF by its pages', async () => {
    const reports: CompressionReport[] = [];
    const model = withContextCompression(mockModel('anthropic.messages', 'claude-sonnet-4-5'), {
      ...OPTIONS,
      onCall: (report) => reports.push(report),
    });
    const ask = (pages: number): ModelMessage[] => [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Summarize the report.' },
          { type: 'file', data: pdf(pages), mediaType: 'application/pdf' },
        ],
      },
    ];
    await generateText({ model, messages: ask(1) });
    await generateText({ model, messages: ask(50) });
    const [one, fifty] = reports as [CompressionReport, CompressionReport];
    expect(fifty.historyTokens - one.historyTokens).toBe(49 * 3_000);
  });

  it('one middleware on models of two providers counts the same images for each', async () => {
    const reports: CompressionReport[] = [];
    const middleware = contextCompression({ ...OPTIONS, onCall: (report) => reports.push(report) });
    const claude = wrapLanguageModel({ model: mockModel('anthropic.messages', 'claude-sonnet-4-5'), middleware });
    const gpt = wrapLanguageModel({ model: mockModel('openai.chat', 'gpt-4o'), middleware });
    const gemini = wrapLanguageModel({ model: mockModel('google.generative-ai', 'gemini-2.5-flash'), middleware });
    for (const model of [claude, gpt, gemini, claude]) await generateText({ model, messages: prompt(10) });
    await generateText({ model: gpt, messages: prompt(0) });
    const base = (reports[4] as CompressionReport).historyTokens;
    expect(reports.slice(0, 4).map((report) => report.historyTokens - base)).toEqual([16_000, 7_650, 23_220, 16_000]);
  });
});
