import { eng } from 'stopword';
import type { TokenCounter } from '../counting/token-counter.js';
import { truncateHeadAndTail } from './head-and-tail.js';

/** Lines a block holds at most: long runs without a blank line are still cut into pieces that can be kept apart. */
const MAX_BLOCK_LINES = 12;
/** Fewer lines than this and the text is cut head-and-tail: there is no structure to keep. */
const MIN_LINES = 8;
/** Characters reserved for each marker that stands for a run of left-out blocks. */
const MARKER_CHARS = 220;
/** Key terms a marker names for the blocks it stands for. */
const MARKER_TERMS = 6;
/** Lines that report a failure: kept before other blocks of equal relevance. */
const FAILURE = /\b(error|errors|failed|failure|fail|exception|traceback|panic|fatal|assert\w*|warning)\b/i;
const STOPWORDS = new Set(eng);

interface Block {
  /** First and last line, 0-based, inclusive. */
  readonly first: number;
  readonly last: number;
  readonly text: string;
  readonly terms: ReadonlySet<string>;
}

/**
 * Words of a text as relevance sees them: lowercased identifiers, numbers and paths of 3+ characters, each path also
 * by its pieces (`tests/test_io.py` is also `tests`, `test_io`), no stop words.
 */
function termsOf(text: string): Set<string> {
  const terms = new Set<string>();
  const add = (term: string) => {
    if (term.length >= 3 && !STOPWORDS.has(term)) terms.add(term);
  };
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}_][\p{L}\p{N}_./-]*[\p{L}\p{N}_]/gu)) {
    add(match[0]);
    if (/[./-]/.test(match[0])) for (const piece of match[0].split(/[./-]+/)) add(piece);
  }
  return terms;
}

/** Cuts lines into blocks: at blank lines, and every `MAX_BLOCK_LINES` lines. */
function blocksOf(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let first = 0;
  const close = (last: number) => {
    if (last < first) return;
    const text = lines.slice(first, last + 1).join('\n');
    blocks.push({ first, last, text, terms: termsOf(text) });
    first = last + 1;
  };
  for (let index = 0; index < lines.length; index++) {
    const blank = (lines[index] as string).trim() === '';
    if (blank || index - first + 1 >= MAX_BLOCK_LINES) close(index);
  }
  close(lines.length - 1);
  return blocks;
}

/**
 * Shortens a long tool output to about `maxTokens` by relevance instead of position: the output is cut into blocks
 * (at blank lines, at most 12 lines each), each block is scored by the terms it shares with `context` (the request
 * that produced the output: the user's latest message, the tool call and its arguments), rare terms of the output
 * weighing more and failure lines first; the first and the last block always stay (a command's header, its final
 * result or error), then the best blocks verbatim while they fit. Every block left out is still present: each run
 * of them becomes one marker naming its lines, its size and its key terms, so the model sees the output's whole
 * structure and what to ask for. Outputs of few lines are cut head-and-tail. Deterministic for the same text,
 * limit and context, so the prompt prefix stays cache-stable.
 */
export function shortenByRelevance(
  text: string,
  maxTokens: number,
  counter: TokenCounter,
  { context, knownTokens }: { context: string; knownTokens?: number },
): string {
  const tokens = knownTokens ?? counter.count(text);
  if (tokens <= maxTokens) return text;
  const lines = text.split('\n');
  if (lines.length < MIN_LINES) return truncateHeadAndTail(text, maxTokens, counter, tokens);
  const blocks = blocksOf(lines);
  const charsPerToken = text.length / Math.max(tokens, 1);
  let budget = Math.floor(maxTokens * charsPerToken);
  // the estimate of characters per token can be off for a mixed text: measure, and tighten once if it was
  for (let attempt = 0; attempt < 2; attempt++) {
    const shortened = selectBlocks(blocks, lines.length, budget, charsPerToken, termsOf(context));
    if (shortened === undefined) break;
    const count = counter.count(shortened);
    if (count <= maxTokens) return shortened;
    budget = Math.floor((budget * maxTokens) / count) - MARKER_CHARS;
  }
  return truncateHeadAndTail(text, maxTokens, counter, tokens);
}

function selectBlocks(
  blocks: readonly Block[],
  lineCount: number,
  budget: number,
  charsPerToken: number,
  context: ReadonlySet<string>,
): string | undefined {
  const frequency = new Map<string, number>();
  for (const block of blocks) for (const term of block.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  const weight = (term: string) => Math.log(1 + blocks.length / (frequency.get(term) ?? 1));
  const score = blocks.map((block) => {
    let sum = 0;
    for (const term of block.terms) if (context.has(term)) sum += weight(term);
    return sum + (FAILURE.test(block.text) ? 2 : 0);
  });
  const last = blocks.length - 1;
  const distance = (index: number) => Math.min(index, last - index);
  const order = blocks
    .map((_, index) => index)
    .filter((index) => index !== 0 && index !== last)
    .sort((a, b) => (score[b] as number) - (score[a] as number) || distance(a) - distance(b) || a - b);

  const kept = new Array<boolean>(blocks.length).fill(false);
  kept[0] = true;
  kept[last] = true;
  const cost = () => {
    let chars = 0;
    let runs = 0;
    for (let index = 0; index < blocks.length; index++) {
      if (kept[index]) chars += (blocks[index] as Block).text.length + 1;
      else if (index === 0 || kept[index - 1]) runs++;
    }
    return chars + runs * MARKER_CHARS;
  };
  if (cost() > budget) return undefined;
  for (const index of order) {
    kept[index] = true;
    if (cost() > budget) kept[index] = false;
  }

  const out: string[] = [];
  for (let index = 0; index < blocks.length; ) {
    if (kept[index]) {
      out.push((blocks[index] as Block).text);
      index++;
      continue;
    }
    let end = index;
    while (end + 1 < blocks.length && !kept[end + 1]) end++;
    out.push(marker(blocks.slice(index, end + 1), lineCount, charsPerToken, weight));
    index = end + 1;
  }
  return out.join('\n');
}

/** The line that stands for a run of left-out blocks: where they were, how large, and their rarest terms. */
function marker(
  run: readonly Block[],
  lineCount: number,
  charsPerToken: number,
  weight: (term: string) => number,
): string {
  const first = (run[0] as Block).first + 1;
  const last = Math.min((run.at(-1) as Block).last + 1, lineCount);
  const chars = run.reduce((sum, block) => sum + block.text.length + 1, 0);
  const seen = new Map<string, number>();
  for (const block of run) for (const term of block.terms) if (!seen.has(term)) seen.set(term, seen.size);
  const terms: string[] = [];
  const ranked = [...seen.keys()]
    .filter((term) => term.length <= 24)
    .sort((a, b) => weight(b) - weight(a) || (seen.get(a) as number) - (seen.get(b) as number));
  // a path and its pieces name one thing: the first of them ranked stands for all
  for (const term of ranked) {
    if (terms.length >= MARKER_TERMS) break;
    if (!terms.some((kept) => kept.includes(term) || term.includes(kept))) terms.push(term);
  }
  const lines = first === last ? `line ${first}` : `lines ${first}-${last}`;
  const about = terms.length > 0 ? `; mentions ${terms.join(', ')}` : '';
  return `[... ${lines} left out, about ${Math.round(chars / charsPerToken)} tokens${about} ...]`;
}
