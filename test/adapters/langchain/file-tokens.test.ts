import { type BaseMessage, type ContentBlock, HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import {
  approximateCounter,
  type CompressionReport,
  compressMessages,
  contextCompressionMiddleware,
  withContextCompression,
} from '../../../adapters/langchain/index.js';
import { base64, png } from '../../helpers/images.js';
import { RecordingChatModel } from '../../helpers/langchain.js';

const SCREENSHOT = base64(png(1568, 1568));

/** The image blocks each provider's LangChain integration takes, ten screenshots of each kind. */
const BLOCKS = {
  anthropic: { type: 'image', source: { type: 'base64', media_type: 'image/png', data: SCREENSHOT } },
  openaiHigh: { type: 'image_url', image_url: { url: `data:image/png;base64,${SCREENSHOT}`, detail: 'high' } },
  openaiLow: { type: 'image_url', image_url: { url: `data:image/png;base64,${SCREENSHOT}`, detail: 'low' } },
  standard: { type: 'image', mimeType: 'image/png', data: SCREENSHOT },
  dataBlock: { type: 'image', source_type: 'base64', mime_type: 'image/png', data: SCREENSHOT },
};

const question = (block?: object): BaseMessage[] => [
  new HumanMessage({
    // provider-specific blocks, as each integration documents them
    content: [
      { type: 'text', text: 'Which of these screenshots shows the failing build?' },
      ...(block ? Array.from({ length: 10 }, () => block) : []),
    ] as ContentBlock[],
  }),
];

const OPTIONS = { contextWindow: 1_000_000, tokenCounter: approximateCounter() };

/** A chat model whose provider only its type tells, as ChatAnthropic's `_llmType()` does. */
class TypedChatModel extends RecordingChatModel {
  constructor(private readonly type: string) {
    super({ model: 'house-model' });
  }
  override _llmType(): string {
    return this.type;
  }
}

/** Tokens the wrapped model counts for the ten images of `block`: the call's history less one without them. */
async function imageTokens(model: RecordingChatModel, block: object): Promise<number> {
  const reports: CompressionReport[] = [];
  const wrapped = withContextCompression(model, { ...OPTIONS, onCall: (report) => reports.push(report) });
  await wrapped.invoke(question(block));
  await wrapped.invoke(question());
  const [withImages, without] = reports as [CompressionReport, CompressionReport];
  return withImages.historyTokens - without.historyTokens;
}

describe('files counted as the LangChain model provider counts them', () => {
  it("ten 1568x1568 PNGs: Claude's ~16,000 tokens, by model id or by the model's type", async () => {
    const tokens = await imageTokens(new RecordingChatModel({ model: 'claude-sonnet-4-5' }), BLOCKS.anthropic);
    expect(tokens).toBeGreaterThanOrEqual(16_000 * 0.8);
    expect(tokens).toBeLessThanOrEqual(16_000 * 1.2);
    expect(await imageTokens(new TypedChatModel('anthropic'), BLOCKS.standard)).toBe(16_000);
  });

  it("ten 1568x1568 PNGs: gpt-4o's 7,650 at high detail, 850 at low", async () => {
    const tokens = await imageTokens(new RecordingChatModel({ model: 'gpt-4o' }), BLOCKS.openaiHigh);
    expect(tokens).toBeGreaterThanOrEqual(7_650 * 0.8);
    expect(tokens).toBeLessThanOrEqual(7_650 * 1.2);
    expect(await imageTokens(new TypedChatModel('openai'), BLOCKS.openaiLow)).toBe(850);
  });

  it("ten 1568x1568 PNGs: Gemini's nine 768-px tiles of 258 each", async () => {
    expect(await imageTokens(new RecordingChatModel({ model: 'gemini-2.5-flash' }), BLOCKS.dataBlock)).toBe(23_220);
    expect(await imageTokens(new TypedChatModel('googlegenerativeai'), BLOCKS.standard)).toBe(23_220);
  });

  it('compressMessages counts for the provider its model id names, and without a model as the largest count', async () => {
    const historyTokens = async (model: string | undefined, block?: object) => {
      const reports: CompressionReport[] = [];
      const step = compressMessages({ ...OPTIONS, model, onCall: (report) => reports.push(report) });
      await step.invoke(question(block));
      return (reports[0] as CompressionReport).historyTokens;
    };
    expect((await historyTokens('gpt-4o', BLOCKS.openaiHigh)) - (await historyTokens('gpt-4o'))).toBe(7_650);
    expect((await historyTokens(undefined, BLOCKS.openaiHigh)) - (await historyTokens(undefined))).toBe(23_220);
  });

  it('the createAgent middleware counts for the model the agent calls', async () => {
    const reports: CompressionReport[] = [];
    const middleware = contextCompressionMiddleware({ ...OPTIONS, onCall: (report) => reports.push(report) });
    const run = (model: RecordingChatModel, messages: BaseMessage[]) =>
      createAgent({ model, tools: [], middleware: [middleware] }).invoke({ messages });
    // the same message objects go to both models: each counts them its own way
    const messages = question(BLOCKS.standard);
    await run(new RecordingChatModel({ model: 'claude-sonnet-4-5' }), messages);
    await run(new RecordingChatModel({ model: 'gpt-4o' }), messages);
    await run(new RecordingChatModel({ model: 'gpt-4o' }), question());
    const base = (reports[2] as CompressionReport).historyTokens;
    expect(reports.slice(0, 2).map((report) => report.historyTokens - base)).toEqual([16_000, 7_650]);
  });
});
