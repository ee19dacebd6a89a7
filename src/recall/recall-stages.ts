import type { DecideStage } from '../stages/decide-call.js';

/**
 * Recall blocks made for earlier user messages: kept while the messages after them outweigh them, taken out when they
 * are fewer tokens (a chat turn), with the pieces of results the model redacted since.
 */
export const reviewRecallBlocks: DecideStage = {
  name: 'review-recall-blocks',
  plan: ({ call, point, projection, report }) =>
    call.facts.limits.maxRecallTokens > 0
      ? call.services.recall.review(call.facts, point, projection, report.messagesFolded > 0)
      : undefined,
};

/**
 * The first call that sees a user message after earlier material left the prompt chooses what of it to quote before
 * that message, within the recall budget and under the hard limit.
 */
export const recallForLatest: DecideStage = {
  name: 'recall-for-latest',
  plan: async ({ call, point, projection, tokens }) => {
    if (call.facts.limits.maxRecallTokens <= 0) return undefined;
    const plan = await call.services.recall.choose(call.facts, point, projection, tokens);
    // the report tells the stages after it that a choice was made (what a call from the stored point starts with)
    return plan && plan.point !== point ? { ...plan, report: { ...plan.report, recallChosen: true } } : plan;
  },
};
