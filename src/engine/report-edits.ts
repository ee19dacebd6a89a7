import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { forEachResult } from '../strategies/observation-masking.js';
import type { Message } from '../transcript/transcript.js';
import type { CompressionDecision } from '../triggers/decisions.js';
import { newlyTruncated, type PromptView } from '../view/prompt-view.js';
import type { CallFacts } from './call-facts.js';

/** What a call's shortened and redacted tool results add to its report. */
export interface EditReport {
  /** Results shortened that the previous prompt did not show shortened, and the tokens that saved. */
  readonly truncated: { readonly count: number; readonly tokensFreed: number };
  /** Redactions of the latest step that this instance had not sent yet, and the tokens they freed. */
  readonly redacted: { readonly count: number; readonly tokensFreed: number };
  readonly decisions: readonly CompressionDecision[];
  /** Keys of the shortened results this call's prompt shows. */
  readonly truncatedShown: ReadonlySet<string>;
}

/**
 * Logs this call's shortened and redacted tool results as decisions, and counts the ones that are news: shortened
 * results the previous prompt did not show shortened, and redactions of the latest step's directives that this
 * instance has not sent yet (a retry stays silent).
 */
export function reportEdits({
  facts,
  view,
  covered,
  previousPrompt,
  previousTruncated,
  meter,
}: {
  facts: CallFacts;
  view: PromptView;
  covered: number;
  previousPrompt: readonly MessageMeasure[] | undefined;
  /** Keys of the shortened results the previous prompt of the conversation showed. */
  previousTruncated: ReadonlySet<string>;
  meter: MessageMeter;
}): EditReport {
  const { messages, limits, latestRedactions, siteByKey } = facts;
  const decisions: CompressionDecision[] = [];
  if (view.truncatedIds.length > 0) {
    decisions.push({
      trigger: 'oversized-result',
      scope: { kind: 'observations', toolCallIds: view.truncatedIds },
      confidence: 1,
      details: `${view.truncatedIds.length} tool results over ${limits.maxToolResultTokens} tokens shortened by relevance to their request (every block kept or named)`,
    });
  }
  const redacted = { count: 0, tokensFreed: 0 };
  if (view.truncatedIds.length === 0 && latestRedactions.size === 0)
    return { truncated: { count: 0, tokensFreed: 0 }, redacted, decisions, truncatedShown: new Set() };
  const { shown, ...truncated } =
    view.truncatedIds.length > 0
      ? newlyTruncated({ view, messages, from: covered, previous: previousTruncated, meter })
      : { count: 0, tokensFreed: 0, shown: new Set<string>() };
  // built only when the latest step redacted something: a retry that sends the same redacted message stays silent
  const previousHashes =
    latestRedactions.size > 0 ? new Set(previousPrompt?.map((measure) => measure.hash)) : new Set<number>();
  forEachResult(latestRedactions.size > 0 ? view.messages : [], (part, key, messageIndex) => {
    // a redacted placeholder may itself be shortened (a tiny `maxToolResultTokens`): still this redaction's edit
    if (messageIndex < covered || !part.edit || part.edit === 'masked' || !latestRedactions.has(key)) return;
    if (previousHashes.has(meter.measure(view.messages[messageIndex] as Message).hash)) return;
    redacted.count++;
    redacted.tokensFreed += Math.max(0, (siteByKey.get(key)?.tokens ?? 0) - meter.countText(part.output));
  });
  if (redacted.count > 0) {
    const keys = [...latestRedactions].filter((key) => (siteByKey.get(key)?.messageIndex ?? -1) >= covered);
    decisions.push({
      trigger: 'redaction',
      scope: { kind: 'observations', toolCallIds: keys.map((key) => siteByKey.get(key)?.callId ?? key) },
      confidence: 1,
      details: `the model redacted ${redacted.count} tool results, freeing ${redacted.tokensFreed} tokens`,
    });
  }
  return { truncated, redacted, decisions, truncatedShown: shown };
}
