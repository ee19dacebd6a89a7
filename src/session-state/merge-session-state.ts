import {
  type MergeSessionStateOptions,
  MergeSessionStateOptionsSchema,
  type MergeSessionStateSettings,
} from '../options/extractive-summarizer-options.js';
import { parseOptions } from '../options/option-issue-error.js';
import { dropOrder, keepMostImportant } from './entry-priority.js';
import type { SessionState } from './session-state.js';

/** Defaults of `mergeSessionStates`. */
const DEFAULTS = MergeSessionStateOptionsSchema.parse({});

/** Token Jaccard similarity at or above which two entries count as the same fact. */
export const DEFAULT_MERGE_SIMILARITY = DEFAULTS.similarity;

/** Most entries a list of the state may hold, per list. */
export type SessionStateEntryLimits = MergeSessionStateSettings['maxEntries'];

/** Default entry limits of a merged state; beyond them the oldest entries are dropped. */
export const DEFAULT_MAX_SESSION_STATE_ENTRIES: Readonly<SessionStateEntryLimits> = Object.freeze(DEFAULTS.maxEntries);

export type { MergeSessionStateOptions };

const LIST_FIELDS = ['logos', 'pathos', 'abstract', 'salience'] as const;
const EDGE_PUNCTUATION = /^[.,;:!?'"`()[\]{}<>«»“”‘’…*]+|[.,;:!?'"`()[\]{}<>«»“”‘’…*]+$/g;

/**
 * Merges a new state into the previous one: previous entries first, then new ones, duplicates and near-duplicates
 * merged in place, each list capped by dropping its least important entries (see `entryPriority`: tool output
 * lines first, what the user said last; the oldest first among equals). Deterministic and never mutates its inputs.
 */
export function mergeSessionStates(
  previous: SessionState | undefined,
  next: SessionState,
  options: MergeSessionStateOptions = {},
): SessionState {
  const { similarity, maxEntries: limits, maxChars } = parseOptions(MergeSessionStateOptionsSchema, options, '');
  const lists = {} as Record<(typeof LIST_FIELDS)[number], string[]>;
  for (const field of LIST_FIELDS) {
    const entries = mergeEntries([...(previous?.[field] ?? []), ...(next[field] ?? [])], similarity);
    lists[field] = keepMostImportant(entries, limits[field]);
  }
  const conversationSummary =
    next.conversationSummary.trim() !== '' ? next.conversationSummary : (previous?.conversationSummary ?? '');
  return fitToChars(withLists(lists, conversationSummary), maxChars);
}

/** Total characters of a state: every entry of every list plus the summary. */
export function sessionStateSize(state: SessionState): number {
  let size = state.conversationSummary.length;
  for (const field of LIST_FIELDS) for (const entry of state[field] ?? []) size += entry.length;
  return size;
}

/** Words of an entry, lowercased, with the punctuation around each word removed. */
export function entryTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.normalize('NFKC').toLowerCase().split(/\s+/)) {
    const token = word.replace(EDGE_PUNCTUATION, '');
    if (token !== '') tokens.push(token);
  }
  return tokens;
}

interface KeptEntry {
  text: string;
  tokens: Set<string>;
}

function mergeEntries(entries: readonly string[], similarity: number): string[] {
  const kept: KeptEntry[] = [];
  const indexByKey = new Map<string, number>();
  for (const entry of entries) {
    const text = entry.trim();
    if (text === '') continue;
    const words = entryTokens(text);
    const key = words.length > 0 ? words.join(' ') : text;
    const tokens = new Set(words);
    const index = indexByKey.get(key) ?? (similarity < 1 ? findSimilar(kept, tokens, similarity) : undefined);
    indexByKey.set(key, index ?? kept.length);
    if (index === undefined) {
      kept.push({ text, tokens });
      continue;
    }
    const existing = kept[index] as KeptEntry;
    // The newer entry wins unless the older one says strictly more; it takes the older entry's place.
    if (tokens.size >= existing.tokens.size) kept[index] = { text, tokens };
  }
  return kept.map((entry) => entry.text);
}

function findSimilar(kept: readonly KeptEntry[], tokens: Set<string>, similarity: number): number | undefined {
  let best: number | undefined;
  let bestScore = similarity;
  for (let index = 0; index < kept.length; index++) {
    const other = (kept[index] as KeptEntry).tokens;
    const smaller = Math.min(other.size, tokens.size);
    const larger = Math.max(other.size, tokens.size);
    // Jaccard can never exceed smaller / larger, so most pairs are skipped without counting.
    if (larger === 0 || smaller / larger < bestScore) continue;
    let shared = 0;
    for (const token of tokens) if (other.has(token)) shared++;
    const score = shared / (tokens.size + other.size - shared);
    if (score >= bestScore && (best === undefined || score > bestScore)) {
      best = index;
      bestScore = score;
    }
  }
  return best;
}

function fitToChars(state: SessionState, maxChars: number): SessionState {
  let size = sessionStateSize(state);
  if (size <= maxChars) return state;
  const lists = {
    logos: [...state.logos],
    pathos: [...state.pathos],
    abstract: [...state.abstract],
    salience: [...(state.salience ?? [])],
  };
  for (const field of LIST_FIELDS) {
    const dropped = new Set<number>();
    for (const index of dropOrder(lists[field])) {
      if (size <= maxChars) break;
      dropped.add(index);
      size -= (lists[field][index] as string).length;
    }
    lists[field] = lists[field].filter((_, index) => !dropped.has(index));
  }
  const conversationSummary =
    size > maxChars ? state.conversationSummary.slice(0, Math.max(0, maxChars)) : state.conversationSummary;
  return withLists(lists, conversationSummary);
}

/** A state of lists and a summary; `salience` only when it holds quotes, so states without any stay as they were. */
function withLists(
  { salience, ...lists }: Record<(typeof LIST_FIELDS)[number], string[]>,
  conversationSummary: string,
): SessionState {
  return { ...lists, ...(salience.length > 0 ? { salience } : {}), conversationSummary };
}
