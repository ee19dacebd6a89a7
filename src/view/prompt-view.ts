import type { PromptView } from '../call/projection.js';
import { hash53 } from '../counting/hash.js';
import type { MessageMeter } from '../counting/message-meter.js';
import {
  applyResultEdits,
  type CallDescriptions,
  forEachResult,
  type Memo,
  type ResultEdit,
  type ResultSite,
  resultEdits,
} from '../masking/observation-masking.js';
import { type TruncationMemo, truncateOversizedResults } from '../strategies/truncate-tool-result.js';
import type { Message } from '../transcript/transcript.js';

export type { PromptView } from '../call/projection.js';

/**
 * Builds what the model sees from `from` on: masked and redacted results become placeholders, then any remaining
 * result too large on its own is shortened by relevance. Messages before `from` are folded and not rebuilt.
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
  cache,
  maskReasons,
  retrievalToolName,
}: {
  /** The retrieval tool's name when the call carries it: placeholders and cut results name it. */
  retrievalToolName?: string | undefined;
  /** Reasons of masks that were stale rather than old. */
  maskReasons?: ReadonlyMap<string, string>;
  messages: readonly Message[];
  from: number;
  /** Edits and edited messages of earlier calls, reused when the same message gets the same edits. */
  cache?: {
    edits: Memo<ResultEdit | false>;
    messages: Memo<Message>;
    descriptions?: CallDescriptions;
    truncations?: TruncationMemo;
  };
  sites: readonly ResultSite[];
  masked: ReadonlySet<string>;
  redactions: ReadonlyMap<string, string>;
  keepRecent: number;
  maxToolResultTokens: number;
  meter: MessageMeter;
}): PromptView {
  const edits = resultEdits({
    sites,
    masked,
    redactions,
    maskReasons,
    keepRecent,
    meter,
    memo: cache?.edits,
    descriptions: cache?.descriptions,
    retrievalToolName,
  });
  const edited = applyResultEdits(
    messages,
    edits,
    from,
    cache && {
      map: cache.messages,
      // a placeholder's text follows from the message's content and, for a stale mask or a redaction, its reason
      key: (message, applied) =>
        `${meter.measure(message).hash}:${retrievalToolName ?? ''}:${applied.map((edit) => `${edit.kind === 'masked' ? 'm' : 'r'}${hash53(edit.text)}`).join(',')}`,
    },
  );
  const measures = edited.map((message) => meter.measure(message));
  const truncated = truncateOversizedResults(
    edited,
    measures,
    maxToolResultTokens,
    meter,
    cache?.truncations,
    retrievalToolName,
  );
  return { messages: truncated.messages, tokens: truncated.tokens, truncatedIds: truncated.truncatedIds };
}

/**
 * The tool results this call's view shortened from `from` on that the previous prompt of the
 * conversation did not already show shortened (`previous`: keys of the results it showed shortened), and the tokens
 * each cut saved; `shown` holds the keys of every shortened result this view shows, for the next call.
 */
export function newlyTruncated({
  view,
  messages,
  from,
  previous,
  meter,
}: {
  view: PromptView;
  messages: readonly Message[];
  from: number;
  previous: ReadonlySet<string>;
  meter: MessageMeter;
}): { count: number; tokensFreed: number; shown: Set<string> } {
  let count = 0;
  let tokensFreed = 0;
  const shown = new Set<string>();
  forEachResult(view.messages, (part, key, index) => {
    if (index < from || part.edit !== 'truncated') return;
    shown.add(key);
    if (previous.has(key)) return;
    count++;
    const original = (messages[index] as Message).parts.find(
      (candidate) => candidate.type === 'tool-result' && candidate.callId === part.callId,
    );
    const before = original?.type === 'tool-result' ? meter.countText(original.output) : 0;
    tokensFreed += Math.max(0, before - meter.countText(part.output));
  });
  return { count, tokensFreed, shown };
}
