import { cosine, type EmbeddingCache } from '../embeddings/embedder.js';
import { EmbedderError } from '../errors.js';
import type { Message } from '../transcript/transcript.js';
import { messageText } from '../transcript/transcript.js';
import { entryTokens } from './merge-session-state.js';
import type { SessionState } from './session-state.js';

/** Whitespace collapsed, so a quote that differs from its source only in line breaks or spacing still matches. */
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Keeps the quotes of a new state that are verbatim in the folded messages (whitespace aside) or were already in the
 * previous state; the others are dropped and counted. A summarizer that paraphrases or invents a quote cannot
 * put it in the state as one.
 */
export function verifySalience(
  state: SessionState,
  previous: SessionState | undefined,
  folded: readonly Message[],
): { state: SessionState; rejected: number } {
  if (!state.salience || state.salience.length === 0) return { state, rejected: 0 };
  const source = flat(folded.map(messageText).join('\n'));
  const before = new Set((previous?.salience ?? []).map(flat));
  const kept = state.salience.filter((quote) => {
    const text = flat(quote);
    return text !== '' && (before.has(text) || source.includes(text));
  });
  const rejected = state.salience.length - kept.length;
  return rejected === 0 ? { state, rejected } : { state: { ...state, salience: kept }, rejected };
}

/** Similarity at or above which two quotes say the same thing and are kept once. */
export const SALIENCE_DUPLICATE_SIMILARITY = 0.85;

/**
 * Keeps one quote of each group of near-duplicates (similarity >= 0.85): cosine of the embedder's vectors when one
 * is configured, else Jaccard of their words. Of two duplicates the longer stays, in the earlier one's place. When the
 * embedder fails, words decide and `onError` is told.
 */
export async function mergeSimilarQuotes(
  state: SessionState,
  embeddings: EmbeddingCache | undefined,
  onError: (error: EmbedderError) => void,
): Promise<SessionState> {
  const quotes = state.salience ?? [];
  if (quotes.length < 2) return state;
  let vectors: Float32Array[] | undefined;
  if (embeddings) {
    try {
      vectors = await embeddings.documents(quotes);
    } catch (error) {
      if (!EmbedderError.isInstance(error)) throw error;
      onError(error);
    }
  }
  const words = quotes.map((quote) => new Set(entryTokens(quote)));
  const similarity = (a: number, b: number): number => {
    if (vectors) return cosine(vectors[a] as Float32Array, vectors[b] as Float32Array);
    const left = words[a] as Set<string>;
    const right = words[b] as Set<string>;
    let shared = 0;
    for (const word of left) if (right.has(word)) shared++;
    const union = left.size + right.size - shared;
    return union === 0 ? 1 : shared / union;
  };
  const kept: number[] = [];
  for (let index = 0; index < quotes.length; index++) {
    const twin = kept.findIndex((other) => similarity(other, index) >= SALIENCE_DUPLICATE_SIMILARITY);
    if (twin === -1) kept.push(index);
    else if ((quotes[index] as string).length > (quotes[kept[twin] as number] as string).length) kept[twin] = index;
  }
  if (kept.length === quotes.length) return state;
  return { ...state, salience: kept.map((index) => quotes[index] as string) };
}
