import { LRUCache } from 'lru-cache';
import { continues } from './same-message.js';
import type { Message } from './transcript.js';

/** The valid fold points of a history (see `cutPoints`): ascending, each above 0 and below the history's length. */
export interface CutPoints {
  readonly list: readonly number[];
  /** Whether a message index is a valid fold point. */
  has(index: number): boolean;
}

/** What the scan carries from message to message: the points found and the calls still waiting for a result. */
interface CutScan {
  readonly points: number[];
  readonly open: Set<string>;
}

/** Extends a scan over `messages` from `from` on: the same points `cutPoints` finds. */
function scanCuts(scan: CutScan, messages: readonly Message[], from: number): void {
  const { points, open } = scan;
  for (let index = from; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (index > 0 && open.size === 0 && message.role !== 'tool') points.push(index);
    for (const part of message.parts) if (part.type === 'tool-call') open.add(part.id);
    for (const part of message.parts) if (part.type === 'tool-result') open.delete(part.callId);
  }
}

/** The points of a scan, with a lookup by binary search. */
function cutPointsOf(list: readonly number[]): CutPoints {
  return {
    list,
    has(index) {
      let low = 0;
      let high = list.length - 1;
      while (low <= high) {
        const middle = (low + high) >>> 1;
        const value = list[middle] as number;
        if (value === index) return true;
        if (value < index) low = middle + 1;
        else high = middle - 1;
      }
      return false;
    },
  };
}

/**
 * `cutPoints` per conversation, resumed where the previous call of the conversation stopped when its history is a
 * prefix (the same message objects) of this one: a call that appends messages reads only those. A point depends only
 * on the messages before it, so the points of the prefix stay.
 */
export class CutPointIndex {
  private readonly scans: LRUCache<string, { messages: readonly Message[]; scan: CutScan }>;

  constructor(maxConversations = 1_000) {
    this.scans = new LRUCache({ max: maxConversations });
  }

  cuts(conversation: string, messages: readonly Message[]): CutPoints {
    const cached = this.scans.get(conversation);
    const length = cached?.messages.length ?? 0;
    const resumable = cached !== undefined && continues(cached.messages, messages);
    // copied: an earlier call may still read its own points
    const scan: CutScan =
      resumable && cached
        ? { points: [...cached.scan.points], open: new Set(cached.scan.open) }
        : { points: [], open: new Set() };
    scanCuts(scan, messages, resumable ? length : 0);
    this.scans.set(conversation, { messages, scan });
    return cutPointsOf(scan.points);
  }
}

/** The cut points of a history read on its own, without an index. */
export function cutPointsFor(messages: readonly Message[]): CutPoints {
  const scan: CutScan = { points: [], open: new Set() };
  scanCuts(scan, messages, 0);
  return cutPointsOf(scan.points);
}
