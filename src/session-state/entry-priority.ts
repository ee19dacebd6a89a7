/** Words that mark a rule or a limit; an entry carrying one outlives its peers. */
const CONSTRAINT = /\b(?:must|never|always|do not|don't|required|only|at most|at least|exactly|no more than)\b/i;

/**
 * How much a state entry matters when space runs out. What the user said outlives what the assistant said, which
 * outlives tool calls and, last, single lines of tool output; a constraint word adds one level. Entries without a
 * speaker prefix (model summarizers) rank in the middle. The speaker prefixes are the extractive summarizer's.
 */
export function entryPriority(entry: string): number {
  const constraint = CONSTRAINT.test(entry) ? 1 : 0;
  if (/^(?:[^:()]{1,40} \()?user\)?:/i.test(entry)) return 5 + constraint;
  if (/^(?:[^:()]{1,40} \()?assistant\)?:/i.test(entry)) return 2 + constraint;
  if (/^tool [\w.-]+:/.test(entry)) return constraint;
  if (/^(?:tool |assistant called )/.test(entry)) return 1 + constraint;
  return 4 + constraint;
}

/**
 * The entries to drop, in order, when a list must shrink: lowest priority first and, among equals, the oldest.
 * Returns indexes into `entries`.
 */
export function dropOrder(entries: readonly string[]): number[] {
  return entries
    .map((entry, index) => ({ index, priority: entryPriority(entry) }))
    .sort((a, b) => a.priority - b.priority || a.index - b.index)
    .map((ranked) => ranked.index);
}

/** Keeps at most `count` entries, dropping the least important first; the kept entries stay in their order. */
export function keepMostImportant(entries: readonly string[], count: number): string[] {
  if (entries.length <= count) return [...entries];
  const dropped = new Set(dropOrder(entries).slice(0, entries.length - count));
  return entries.filter((_, index) => !dropped.has(index));
}
