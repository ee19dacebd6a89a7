import type { FoldCall } from '../engine/compress-call.js';
import { STATE_FORMAT_VERSION, type StateRecord } from './state-records.js';

/**
 * The record a call stores: its fold point, state and masks, under the shortest prefix that determines them (the fold
 * point, the last masked result, or the history a staleness decision saw), so a repeated, extended or regenerated
 * request finds it. Never shallower than the record it replaces: the lookup takes the deepest matching record, so a
 * newer record must not hide behind an older, deeper one.
 */
export function recordFor(call: FoldCall): StateRecord {
  const masked = [...call.masked].filter((key) => (call.siteByKey.get(key)?.messageIndex ?? -1) >= call.coveredCount);
  const maskReasons: Record<string, string> = {};
  for (const key of masked) {
    const reason = call.maskReasons.get(key);
    if (reason !== undefined) maskReasons[key] = reason;
  }
  const stale = Object.keys(maskReasons).length > 0;
  const through = masked.reduce(
    (deepest, key) => Math.max(deepest, (call.siteByKey.get(key)?.messageIndex ?? 0) + 1),
    Math.max(call.coveredCount, stale ? call.staleThrough : 0, call.minThrough),
  );
  call.minThrough = through;
  return {
    version: STATE_FORMAT_VERSION,
    through,
    prefixHash: (call.prefixHashes[through] as number).toString(36),
    coveredCount: call.coveredCount,
    ...(call.state ? { state: call.state } : {}),
    droppedCount: call.droppedCount,
    masked,
    ...(stale ? { maskReasons } : {}),
  };
}
