/**
 * The scan that tells which tool results the assistant quoted: the specific terms of every result and of what every
 * user and assistant message says, how many results hold each term, and where the dialogue first and last wrote it.
 * Append-only, so the engine extends one scan per conversation as its history grows.
 */
import type { ResultSite } from '../transcript/result-sites.js';
import { type Message, partText } from '../transcript/transcript.js';
import { specificTerms } from './specific-terms.js';

/**
 * Term sets by message or tool-result part, kept by the engine across calls: a history's unchanged messages are the
 * previous call's objects (see `HistoryMemory`), so each text is read once.
 */
export type TermSetMemo = WeakMap<object, ReadonlySet<string>>;

/** A term in at most this many tool results is specific to them (more: a name every listing repeats). */
export const MAX_RESULTS_WITH_TERM = 2;

/** The specific terms of an object's text, memoized by the object. */
function termsOf(key: object, text: () => string, memo: TermSetMemo | undefined): ReadonlySet<string> {
  const cached = memo?.get(key);
  if (cached) return cached;
  const terms = specificTerms(text());
  memo?.set(key, terms);
  return terms;
}

const NO_TERMS: ReadonlySet<string> = new Set();

/** The specific terms of a result's output, memoized by its part. */
export function resultTerms(
  message: Message | undefined,
  callId: string,
  memo: TermSetMemo | undefined,
): ReadonlySet<string> {
  for (const part of message?.parts ?? []) {
    if (part.type === 'tool-result' && part.callId === callId) return termsOf(part, () => part.output, memo);
  }
  return NO_TERMS;
}

/**
 * Every string and number inside a value (tool-call arguments), one per line: JSON escapes would glue terms. An object
 * met again (a cycle, or shared) is read once.
 */
function leaves(value: unknown, out: string[], seen = new WeakSet<object>()): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') out.push(String(value));
  else if (value !== null && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const item of Array.isArray(value) ? value : Object.values(value)) leaves(item, out, seen);
  }
  return out;
}

/** What a message says: its text, and its tool calls' arguments (tool results are read on their own). */
function said(message: Message): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'tool-call') leaves(part.args, texts);
    else if (part.type !== 'tool-result') texts.push(partText(part));
  }
  return texts.join('\n');
}

/** The specific terms of what a message says, memoized by the message. */
export const messageTerms = (message: Message, memo: TermSetMemo | undefined) =>
  termsOf(message, () => said(message), memo);

/**
 * What a scan of a history's first `count` messages learned: in how many results each term is, the terms known
 * without any result (the system prompt, the first user message), and the first dialogue message and the last
 * assistant message writing each term. Append-only: a longer history extends it.
 */
export interface TermScan {
  count: number;
  /** Hash of the scanned prefix (`prefixHashes[count]`), to tell the same history from another. */
  hash: number | undefined;
  sitesScanned: number;
  firstUserSeen: boolean;
  readonly resultsWith: Map<string, number>;
  /** The results holding each term, as long as they are few enough for it to be specific to them. */
  readonly resultsOf: Map<string, ResultSite[]>;
  readonly known: Set<string>;
  readonly firstSaid: Map<string, number>;
  readonly lastWritten: Map<string, number>;
  /**
   * Per result (by key), its terms that no message before it wrote: fixed once the messages before it are scanned,
   * so a query looks at these few and not at every term of every result in its range.
   */
  readonly unsaid: Map<string, readonly string[]>;
}

export function newScan(system: readonly Message[], memo: TermSetMemo | undefined): TermScan {
  const known = new Set<string>();
  for (const message of system) for (const term of messageTerms(message, memo)) known.add(term);
  return {
    count: 0,
    hash: undefined,
    sitesScanned: 0,
    firstUserSeen: false,
    resultsWith: new Map(),
    resultsOf: new Map(),
    known,
    firstSaid: new Map(),
    lastWritten: new Map(),
    unsaid: new Map(),
  };
}

/** Extends `scan` over the messages and results from where it stopped to the end of `messages`. */
export function extendScan(
  scan: TermScan,
  messages: readonly Message[],
  sites: readonly ResultSite[],
  memo: TermSetMemo | undefined,
): void {
  for (; scan.sitesScanned < sites.length; scan.sitesScanned++) {
    const site = sites[scan.sitesScanned] as ResultSite;
    for (const term of resultTerms(messages[site.messageIndex], site.callId, memo)) {
      const count = (scan.resultsWith.get(term) ?? 0) + 1;
      scan.resultsWith.set(term, count);
      if (count > MAX_RESULTS_WITH_TERM) continue;
      const holding = scan.resultsOf.get(term);
      if (holding) holding.push(site);
      else scan.resultsOf.set(term, [site]);
    }
  }
  for (let index = scan.count; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const terms = messageTerms(message, memo);
    if (message.role === 'user' && !scan.firstUserSeen) {
      scan.firstUserSeen = true;
      for (const term of terms) scan.known.add(term);
    }
    for (const term of terms) {
      if (!scan.firstSaid.has(term)) scan.firstSaid.set(term, index);
      if (message.role === 'assistant') scan.lastWritten.set(term, index);
    }
  }
  scan.count = messages.length;
}
