import { boundedCache } from '../bounded-cache.js';
import { hash53 } from '../counting/hash.js';
import { withTimeout } from '../counting/with-timeout.js';
import { EmbedderError } from '../errors.js';

/**
 * Turns texts into vectors for recall ranking and salience deduplication. It has the shape of LangChain's
 * `Embeddings`, so any LangChain embeddings object is an embedder as it is; `transformersEmbedder()` makes one from a
 * local `@huggingface/transformers` model and the AI SDK adapter takes an AI SDK embedding model.
 */
export interface Embedder {
  /** One vector per text, in order. */
  embedDocuments(texts: string[]): Promise<number[][]>;
  /** The vector of a search query (asymmetric models embed queries differently). */
  embedQuery(text: string): Promise<number[]>;
}

/** Milliseconds the embedder may take for what one call needs before recall ranks lexically for that call. */
export const DEFAULT_EMBEDDER_TIMEOUT_MS = 10_000;
/** Texts per `embedDocuments` call. */
const BATCH_SIZE = 32;
/** Vectors kept per engine (each text is embedded once while it stays). */
const MAX_VECTORS = 20_000;

export function isEmbedder(value: unknown): value is Embedder {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Embedder).embedDocuments === 'function' &&
    typeof (value as Embedder).embedQuery === 'function'
  );
}

/** Dot product of two unit vectors: their cosine similarity. Vectors of other lengths score 0. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

function unit(vector: unknown, dimensions: number | undefined): Float32Array {
  if (!Array.isArray(vector) && !ArrayBuffer.isView(vector)) {
    throw new EmbedderError({ reason: 'invalid-output', cause: new Error('a vector is not an array of numbers') });
  }
  const values = Float32Array.from(vector as ArrayLike<number>);
  if (values.length === 0 || (dimensions !== undefined && values.length !== dimensions)) {
    throw new EmbedderError({
      reason: 'invalid-output',
      cause: new Error(`vectors of ${values.length} and ${dimensions} dimensions`),
    });
  }
  let norm = 0;
  for (const value of values) {
    if (!Number.isFinite(value)) {
      throw new EmbedderError({ reason: 'invalid-output', cause: new Error('a vector holds a non-finite number') });
    }
    norm += value * value;
  }
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let index = 0; index < values.length; index++) values[index] = (values[index] as number) * scale;
  }
  return values;
}

/**
 * The engine's vectors: each text embedded once (kept in an LRU by content hash), in batches, unit length. A call
 * waits at most `timeoutMs`; batches still running then go on in the background and are kept for later calls, so a
 * slow first embedding of a long history costs one lexical turn, not a failed call.
 */
export class EmbeddingCache {
  private readonly vectors = boundedCache<number, Float32Array>(MAX_VECTORS);
  private readonly pending = new Map<number, Promise<void>>();
  private dimensions: number | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly embedder: Embedder,
    private readonly timeoutMs: number = DEFAULT_EMBEDDER_TIMEOUT_MS,
  ) {}

  /** Unit vectors of `texts`, in order. Rejects with an EmbedderError (threw, timeout, invalid-output). */
  async documents(texts: readonly string[]): Promise<Float32Array[]> {
    const keys = texts.map((text) => hash53(text));
    const missing = new Map<number, string>();
    for (const [index, key] of keys.entries()) {
      if (!this.vectors.has(key) && !this.pending.has(key)) missing.set(key, texts[index] as string);
    }
    const entries = [...missing];
    // one batch after the other: a hosted embedder sees one request at a time, a local one one tensor at a time
    for (let start = 0; start < entries.length; start += BATCH_SIZE) {
      const batch = entries.slice(start, start + BATCH_SIZE);
      const done = this.queue.then(() => this.embedBatch(batch));
      this.queue = done.catch(() => undefined);
      for (const [key] of batch) this.pending.set(key, done);
    }
    const waits = new Set<Promise<void>>();
    for (const key of keys) {
      const pending = this.pending.get(key);
      if (pending) waits.add(pending);
    }
    await this.within(Promise.all(waits));
    return keys.map((key) => {
      const vector = this.vectors.get(key);
      // evicted while the others were embedded (more texts than the cache holds): none of it is usable
      if (!vector)
        throw new EmbedderError({ reason: 'invalid-output', cause: new Error('more texts than vectors kept') });
      return vector;
    });
  }

  /** The unit vector of a query. */
  async query(text: string): Promise<Float32Array> {
    const vector = await this.within(
      Promise.resolve().then(() => this.embedder.embedQuery(text)),
      (error) => new EmbedderError({ reason: 'threw', cause: error }),
    );
    return this.checked(vector);
  }

  private async embedBatch(batch: [number, string][]): Promise<void> {
    try {
      const vectors = await Promise.resolve().then(() => this.embedder.embedDocuments(batch.map(([, text]) => text)));
      if (!Array.isArray(vectors) || vectors.length !== batch.length) {
        throw new EmbedderError({
          reason: 'invalid-output',
          cause: new Error(`${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${batch.length} texts`),
        });
      }
      for (const [index, [key]] of batch.entries()) this.vectors.set(key, this.checked(vectors[index]));
    } catch (error) {
      throw EmbedderError.isInstance(error) ? error : new EmbedderError({ reason: 'threw', cause: error });
    } finally {
      for (const [key] of batch) this.pending.delete(key);
    }
  }

  private checked(vector: unknown): Float32Array {
    const values = unit(vector, this.dimensions);
    this.dimensions ??= values.length;
    return values;
  }

  private async within<T>(work: Promise<T>, wrap?: (error: unknown) => EmbedderError): Promise<T> {
    try {
      return await withTimeout(work, this.timeoutMs, () => new EmbedderError({ reason: 'timeout' }));
    } catch (error) {
      if (EmbedderError.isInstance(error) || !wrap) throw error;
      throw wrap(error);
    }
  }
}
