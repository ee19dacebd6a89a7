import { AIMessageChunk } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../../adapters/langchain/model-info.js';
import { streamWithRetry } from '../../../adapters/langchain/overflow-retry.js';
import type { CompressionEngine } from '../../../src/engine/engine.js';

/** The LangChain stream's opening chunks: held back until one says something, then each passed on once. */

const info = { modelId: 'm', modelKey: 'k', contextWindow: 8_000, maxOutputTokens: undefined } as unknown as ModelInfo;
const engine = { providerRejected: () => undefined } as unknown as CompressionEngine;

async function streamed(chunks: AIMessageChunk[]) {
  const settled: number[] = [];
  const out: AIMessageChunk[] = [];
  for await (const chunk of streamWithRetry({
    engine,
    info,
    compress: async () => 1,
    estimate: () => 100,
    settle: (sent) => settled.push(sent),
    run: async function* () {
      yield* chunks;
    },
  }))
    out.push(chunk);
  return { out, settled };
}

describe('streamWithRetry', () => {
  it('passes every chunk once, in order, the empty opening ones included', async () => {
    const chunks = [new AIMessageChunk(''), new AIMessageChunk('Hello'), new AIMessageChunk(' world')];
    const { out, settled } = await streamed(chunks);
    expect(out).toEqual(chunks);
    expect(settled[0]).toBe(1);
  });

  it('passes the chunks of a stream that said nothing', async () => {
    const chunks = [new AIMessageChunk(''), new AIMessageChunk('')];
    const { out } = await streamed(chunks);
    expect(out).toEqual(chunks);
  });
});
