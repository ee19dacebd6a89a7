import { cosine, type EmbeddingCache } from '../embeddings/embedder.js';
import { EmbedderError } from '../errors.js';
import type { Message } from '../transcript/transcript.js';
import type { RecallChunk } from './recall-chunks.js';
import { type RecallHit, reciprocalRankFusion } from './recall-fusion.js';
import type { RecallIndex } from './recall-index.js';

/** What to rank: the chunks of the messages before `through` that pass `keep`, against `query`. */
export interface RecallQuery {
  readonly conversation: string;
  readonly messages: readonly Message[];
  readonly prefixHashes: readonly number[];
  readonly through: number;
  readonly query: string;
  readonly keep: (chunk: RecallChunk) => boolean;
  /** Whether to follow what the best matches name (the index's second hop); scores are then ranks, not BM25's. */
  readonly connect: boolean;
}

/** Longest query text embedded, in characters (as for the lexical query). */
const MAX_QUERY_CHARS = 4_000;

/**
 * Ranks chunks for recall: BM25 alone by default; with an embedder, BM25 and cosine similarity fused by reciprocal
 * rank (each list adds `1 / (60 + rank)`), so a chunk that says the same thing in other words is found and one that
 * shares the rare words is not lost. When the embedder fails or is too slow, the call ranks lexically and the
 * failure goes to `onError`.
 */
export class RecallRanking {
  constructor(
    private readonly index: RecallIndex,
    private readonly embeddings: EmbeddingCache | undefined,
    private readonly onError: (error: EmbedderError) => void,
  ) {}

  async rank(query: RecallQuery): Promise<RecallHit[]> {
    const lexical = this.index.search(query);
    if (!this.embeddings) return lexical;
    const candidates = this.index.chunks(query).filter(query.keep);
    if (candidates.length === 0) return lexical;
    try {
      const [vectors, asked] = await Promise.all([
        this.embeddings.documents(candidates.map((chunk) => chunk.text)),
        this.embeddings.query(query.query.slice(0, MAX_QUERY_CHARS)),
      ]);
      const semantic = candidates.map((chunk, index) => ({
        chunk,
        score: cosine(vectors[index] as Float32Array, asked),
      }));
      return fuseRankings(lexical, semantic);
    } catch (error) {
      if (!EmbedderError.isInstance(error)) throw error;
      this.onError(error);
      return lexical;
    }
  }
}

/**
 * Reciprocal rank fusion of a lexical and a semantic ranking (the semantic list only chunks more similar than
 * orthogonal). Best first; ties in conversation order.
 */
export function fuseRankings(lexical: readonly RecallHit[], semantic: readonly RecallHit[]): RecallHit[] {
  return reciprocalRankFusion([
    lexical,
    [...semantic].filter((hit) => hit.score > 0).sort((a, b) => b.score - a.score),
  ]);
}
