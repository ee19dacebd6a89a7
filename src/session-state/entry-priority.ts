/** Words that mark a rule or a limit; an entry carrying one outlives its peers. */
const CONSTRAINT = /\b(?:must|never|always|do not|don't|required|only|at most|at least|exactly|no more than)\b/i;

/**
 * How much a state entry matters when space runs out. What the user said outlives what the assistant said, which
 * outlives tool calls and, last, single lines of tool output; a constraint word adds one level. In a conversation
 * between people (entries named by speaker, `Name (role): ...`) both speakers count alike: each holds half the facts.
 * Entries without a speaker prefix (model summarizers) rank in the middle. The speaker prefixes are the extractive
 * summarizer's.
 */
export function entryPriority(entry: string): number {
  const constraint = CONSTRAINT.test(entry) ? 1 : 0;
  if (/^[^:()]{1,40} \((?:user|assistant)\):/i.test(entry)) return 5 + constraint;
  if (/^user:/i.test(entry)) return 5 + constraint;
  if (/^assistant:/i.test(entry)) return 2 + constraint;
  if (/^tool [\w.-]+:/.test(entry)) return constraint;
  if (/^(?:tool |assistant called )/.test(entry)) return 1 + constraint;
  return 4 + constraint;
}

/** Lowercased words of three or more letters or digits. */
const wordsOf = (entry: string) => entry.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];

/**
 * How specific each entry is among its peers: its words that no other entry uses (names, places, numbers, rare
 * terms), so a line that only a greeting or an agreement fills scores 0 and a line full of particulars scores high.
 */
export function specificity(entries: readonly string[]): number[] {
  const frequency = new Map<string, number>();
  const words = entries.map((entry) => new Set(wordsOf(entry.slice(entry.indexOf(':') + 1))));
  for (const set of words) for (const word of set) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  return words.map((set) => {
    let unique = 0;
    for (const word of set) if (frequency.get(word) === 1) unique++;
    return unique;
  });
}

/**
 * The entries to drop, in order, when a list must shrink: lowest priority first; among equals the least specific
 * (see `specificity`), then the oldest. Returns indexes into `entries`.
 */
export function dropOrder(entries: readonly string[]): number[] {
  const specific = specificity(entries);
  return entries
    .map((entry, index) => ({ index, priority: entryPriority(entry), specific: specific[index] as number }))
    .sort((a, b) => a.priority - b.priority || a.specific - b.specific || a.index - b.index)
    .map((ranked) => ranked.index);
}

/** Keeps at most `count` entries, dropping the least important first; the kept entries stay in their order. */
export function keepMostImportant(entries: readonly string[], count: number): string[] {
  if (entries.length <= count) return [...entries];
  const dropped = new Set(dropOrder(entries).slice(0, entries.length - count));
  return entries.filter((_, index) => !dropped.has(index));
}
