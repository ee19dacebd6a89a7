import type { MessageMeter } from './message-meter.js';
import { applyResultEdits, forEachResult, type ResultSite, resultEdits } from './observation-masking.js';
import type { Message } from './transcript.js';
import { truncateOversizedResults } from './truncate-tool-result.js';

/** The messages as the model will see them, with their token counts. */
export interface PromptView {
  readonly messages: readonly Message[];
  readonly tokens: readonly number[];
  /** Tool calls whose results were shortened head-and-tail because each alone was too large. */
  readonly truncatedIds: readonly string[];
}

/**
 * Builds what the model sees from `from` on: masked and redacted results become placeholders, then any remaining
 * result too large on its own is shortened head-and-tail. Messages before `from` are folded and not rebuilt.
 */
export function buildView({
  messages,
  from,
  sites,
  masked,
  redactions,
  keepRecent,
  maxToolResultTokens,
  meter,
}: {
  messages: readonly Message[];
  from: number;
  sites: readonly ResultSite[];
  masked: ReadonlySet<string>;
  redactions: ReadonlyMap<string, string>;
  keepRecent: number;
  maxToolResultTokens: number;
  meter: MessageMeter;
}): PromptView {
  const edits = resultEdits({ sites, masked, redactions, keepRecent, meter });
  const edited = applyResultEdits(messages, edits, from);
  const measures = edited.map((message) => meter.measure(message));
  const truncated = truncateOversizedResults(edited, measures, maxToolResultTokens, meter);
  return { messages: truncated.messages, tokens: truncated.tokens, truncatedIds: truncated.truncatedIds };
}

/** Counts of what changed in the view compared with a previous prompt, by kind, with the tokens each change freed. */
export interface ViewChanges {
  readonly masked: { count: number; tokensFreed: number };
  readonly redacted: { count: number; tokensFreed: number };
  readonly truncated: number;
}

/**
 * What this call's view changed that the previous prompt (given as message hashes) did not have yet: the edits that
 * are new in this call. Edits carried over from earlier calls are not counted again.
 */
export function newViewChanges({
  view,
  messages,
  from,
  previousHashes,
  sites,
  meter,
}: {
  view: PromptView;
  messages: readonly Message[];
  from: number;
  previousHashes: ReadonlySet<number>;
  sites: ReadonlyMap<string, ResultSite>;
  meter: MessageMeter;
}): ViewChanges {
  const changes = { masked: { count: 0, tokensFreed: 0 }, redacted: { count: 0, tokensFreed: 0 }, truncated: 0 };
  const fresh = new Set<number>();
  for (let index = from; index < view.messages.length; index++) {
    const message = view.messages[index] as Message;
    if (message !== messages[index] && !previousHashes.has(meter.measure(message).hash)) fresh.add(index);
  }
  forEachResult(view.messages, (part, key, messageIndex) => {
    if (!fresh.has(messageIndex) || !part.edit) return;
    if (part.edit === 'truncated') {
      changes.truncated++;
      return;
    }
    changes[part.edit].count++;
    changes[part.edit].tokensFreed += Math.max(0, (sites.get(key)?.tokens ?? 0) - meter.countText(part.output));
  });
  return changes;
}
