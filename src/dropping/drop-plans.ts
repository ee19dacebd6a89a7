import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { CompressionDecision } from '../reports/decisions.js';
import { fitState } from '../session-state/fit-state.js';
import { nextToolCalls } from '../session-state/folded-calls.js';
import { nextFiles } from '../session-state/folded-files.js';
import { mergeSessionStates } from '../session-state/merge-session-state.js';
import { EMPTY_SESSION_STATE, type SessionState } from '../session-state/session-state.js';
import { appendToTimeline, timelineEntry } from '../session-state/timeline.js';
import { protectedCore } from '../summarizers/protected-core.js';

/** The last resort over the hard limit: the oldest messages leave the prompt without a summary. */
export interface DropPlan {
  readonly cut: number;
  /** The state with a note of what was left out. */
  readonly state: SessionState;
  readonly decision: CompressionDecision;
}

/** Plans a drop down to `compressTo`; undefined when nothing can be dropped. */
export function planDrop({
  facts,
  point,
  projection,
  stateTokens,
  meter,
  acknowledgement,
}: {
  facts: CallFacts;
  point: CompressionPoint;
  projection: Projection;
  meter: MessageMeter;
  /** The acknowledgement the state pair is sent with. */
  acknowledgement?: string;
  /** Tokens of the state pair of `state`, room for the note included by the caller. */
  stateTokens: (state: SessionState) => number;
}): DropPlan | undefined {
  const from = point.coveredCount;
  const state = point.state ?? EMPTY_SESSION_STATE;
  // room for the note and for a protected core of what is dropped
  const reserve = 64 + Math.round(facts.limits.maxStateTokens / 4);
  const cut = projection.layout.chooseCut({
    covered: from,
    stateTokens: stateTokens(state) + reserve,
    targetTokens: facts.limits.compressTo,
  });
  if (cut === undefined) return undefined;
  const dropped = cut - from;
  const note = `(${dropped} earlier messages could not be summarized and were left out.)`;
  // what must survive without a summary: the task, constraints and decisions, quoted (never error text)
  const core = mergeSessionStates(state, {
    ...EMPTY_SESSION_STATE,
    salience: protectedCore(facts.messages.slice(from, cut)),
  });
  const noted = {
    ...core,
    // the dropped span is named in the timeline like a folded one: never gone without a trace
    timeline: appendToTimeline(
      state.timeline,
      timelineEntry({ messages: facts.messages, span: facts.messages.slice(from, cut), from, to: cut }),
    ),
    conversationSummary: `${state.conversationSummary} ${note}`.trim(),
  };
  // the dropped calls are listed like folded ones (with the retrieval tool in the call): their results are recallable
  const toolCalls = nextToolCalls(state.toolCalls, facts.messages.slice(from, cut), facts);
  if (toolCalls) noted.toolCalls = toolCalls;
  const files = nextFiles(state.files, facts.messages.slice(from, cut), from);
  if (files) noted.files = files;
  return {
    cut,
    state: fitState(noted, facts.limits.maxStateTokens, meter, acknowledgement),
    decision: {
      trigger: 'hard-limit',
      scope: { kind: 'messages', from, to: cut },
      confidence: 1,
      details: `prompt over the hard limit of ${facts.limits.percent(facts.limits.hardLimit)} of the budget; dropped the oldest ${dropped} messages without a summary`,
    },
  };
}

/** The compression point after a drop. */
export function applyDrop(point: CompressionPoint, plan: DropPlan): CompressionPoint {
  return {
    ...point,
    coveredCount: plan.cut,
    state: plan.state,
    droppedCount: point.droppedCount + (plan.cut - point.coveredCount),
  };
}
