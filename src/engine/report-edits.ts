import type { CallFacts } from '../call/call-facts.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { forEachResult } from '../masking/observation-masking.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { Message } from '../transcript/transcript.js';
import { newlyTruncated, type PromptView } from '../view/prompt-view.js';

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
 * results the previous prompt did not show shortened, and redactions this instance has not sent yet: those of the
 * latest step's directives, and once it sent a prompt of the conversation, any it did not send (a retry stays silent).
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
  // the redactions that may be news: those of the latest step, and with a previous prompt every redaction it did not
  // send (a directive that came with later steps, or one another instance sent first)
  const news = previousPrompt && facts.redactions.size > 0 ? facts.redactions : latestRedactions;
  if (view.truncatedIds.length === 0 && news.size === 0)
    return { truncated: { count: 0, tokensFreed: 0 }, redacted, decisions, truncatedShown: new Set() };
  const { shown, ...truncated } =
    view.truncatedIds.length > 0
      ? newlyTruncated({ view, messages, from: covered, previous: previousTruncated, meter })
      : { count: 0, tokensFreed: 0, shown: new Set<string>() };
  // built only when a redaction may be news: a retry that sends the same redacted message stays silent
  const sentBefore = news.size > 0 ? messagesSentBefore(view.messages, covered, previousPrompt, meter) : new Set();
  const reported = new Set<string>();
  forEachResult(news.size > 0 ? view.messages : [], (part, key, messageIndex) => {
    // a redacted placeholder may itself be shortened (a tiny `maxToolResultTokens`): still this redaction's edit
    if (messageIndex < covered || !part.edit || part.edit === 'masked' || !news.has(key)) return;
    if (sentBefore.has(messageIndex)) return;
    redacted.count++;
    reported.add(key);
    redacted.tokensFreed += Math.max(0, (siteByKey.get(key)?.tokens ?? 0) - meter.countText(part.output));
  });
  if (redacted.count > 0) {
    const keys = [...new Set([...latestRedactions, ...reported])].filter(
      (key) => (siteByKey.get(key)?.messageIndex ?? -1) >= covered,
    );
    decisions.push({
      trigger: 'redaction',
      scope: { kind: 'observations', toolCallIds: keys.map((key) => siteByKey.get(key)?.callId ?? key) },
      confidence: 1,
      details: `the model redacted ${redacted.count} tool results, freeing ${redacted.tokensFreed} tokens`,
    });
  }
  return { truncated, redacted, decisions, truncatedShown: shown };
}

/**
 * The indexes of the view's messages (from `from` on) that the previous prompt sent as they are now: each message of
 * the previous prompt is matched once, in order, so two messages of the same content (a call id that repeats in
 * every step, the same placeholder) are told apart.
 */
function messagesSentBefore(
  messages: readonly Message[],
  from: number,
  previousPrompt: readonly MessageMeasure[] | undefined,
  meter: MessageMeter,
): ReadonlySet<number> {
  const left = new Map<number, number>();
  for (const measure of previousPrompt ?? []) left.set(measure.hash, (left.get(measure.hash) ?? 0) + 1);
  const sent = new Set<number>();
  for (let index = from; index < messages.length; index++) {
    const hash = meter.measure(messages[index] as Message).hash;
    const count = left.get(hash) ?? 0;
    if (count === 0) continue;
    left.set(hash, count - 1);
    sent.add(index);
  }
  return sent;
}
