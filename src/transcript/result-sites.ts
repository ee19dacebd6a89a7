import { LRUCache } from 'lru-cache';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS, type MessageMeter } from '../counting/message-meter.js';
import { continues } from './same-message.js';
import type { Message, ToolResultPart } from './transcript.js';

/** One tool result of the transcript, where it is and what it is. */
export interface ResultSite {
  /** Identifies this result: its call id, with `#n` added for the n-th repeat of an id (some agents reuse ids). */
  readonly key: string;
  readonly callId: string;
  readonly name: string;
  readonly args: unknown;
  readonly messageIndex: number;
  readonly isError: boolean;
  readonly tokens: number;
}

/** Calls `visit` for every tool result with its key (see `ResultSite.key`), in order. */
export function forEachResult(
  messages: readonly Message[],
  visit: (part: ToolResultPart, key: string, messageIndex: number) => void,
): void {
  const seen = new Map<string, number>();
  messages.forEach((message, messageIndex) => {
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      const occurrence = seen.get(part.callId) ?? 0;
      seen.set(part.callId, occurrence + 1);
      visit(part, occurrence === 0 ? part.callId : `${part.callId}#${occurrence}`, messageIndex);
    }
  });
}

/** What reading results carries from message to message: the calls seen and how often each result id came. */
interface SiteScan {
  readonly calls: Map<string, unknown>;
  readonly seen: Map<string, number>;
  readonly sites: ResultSite[];
}

function scanSites(scan: SiteScan, messages: readonly Message[], from: number, meter: MessageMeter): void {
  const { calls, seen, sites } = scan;
  for (let messageIndex = from; messageIndex < messages.length; messageIndex++) {
    const message = messages[messageIndex] as Message;
    for (const part of message.parts) {
      if (part.type === 'tool-call') calls.set(part.id, part.args);
      else if (part.type === 'tool-result') {
        const occurrence = seen.get(part.callId) ?? 0;
        seen.set(part.callId, occurrence + 1);
        sites.push({
          key: occurrence === 0 ? part.callId : `${part.callId}#${occurrence}`,
          callId: part.callId,
          name: part.name,
          args: calls.get(part.callId),
          messageIndex,
          isError: part.isError === true,
          // a message holding one result: its output's tokens are the message's, less the framing
          tokens:
            message.parts.length === 1
              ? meter.measure(message).tokens - DEFAULT_MESSAGE_OVERHEAD_TOKENS
              : meter.countText(part.output),
        });
      }
    }
  }
}

/** Every tool result of the transcript in order, with its call's name and arguments. */
export function resultSites(messages: readonly Message[], meter: MessageMeter): ResultSite[] {
  const scan: SiteScan = { calls: new Map(), seen: new Map(), sites: [] };
  scanSites(scan, messages, 0, meter);
  return scan.sites;
}

/**
 * `resultSites` per conversation, resumed where the previous call of the conversation stopped when its history is a
 * prefix (the same message objects) of this one: a call that appends messages reads only those.
 */
export class ResultSiteIndex {
  private readonly scans: LRUCache<string, { messages: readonly Message[]; scan: SiteScan }>;

  constructor(maxConversations = 1_000) {
    this.scans = new LRUCache({ max: maxConversations });
  }

  sites(conversation: string, messages: readonly Message[], meter: MessageMeter): readonly ResultSite[] {
    const cached = this.scans.get(conversation);
    const resumable = cached !== undefined && continues(cached.messages, messages);
    const from = resumable ? (cached?.messages.length ?? 0) : 0;
    const scan: SiteScan =
      resumable && cached
        ? // the sites array is copied: an earlier call may still read its own
          { calls: cached.scan.calls, seen: cached.scan.seen, sites: [...cached.scan.sites] }
        : { calls: new Map(), seen: new Map(), sites: [] };
    scanSites(scan, messages, from, meter);
    this.scans.set(conversation, { messages, scan });
    return scan.sites;
  }
}
