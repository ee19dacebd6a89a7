import { specificTerms } from './specific-terms.js';

/**
 * Exact matching of what a query names: its specific terms (a path, a file name, an identifier, an error code, a long
 * number; see `specificTerms`), found verbatim in a text, not inside a longer name (`module_2` is not in
 * `module_21`), letter case ignored. A path matches where it ends another (`src/a.ts` in `/repo/src/a.ts`), and
 * its file name alone matches too, for less.
 */

/** Whether a character continues a name: a match must not have one right before or after it. */
const NAME_CHAR = /[A-Za-z0-9_]/;

/** Whether `term` (lowercase) occurs in `text` (lowercase) as a whole name. */
export function holdsTerm(text: string, term: string): boolean {
  for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
    const before = text[at - 1];
    const after = text[at + term.length];
    if ((before === undefined || !NAME_CHAR.test(before)) && (after === undefined || !NAME_CHAR.test(after))) {
      return true;
    }
  }
  return false;
}

/** The specific terms of a query, lowercase, each once. */
export function queryTerms(query: string): string[] {
  return [...new Set([...specificTerms(query)].map((term) => term.toLowerCase()))];
}

/**
 * The documents holding the query's specific terms, best first: each term found adds its rarity (`ln(1 + n / df)`,
 * df the documents holding it) times its length against the longest term's, so the whole path outweighs its file name
 * and a name few documents hold outweighs a common one. A term every document holds adds nothing. Ties keep the
 * documents' order. Empty when the query names nothing specific or nothing holds it.
 */
export function exactRanking(
  query: string,
  documents: readonly string[],
  /** The documents the rarity is counted against, when `documents` are only the candidates among them. */
  total = documents.length,
): Array<{ readonly index: number; readonly score: number }> {
  const terms = queryTerms(query);
  if (terms.length === 0 || documents.length === 0) return [];
  const lowered = documents.map((text) => text.toLowerCase());
  const longest = Math.max(...terms.map((term) => term.length));
  const scores = new Map<number, number>();
  for (const term of terms) {
    const holding = lowered.flatMap((text, index) => (holdsTerm(text, term) ? [index] : []));
    if (holding.length === 0 || holding.length >= total) continue;
    const weight = Math.log(1 + total / holding.length) * (term.length / longest);
    for (const index of holding) scores.set(index, (scores.get(index) ?? 0) + weight);
  }
  return [...scores].map(([index, score]) => ({ index, score })).sort((a, b) => b.score - a.score || a.index - b.index);
}
