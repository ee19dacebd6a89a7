import { LRUCache } from 'lru-cache';
import type { ResultSite } from '../transcript/result-sites.js';
import type { Message } from '../transcript/transcript.js';
import {
  extendScan,
  MAX_RESULTS_WITH_TERM,
  messageTerms,
  newScan,
  resultTerms,
  type TermScan,
  type TermSetMemo,
} from './term-scan.js';

export { specificTerms } from './specific-terms.js';
export type { TermSetMemo } from './term-scan.js';

/**
 * Tool results the agent is still using: a result whose specific content (a path, an identifier, a number that no
 * other message had named before it) the assistant wrote again in a later step. An agent that copies a value, a line
 * number or a name out of a result is working from it; hiding it is the likeliest way to make the agent read it again.
 * On the fixture agent runs, a result quoted this way before a fold was needed again about ten times as often as the
 * others.
 */

/** A result the assistant quoted later: the last assistant message writing one of its specific terms, and the term. */
export interface ResultInUse {
  readonly key: string;
  readonly callId: string;
  readonly messageIndex: number;
  readonly term: string;
  readonly lastUse: number;
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

/** Results quoted by assistant messages: by result key, the indexes of the messages quoting it, in reading order. */
export type Quotes = ReadonlyMap<string, readonly number[]>;

/**
 * The results from `from` on that each of the `readers` (message indexes) quotes: an assistant message among them
 * writes a term specific to a result that came before it (the same terms as `quotedIn`). Read from the reader's
 * terms, so its cost follows the readers, not the results.
 */
function quotesIn(
  scan: TermScan,
  messages: readonly Message[],
  from: number,
  readers: readonly number[],
  memo: TermSetMemo | undefined,
): Map<string, number[]> {
  const quotes = new Map<string, number[]>();
  for (const reader of readers) {
    const message = messages[reader];
    if (message?.role !== 'assistant') continue;
    for (const term of messageTerms(message, memo)) {
      const holding = scan.resultsOf.get(term);
      if (!holding || (scan.resultsWith.get(term) ?? 0) > MAX_RESULTS_WITH_TERM || scan.known.has(term)) continue;
      const firstSaid = scan.firstSaid.get(term) ?? Number.POSITIVE_INFINITY;
      for (const site of holding) {
        // before the result, or written before it came (the agent knew it without the result)
        if (site.messageIndex < from || site.messageIndex >= reader || firstSaid < site.messageIndex) continue;
        const quoting = quotes.get(site.key);
        if (!quoting) quotes.set(site.key, [reader]);
        else if (!quoting.includes(reader)) quoting.push(reader);
      }
    }
  }
  return quotes;
}

/**
 * Which results from `from` on each of the `readers` (indexes of later assistant messages) quotes: the message writes
 * a term specific to the result (as {@link findResultsInUse} reads them: in at most two results, not in the system
 * prompt or the first user message, written by no message before the result). By result key, the quoting readers.
 * Format-independent: a value copied into text or into any argument of any tool counts, whatever the tool's name.
 */
export function findQuotes({
  messages,
  system,
  sites,
  from,
  readers,
  memo,
}: {
  messages: readonly Message[];
  system: readonly Message[];
  sites: readonly ResultSite[];
  from: number;
  readers: readonly number[];
  memo?: TermSetMemo;
}): Quotes {
  if (readers.length === 0 || !sites.some((site) => site.messageIndex >= from)) return new Map();
  const scan = newScan(system, memo);
  extendScan(scan, messages, sites, memo);
  return quotesIn(scan, messages, from, readers, memo);
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

/** What a kept scan reads: the conversation, its history, and the history's results. */
export interface ScanInput {
  /** The key of the conversation (namespace, first message, system prompt and tools). */
  readonly conversation: string;
  readonly messages: readonly Message[];
  /** `prefixHashes[k]`: the hash of the first k messages. */
  readonly prefixHashes: readonly number[];
  readonly system: readonly Message[];
  readonly sites: readonly ResultSite[];
}

/**
 * `findResultsInUse` for the calls of an engine: the scan of each conversation is kept and extended by the messages a
 * call adds (the same result as a scan from scratch: every map is append-only), and started over when the history is
 * not the one scanned (an edit, a fork).
 */
export class ResultsInUse {
  private readonly scans = new LRUCache<string, TermScan>({ max: CONVERSATIONS });

  constructor(private readonly memo: TermSetMemo = new WeakMap()) {}

  /** `findResultsInUse` on the kept scan of the conversation. */
  find(input: ScanInput & { from: number; to: number }): ResultInUse[] {
    const { sites, from, to } = input;
    if (!sites.some((site) => site.messageIndex >= from && site.messageIndex < to)) return [];
    return quotedIn(this.scanOf(input), input.messages, sites, from, to, this.memo);
  }

  /** `findQuotes` on the kept scan of the conversation. */
  quotes(input: ScanInput & { from: number; readers: readonly number[] }): Quotes {
    const { sites, from, readers } = input;
    if (readers.length === 0 || !sites.some((site) => site.messageIndex >= from)) return new Map();
    return quotesIn(this.scanOf(input), input.messages, from, readers, this.memo);
  }

  /** The conversation's scan extended to the end of the history; a new one when the history is not the one scanned. */
  private scanOf({ conversation, messages, prefixHashes, system, sites }: ScanInput): TermScan {
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
    return scan;
  }
}
