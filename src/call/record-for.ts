import { type ProvisionalDrop, STATE_FORMAT_VERSION, type StateRecord } from '../persistence/state-records.js';
import { EMPTY_SESSION_STATE } from '../session-state/session-state.js';
import type { CallFacts } from './call-facts.js';
import type { CompressionPoint } from './compression-point.js';

/**
 * The record a call stores: its fold point, state, masks and recall blocks, under the shortest prefix that determines
 * them (the fold point, the last masked result, the history a staleness decision saw, the last recalled-for message), so a repeated, extended or regenerated
 * request finds it. Never shallower than the record the call started from: along one history records are written
 * deeper and deeper, and the lookup takes the one written last. With `lasting` (the point before a drop a
 * failed summary forced), the record's fold point and state are `lasting`'s and `point`'s drop is kept apart as its
 * provisional drop.
 */
export function recordFor(facts: CallFacts, sent: CompressionPoint, lasting?: CompressionPoint): StateRecord {
  const point = lasting
    ? { ...sent, coveredCount: lasting.coveredCount, state: lasting.state, droppedCount: lasting.droppedCount }
    : sent;
  const provisional: ProvisionalDrop | undefined = lasting && {
    coveredCount: sent.coveredCount,
    state: sent.state ?? EMPTY_SESSION_STATE,
    droppedCount: sent.droppedCount,
  };
  const masked = [...point.masked].filter(
    (key) => (facts.siteByKey.get(key)?.messageIndex ?? -1) >= point.coveredCount,
  );
  const maskReasons: Record<string, string> = {};
  for (const key of masked) {
    const reason = point.maskReasons.get(key);
    if (reason !== undefined) maskReasons[key] = reason;
  }
  const stale = Object.keys(maskReasons).length > 0;
  // blocks kept for earlier user messages, and empty choices for those taken out (decided once); the latest user
  // message's choice is stored on its own
  const latest = facts.messages.findLastIndex((message) => message.role === 'user');
  const recalls = [...point.recalls]
    .filter(([at]) => at >= point.coveredCount && at < latest)
    .map(([at, items]): [number, string[]] => [at, [...items]]);
  const through = masked.reduce(
    (deepest, key) => Math.max(deepest, (facts.siteByKey.get(key)?.messageIndex ?? 0) + 1),
    Math.max(
      point.coveredCount,
      stale ? point.staleThrough : 0,
      point.minThrough,
      provisional?.coveredCount ?? 0,
      // a recall block is determined by its user message and everything before it
      ...recalls.map(([at]) => at + 1),
    ),
  );
  return {
    version: STATE_FORMAT_VERSION,
    through,
    prefixHash: (facts.prefixHashes[through] as number).toString(36),
    coveredCount: point.coveredCount,
    ...(point.state ? { state: point.state } : {}),
    droppedCount: point.droppedCount,
    masked,
    ...(stale ? { maskReasons } : {}),
    ...(recalls.length > 0 ? { recalls } : {}),
    ...(provisional ? { provisional } : {}),
  };
}

/** Whether a record says the same as the stored one it would replace: nothing to save. */
export function sameRecord(record: StateRecord, stored: StateRecord | undefined): boolean {
  return stored !== undefined && JSON.stringify(record) === JSON.stringify(stored);
}
