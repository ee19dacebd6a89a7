import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { forEachResult } from '../strategies/observation-masking.js';
import type { Message } from '../transcript/transcript.js';
import { newlyTruncated } from '../view/prompt-view.js';
import type { FoldCall } from './compress-call.js';

/**
 * Logs this call's shortened and redacted tool results as decisions, and counts the ones that are news: shortened
 * results the previous prompt did not show shortened, and redactions of the latest step's directives that this
 * instance has not sent yet (a retry stays silent).
 */
export function reportEdits({
  call,
  latestRedactions,
  previousPrompt,
  meter,
}: {
  call: FoldCall;
  latestRedactions: ReadonlySet<string>;
  previousPrompt: readonly MessageMeasure[] | undefined;
  meter: MessageMeter;
}): { truncated: number; redacted: { count: number; tokensFreed: number } } {
  const { view, messages, coveredCount: covered, limits } = call;
  if (view.truncatedIds.length > 0) {
    call.decisions.push({
      trigger: 'oversized-result',
      scope: { kind: 'observations', toolCallIds: view.truncatedIds },
      confidence: 1,
      details: `${view.truncatedIds.length} tool results over ${limits.maxToolResultTokens} tokens shortened head-and-tail`,
    });
  }
  const redacted = { count: 0, tokensFreed: 0 };
  if (view.truncatedIds.length === 0 && latestRedactions.size === 0) return { truncated: 0, redacted };
  const previousHashes = new Set(previousPrompt?.map((measure) => measure.hash));
  const truncated =
    view.truncatedIds.length > 0 ? newlyTruncated({ view, messages, from: covered, previousHashes, meter }) : 0;
  forEachResult(latestRedactions.size > 0 ? view.messages : [], (part, key, messageIndex) => {
    if (messageIndex < covered || part.edit !== 'redacted' || !latestRedactions.has(key)) return;
    if (previousHashes.has(meter.measure(view.messages[messageIndex] as Message).hash)) return;
    redacted.count++;
    redacted.tokensFreed += Math.max(0, (call.siteByKey.get(key)?.tokens ?? 0) - meter.countText(part.output));
  });
  if (redacted.count > 0) {
    const keys = [...latestRedactions].filter((key) => (call.siteByKey.get(key)?.messageIndex ?? -1) >= covered);
    call.decisions.push({
      trigger: 'redaction',
      scope: { kind: 'observations', toolCallIds: keys.map((key) => call.siteByKey.get(key)?.callId ?? key) },
      confidence: 1,
      details: `the model redacted ${redacted.count} tool results, freeing ${redacted.tokensFreed} tokens`,
    });
  }
  return { truncated, redacted };
}
