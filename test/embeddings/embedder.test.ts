import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { Embeddings } from '@langchain/core/embeddings';
import { HumanMessage } from '@langchain/core/messages';
import { generateText } from 'ai';
import { MockEmbeddingModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import { compressMessages } from '../../adapters/langchain/index.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { type Embedder, EmbeddingCache } from '../../src/embeddings/embedder.js';
import { transformersEmbedder } from '../../src/embeddings/transformers-embedder.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { EmbedderError, InvalidOptionError } from '../../src/errors.js';
import type { RecallChunk } from '../../src/recall/recall-chunks.js';
import { fuseRankings } from '../../src/recall/recall-ranking.js';
import { mergeSimilarQuotes } from '../../src/session-state/salience.js';
import { EMPTY_SESSION_STATE } from '../../src/session-state/session-state.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';
import { chat, chatModelMessages, SYSTEM, setup, text } from '../helpers/fixtures.js';
import { echoModel } from '../helpers/mock-model.js';
import { writeTinyEmbeddingModel } from '../helpers/tiny-embedding-model.js';

/** Words that mean the same thing here: the lexical ranking cannot see it, an embedder can. */
const GROUPS = [
  ['car', 'automobile', 'vehicle'],
  ['color', 'colour', 'red', 'blue', 'green'],
  ['dog', 'puppy', 'beagle'],
];
const FACT = 'The automobile I bought last spring is a bright red Tesla.';
const QUESTION = 'What colour is my car?';

/** An early fact, a long chat that folds it away, then the question, which shares no word with the fact. */
const history = (): Message[] => [
  text('user', FACT),
  text('assistant', 'Congratulations on the purchase!'),
  ...chat(60),
  text('user', QUESTION),
];

/** One dimension per group, one for any other word: texts about the same things point the same way. */
function groupVector(value: string): number[] {
  const vector = new Array(GROUPS.length + 1).fill(0);
  for (const word of value.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const group = GROUPS.findIndex((members) => members.includes(word));
    vector[group === -1 ? GROUPS.length : group] += group === -1 ? 0.05 : 1;
  }
  return vector;
}

/** A plain embedder over `groupVector`, counting what it was asked to embed. */
function groupEmbedder() {
  const embedded: string[] = [];
  const embedder: Embedder = {
    embedDocuments: async (texts) => {
      embedded.push(...texts);
      return texts.map(groupVector);
    },
    embedQuery: async (value) => groupVector(value),
  };
  return { embedder, embedded };
}

const recallText = (messages: readonly Message[]) =>
  messages
    .filter((message) => message.synthetic === 'recall')
    .map(messageText)
    .join('\n');

describe('recall ranked with an embedder', () => {
  it('finds a folded message that answers the question in other words; BM25 alone does not', async () => {
    const lexical = setup();
    expect(recallText((await lexical.run(history())).messages)).not.toContain('Tesla');

    const { embedder } = groupEmbedder();
    const semantic = setup({ embedder });
    const out = await semantic.run(history());
    expect(out.messages.some((message) => messageText(message) === FACT)).toBe(false); // folded
    expect(recallText(out.messages)).toContain('bright red Tesla');
    expect(semantic.errors).toEqual([]);
  });

  it('embeds each text once per engine, however many calls rank it', async () => {
    const { embedder, embedded } = groupEmbedder();
    const { run } = setup({ embedder });
    const messages = history();
    await run(messages);
    const first = embedded.length;
    expect(first).toBeGreaterThan(0);
    await run([...messages, text('assistant', 'It is red.'), text('user', 'And which dog did I adopt?')]);
    // only the two new messages' pieces are new
    expect(embedded.length - first).toBeLessThanOrEqual(2);
    expect(new Set(embedded).size).toBe(embedded.length);
  });

  it('ranks by words alone when the embedder fails, and tells onError', async () => {
    const failing: Embedder = {
      embedDocuments: async () => {
        throw new Error('embedding service down');
      },
      embedQuery: async () => [1, 0],
    };
    const { run, errors } = setup({ embedder: failing });
    const out = await run(history());
    expect(out.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fallback).toBe('lexical');
    expect(EmbedderError.isInstance(errors[0]?.error)).toBe(true);
    expect(errors[0]?.error.message).toContain('embedding service down');
  });

  it('does not wait past embedderTimeoutMs for a slow embedder', async () => {
    const never: Embedder = { embedDocuments: () => new Promise(() => {}), embedQuery: () => new Promise(() => {}) };
    const { run, errors } = setup({ embedder: never, embedderTimeoutMs: 50 });
    await run(history());
    expect(errors.map((error) => (error.error as EmbedderError).reason)).toEqual(['timeout']);
  });

  it('rejects vectors of the wrong number or dimension as invalid output', async () => {
    const short = new EmbeddingCache({ embedDocuments: async () => [[1, 0]], embedQuery: async () => [1, 0] });
    await expect(short.documents(['a', 'b'])).rejects.toMatchObject({ reason: 'invalid-output' });
    const mixed = new EmbeddingCache({
      embedDocuments: async (texts) => texts.map((_, index) => (index === 0 ? [1, 0] : [1, 0, 0])),
      embedQuery: async () => [1, 0],
    });
    await expect(mixed.documents(['a', 'b'])).rejects.toMatchObject({ reason: 'invalid-output' });
    const notNumbers = new EmbeddingCache({
      embedDocuments: async (texts) => texts.map(() => [Number.NaN, 1]),
      embedQuery: async () => [1, 0],
    });
    await expect(notNumbers.documents(['a'])).rejects.toMatchObject({ reason: 'invalid-output' });
  });

  it('rejects an embedder option without embedDocuments and embedQuery', () => {
    for (const embedder of [{}, { embedQuery: async () => [1] }, 'text-embedding-3-small']) {
      expect(() => new CompressionEngine({ contextWindow: 4_000, embedder: embedder as never })).toThrow(
        InvalidOptionError,
      );
    }
  });
});

describe('rank fusion', () => {
  const chunk = (message: number): RecallChunk => ({ id: `${message}:0`, message, text: `m${message}`, from: 'user' });

  it('puts a chunk both rankings like above one only one ranking likes', () => {
    const lexical = [chunk(1), chunk(2), chunk(3)].map((c, rank) => ({ chunk: c, score: 3 - rank }));
    const semantic = [chunk(3), chunk(4), chunk(1)].map((c, rank) => ({ chunk: c, score: 0.9 - rank / 10 }));
    const fused = fuseRankings(lexical, semantic).map((hit) => hit.chunk.message);
    expect(fused[0]).toBe(1); // first and third
    expect(fused.indexOf(3)).toBeLessThan(fused.indexOf(2)); // third and first beats second alone
    expect(fused).toHaveLength(4);
  });

  it('leaves out semantic matches no more similar than orthogonal', () => {
    const fused = fuseRankings(
      [],
      [
        { chunk: chunk(1), score: 0 },
        { chunk: chunk(2), score: -0.3 },
      ],
    );
    expect(fused).toEqual([]);
  });
});

describe('salience quotes merged by similarity', () => {
  const state = (salience: string[]) => ({ ...EMPTY_SESSION_STATE, salience });

  it('keeps the longer of two quotes an embedder finds the same', async () => {
    const { embedder } = groupEmbedder();
    const merged = await mergeSimilarQuotes(
      state(['my car is red', 'The automobile is red, bright red', 'I adopted a beagle']),
      new EmbeddingCache(embedder),
      () => {},
    );
    expect(merged.salience).toEqual(['The automobile is red, bright red', 'I adopted a beagle']);
  });

  it('compares words when no embedder is configured', async () => {
    const merged = await mergeSimilarQuotes(
      state(['Deploy only on Fridays after 5 pm.', 'deploy only on fridays after 5 pm', 'Never use tabs.']),
      undefined,
      () => {},
    );
    expect(merged.salience).toEqual(['Deploy only on Fridays after 5 pm.', 'Never use tabs.']);
  });
});

describe('embedders from the frameworks', () => {
  it('AI SDK: an embedding model is called through embedMany and ranks recall', async () => {
    const embeddingModel = new MockEmbeddingModelV4({
      doEmbed: async ({ values }) => ({ embeddings: values.map(groupVector), warnings: [] }),
    });
    const mock = echoModel();
    const model = withContextCompression(mock, {
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      embedder: embeddingModel,
    });
    await generateText({ model, system: messageText(SYSTEM[0] as Message), messages: chatModelMessages(history()) });
    expect(embeddingModel.doEmbedCalls.length).toBeGreaterThan(0);
    const prompt = mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt;
    expect(JSON.stringify(prompt.at(-3))).toContain('bright red Tesla');
  });

  it('LangChain: an Embeddings object is an embedder as it is', async () => {
    class GroupEmbeddings extends Embeddings {
      calls = 0;
      async embedDocuments(documents: string[]) {
        this.calls++;
        return documents.map(groupVector);
      }
      async embedQuery(document: string) {
        return groupVector(document);
      }
    }
    const embeddings = new GroupEmbeddings({});
    const messages = history().map((message) =>
      message.role === 'user' ? new HumanMessage(messageText(message)) : { role: 'ai', content: messageText(message) },
    );
    const out = await compressMessages({
      model: 'test-model',
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      embedder: embeddings,
    }).invoke(messages as never);
    expect(embeddings.calls).toBeGreaterThan(0);
    expect(String(out.at(-3)?.content)).toContain('bright red Tesla');
  });
});

describe('transformersEmbedder on a real transformers.js pipeline', () => {
  let root: string;
  let model: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tiny-embedding-'));
    const words = [...new Set(`${FACT} ${QUESTION} message word congratulations on the purchase`.match(/\p{L}+/gu))];
    ({ model } = writeTinyEmbeddingModel(root, { groups: GROUPS, words }));
    const { env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = root;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('loads a local model and embeds texts by meaning', async () => {
    const embedder = transformersEmbedder({ model, pipelineOptions: { dtype: 'fp32' } });
    const [car, automobile, dog] = await embedder.embedDocuments(['my car', 'the automobile', 'a puppy']);
    const dot = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);
    expect(dot(car as number[], automobile as number[])).toBeGreaterThan(0.4); // one shared meaning of two words each
    expect(dot(car as number[], dog as number[])).toBeLessThan(0.1);
    expect((await embedder.embedQuery('which car')).length).toBe((car as number[]).length);
  });

  it('ranks recall in the engine', async () => {
    const { run, errors } = setup({ embedder: transformersEmbedder({ model, pipelineOptions: { dtype: 'fp32' } }) });
    const out = await run(history());
    expect(errors).toEqual([]);
    expect(recallText(out.messages)).toContain('bright red Tesla');
  });

  it('reports a model that cannot be loaded and ranks by words alone', async () => {
    const { run, errors } = setup({ embedder: transformersEmbedder({ model: 'no-such-model' }) });
    await run(history());
    expect(errors[0]?.fallback).toBe('lexical');
    expect(EmbedderError.isInstance(errors[0]?.error)).toBe(true);
  });

  it('needs a model or a pipeline', () => {
    expect(() => transformersEmbedder({})).toThrow(InvalidOptionError);
  });
});
