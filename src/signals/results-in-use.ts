import { LRUCache } from 'lru-cache';
import type { ResultSite } from '../transcript/result-sites.js';
import { type Message, partText } from '../transcript/transcript.js';

/**
 * Tool results the agent is still using: a result whose specific content (a path, an identifier, a number that no
 * other message had named before it) the assistant wrote again in a later step. An agent that copies a value, a line
 * number or a name out of a result is working from it; hiding it is the likeliest way to make the agent read it again.
 * On the fixture agent runs, a result quoted this way before a fold was needed again about ten times as often as the
 * others.
 */

/**
 * Term sets by message or tool-result part, kept by the engine across calls: a history's unchanged messages are the
 * previous call's objects (see `HistoryMemory`), so each text is read once.
 */
export type TermSetMemo = WeakMap<object, ReadonlySet<string>>;

/** A term in at most this many tool results is specific to them (more: a name every listing repeats). */
const MAX_RESULTS_WITH_TERM = 2;
/** Text read per message: the head of a very long result holds its names too. */
const MAX_TEXT = 50_000;
/** Shortest term: shorter ones (`id`, `200`, `py`) say nothing specific. */
const MIN_TERM = 4;

const CHUNK = /[A-Za-z0-9_][\w./@:-]*/g;
const NUMBER = /^\d+(?:\.\d+)?$/;
const IDENTIFIER = /^[A-Za-z_]\w*$/;

/**
 * Whether a number says something specific: four characters or more (an id, an amount, a line number). A number that
 * recurs by coincidence (a year, a port) is left out by rarity: in more than two results it is no result's own.
 */
const specificNumber = (number: string) => number.length >= MIN_TERM;

/** Whether a piece without separators is specific on its own: a long number, or a name with `_`, digits or a hump. */
function specificPiece(piece: string): boolean {
  if (piece.length < MIN_TERM) return false;
  if (NUMBER.test(piece)) return specificNumber(piece);
  if (!IDENTIFIER.test(piece)) return /\d/.test(piece) && /[A-Za-z]/.test(piece);
  return piece.includes('_') || /\d/.test(piece) || /[a-z][A-Z]/.test(piece) || /[A-Z]{2}[a-z]/.test(piece);
}

function addTerms(chunk: string, terms: Set<string>): void {
  const trimmed = chunk.replace(/^[./@:-]+|[./@:-]+$/g, '');
  if (trimmed.length < MIN_TERM) return;
  if (NUMBER.test(trimmed)) {
    if (specificNumber(trimmed)) terms.add(trimmed);
    return;
  }
  const separator = trimmed.includes(':') ? ':' : trimmed.includes('/') ? '/' : undefined;
  if (separator) {
    // a path or a location: the whole (when it names something) and each of its parts
    if (/[A-Za-z]/.test(trimmed)) terms.add(trimmed);
    for (const part of trimmed.split(separator)) if (part) addTerms(part, terms);
    return;
  }
  const pieces = trimmed.split(/[.@-]+/).filter((piece) => piece.length > 0);
  // a dotted name, a file name, an address, a date: the whole, unless hyphenated words or short numbers
  if (pieces.length > 1 && /[.@]/.test(trimmed) && !pieces.every((piece) => /^\d{1,2}$/.test(piece))) {
    terms.add(trimmed);
  }
  for (const piece of pieces) if (specificPiece(piece)) terms.add(piece);
}

/** The specific terms of a text: paths, dotted names, identifiers with `_`, digits or inner capitals, long numbers. */
export function specificTerms(text: string): ReadonlySet<string> {
  const terms = new Set<string>();
  for (const match of text.slice(0, MAX_TEXT).matchAll(CHUNK)) addTerms(match[0], terms);
  return terms;
}

/** The specific terms of an object's text, memoized by the object. */
function termsOf(key: object, text: () => string, memo: TermSetMemo | undefined): ReadonlySet<string> {
  const cached = memo?.get(key);
  if (cached) return cached;
  const terms = specificTerms(text());
  memo?.set(key, terms);
  return terms;
}

/** A result the assistant quoted later: the last assistant message writing one of its specific terms, and the term. */
export interface ResultInUse {
  readonly key: string;
  readonly callId: string;
  readonly messageIndex: number;
  readonly term: string;
  readonly lastUse: number;
}

const NO_TERMS: ReadonlySet<string> = new Set();

