import type { RecallChunk } from './recall-chunks.js';

/** A chunk found for a query, with its score (BM25's, or a fused ranking's). */
export interface RecallHit {
  readonly chunk: RecallChunk;
  readonly score: number;
}

/** Reciprocal-rank-fusion constant: how much the lower ranks of each list still weigh (60 is the usual choice). */
const FUSION_K = 60;

/**
 * Reciprocal rank fusion: each ranking adds `1 / (60 + rank)` for every chunk it holds (60 is the usual constant:
 * how much the lower ranks still weigh). Best first; ties in conversation order.
 */
export function reciprocalRankFusion(rankings: readonly (readonly RecallHit[])[]): RecallHit[] {
  const fused = new Map<string, { chunk: RecallChunk; score: number }>();
  for (const hits of rankings) {
    hits.forEach(({ chunk }, rank) => {
      const entry = fused.get(chunk.id) ?? { chunk, score: 0 };
      entry.score += 1 / (FUSION_K + rank + 1);
      fused.set(chunk.id, entry);
    });
  }
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || a.chunk.message - b.chunk.message || a.chunk.id.localeCompare(b.chunk.id),
  );
}
