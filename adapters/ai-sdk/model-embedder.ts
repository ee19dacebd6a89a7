import { type EmbeddingModel, embed, embedMany } from 'ai';
import type { Embedder } from '../../src/embeddings/embedder.js';

/** Options of an embedder backed by an AI SDK embedding model. */
export interface ModelEmbedderOptions {
  /** Retries of each embedding call on provider errors. @default 1 */
  maxRetries?: number;
  /** Provider options passed to every embedding call (e.g. the output dimensions). */
  providerOptions?: Parameters<typeof embedMany>[0]['providerOptions'];
}

/**
 * An embedder on any AI SDK embedding model (`openai.embedding('text-embedding-3-small')`, a gateway id...), through
 * `embedMany` and `embed`, so the provider's batching limits and retries apply. Passing the model itself as
 * `embedder` does the same with the defaults.
 */
export function modelEmbedder(
  model: EmbeddingModel,
  { maxRetries = 1, providerOptions }: ModelEmbedderOptions = {},
): Embedder {
  return {
    async embedDocuments(texts) {
      const { embeddings } = await embedMany({ model, values: texts, maxRetries, providerOptions });
      return embeddings;
    },
    async embedQuery(text) {
      const { embedding } = await embed({ model, value: text, maxRetries, providerOptions });
      return embedding;
    },
  };
}

/** An AI SDK embedding model: a model id string, or an object with `doEmbed`. */
export function isEmbeddingModel(value: unknown): value is EmbeddingModel {
  return (
    typeof value === 'string' ||
    (typeof value === 'object' && value !== null && typeof (value as { doEmbed?: unknown }).doEmbed === 'function')
  );
}