/** The specific terms of a result's output, memoized by its part. */
function resultTerms(message: Message | undefined, callId: string, memo: TermSetMemo | undefined): ReadonlySet<string> {
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
const messageTerms = (message: Message, memo: TermSetMemo | undefined) => termsOf(message, () => said(message), memo);

/**
 * What a scan of a history's first `count` messages learned: in how many results each term is, the terms known
 * without any result (the system prompt, the first user message), and the first dialogue message and the last
 * assistant message writing each term. Append-only: a longer history extends it.
 */
interface TermScan {
  count: number;
  /** Hash of the scanned prefix (`prefixHashes[count]`), to tell the same history from another. */
  hash: number | undefined;
  sitesScanned: number;
  firstUserSeen: boolean;
  readonly resultsWith: Map<string, number>;
  readonly known: Set<string>;
  readonly firstSaid: Map<string, number>;
  readonly lastWritten: Map<string, number>;
  /**
   * Per result (by key), its terms that no message before it wrote: fixed once the messages before it are scanned,
   * so a query looks at these few and not at every term of every result in its range.
   */
  readonly unsaid: Map<string, readonly string[]>;
}

function newScan(system: readonly Message[], memo: TermSetMemo | undefined): TermScan {
  const known = new Set<string>();
  for (const message of system) for (const term of messageTerms(message, memo)) known.add(term);
  return {
    count: 0,
    hash: undefined,
    sitesScanned: 0,
    firstUserSeen: false,
    resultsWith: new Map(),
    known,
    firstSaid: new Map(),
    lastWritten: new Map(),
    unsaid: new Map(),
  };
}

/** Extends `scan` over the messages and results from where it stopped to the end of `messages`. */
function extendScan(
  scan: TermScan,
  messages: readonly Message[],
  sites: readonly ResultSite[],
  memo: TermSetMemo | undefined,
): void {
  for (; scan.sitesScanned < sites.length; scan.sitesScanned++) {
    const site = sites[scan.sitesScanned] as ResultSite;
    for (const term of resultTerms(messages[site.messageIndex], site.callId, memo)) {
      scan.resultsWith.set(term, (scan.resultsWith.get(term) ?? 0) + 1);
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

/** The quoted results among the sites of `[from, to)`, read off a scan of the whole history. */
function quotedIn(
  scan: TermScan,
  messages: readonly Message[],
  sites: readonly ResultSite[],
  from: number,
  to: number,
  memo: TermSetMemo | undefined,
): ResultInUse[] {
  const inUse: ResultInUse[] = [];
  for (const site of sites) {
    if (site.messageIndex < from || site.messageIndex >= to) continue;
    let unsaid = scan.unsaid.get(site.key);
    if (!unsaid) {
      unsaid = [...resultTerms(messages[site.messageIndex], site.callId, memo)].filter(
        (term) => (scan.firstSaid.get(term) ?? Number.POSITIVE_INFINITY) >= site.messageIndex,
      );
      scan.unsaid.set(site.key, unsaid);
    }
    let found: ResultInUse | undefined;
    for (const term of unsaid) {
      if ((scan.resultsWith.get(term) ?? 0) > MAX_RESULTS_WITH_TERM || scan.known.has(term)) continue;
      const lastUse = scan.lastWritten.get(term) ?? -1;
      if (lastUse > site.messageIndex && (!found || lastUse > found.lastUse)) {
        found = { key: site.key, callId: site.callId, messageIndex: site.messageIndex, term, lastUse };
      }
    }
    if (found) inUse.push(found);
  }
  return inUse;
}

/**
 * The results among `sites` with `from <= messageIndex < to` that the assistant quoted after they came: a term of the
 * result that is specific to it (in at most two results of the history, not in the system prompt or the first user
 * message, and written by no user or assistant message before the result: the agent knew it without the result)
 * appears in a later assistant message. Each with the last such message. In history order.
 */
export function findResultsInUse({
  messages,
  system,
  sites,
  from,
  to,
  memo,
}: {
  messages: readonly Message[];
  system: readonly Message[];
  sites: readonly ResultSite[];
  from: number;
  to: number;
  memo?: TermSetMemo;
}): ResultInUse[] {
  if (!sites.some((site) => site.messageIndex >= from && site.messageIndex < to)) return [];
  const scan = newScan(system, memo);
  extendScan(scan, messages, sites, memo);
  return quotedIn(scan, messages, sites, from, to, memo);
}

/** Conversations whose scans are kept. */
const CONVERSATIONS = 64;

/**
 * `findResultsInUse` for the calls of an engine: the scan of each conversation is kept and extended by the messages a
 * call adds (the same result as a scan from scratch: every map is append-only), and started over when the history is
 * not the one scanned (an edit, a fork).
 */
export class ResultsInUse {
  private readonly scans = new LRUCache<string, TermScan>({ max: CONVERSATIONS });

  constructor(private readonly memo: TermSetMemo = new WeakMap()) {}

  find({
    conversation,
    messages,
    prefixHashes,
    system,
    sites,
    from,
    to,
  }: {
    /** The key of the conversation (namespace, first message, system prompt and tools). */
    conversation: string;
    messages: readonly Message[];
    /** `prefixHashes[k]`: the hash of the first k messages. */
    prefixHashes: readonly number[];
    system: readonly Message[];
    sites: readonly ResultSite[];
    from: number;
    to: number;
  }): ResultInUse[] {
    if (!sites.some((site) => site.messageIndex >= from && site.messageIndex < to)) return [];
    let scan = this.scans.get(conversation);
    if (
      !scan ||
      scan.count > messages.length ||
      scan.hash !== prefixHashes[scan.count] ||
      scan.sitesScanned > sites.length
    ) {
      scan = newScan(system, this.memo);
      this.scans.set(conversation, scan);
    }
    extendScan(scan, messages, sites, this.memo);
    scan.hash = prefixHashes[scan.count];
    return quotedIn(scan, messages, sites, from, to, this.memo);
  }
}
