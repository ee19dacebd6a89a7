import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import { FoldLayout } from '../call/fold-layout.js';
import type { Projection } from '../call/projection.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { CallDescriptions, Memo, ResultEdit } from '../masking/observation-masking.js';
import type { TruncationMemo } from '../strategies/truncate-tool-result.js';
import type { Message } from '../transcript/transcript.js';
import { buildView } from './prompt-view.js';

/** Memo of edits and edited messages, kept by the engine across calls. */
export interface ProjectionCache {
  readonly edits: Memo<ResultEdit | false>;
  readonly messages: Memo<Message>;
  readonly descriptions: CallDescriptions;
  readonly truncations: TruncationMemo;
}

/** The view and layout of a call's history at a compression point. */
export function project(
  facts: CallFacts,
  point: CompressionPoint,
  {
    meter,
    keepRecent,
    cache,
    recallTokens,
  }: {
    meter: MessageMeter;
    keepRecent: number;
    cache: ProjectionCache;
    /** Tokens of the recall block made for the user message at an index. */
    recallTokens: (at: number, items: readonly string[]) => number;
  },
): Projection {
  const view = buildView({
    messages: facts.messages,
    from: point.coveredCount,
    sites: facts.sites,
    masked: point.masked,
    redactions: facts.redactions,
    maskReasons: point.maskReasons,
    keepRecent,
    maxToolResultTokens: facts.limits.maxToolResultTokens,
    meter,
    cache,
    retrievalToolName: facts.retrievalToolName,
  });
  const before = new Map<number, number>();
  for (const [at, items] of point.recalls) {
    if (at >= point.coveredCount && items.length > 0) before.set(at, recallTokens(at, items));
  }
  return { view, layout: new FoldLayout(facts.messages, view.tokens, facts.fixedTokens, before, facts.cuts) };
}
