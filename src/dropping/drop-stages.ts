import type { DecideStage } from '../stages/decide-call.js';
import { waits } from '../stages/effects.js';
import { applyDrop, planDrop } from './drop-plans.js';

/**
 * While no fold summarized them, the messages an earlier call dropped on a failed summary stay out as long as the
 * prompt would be compressed anyway: the call goes on from the prompt that call sent (its cached prefix holds).
 */
export const carryProvisionalDrop: DecideStage = {
  name: 'carry-provisional-drop',
  plan: ({ call, point, tokens, report }) => {
    const { provisional } = call;
    if (!provisional || report.messagesFolded > 0 || provisional.coveredCount <= point.coveredCount) return undefined;
    if (tokens <= call.facts.limits.compressAt) return undefined;
    const { coveredCount, state, droppedCount } = provisional;
    return {
      point: { ...point, coveredCount, state, droppedCount },
      onlyIfSmaller: true,
      provisional: true,
      restores: true,
    };
  },
};

/**
 * Once the prompt fits below the threshold without an earlier call's provisional drop (an edit, masking,
 * calibration), its messages are sent again, reported.
 */
export const restoreProvisionalDrop: DecideStage = {
  name: 'restore-provisional-drop',
  plan: ({ call, point, report }) => {
    const { provisional, facts } = call;
    if (!provisional || report.messagesFolded > 0 || provisional.coveredCount <= point.coveredCount) return undefined;
    const count = provisional.coveredCount - point.coveredCount;
    const threshold = facts.limits.percent(facts.limits.compressAt);
    return {
      point,
      report: {
        restored: true,
        decisions: [
          {
            trigger: 'hard-limit',
            scope: { kind: 'messages', from: point.coveredCount, to: provisional.coveredCount },
            confidence: 1,
            details: `the ${count} messages an earlier call left out when its summary failed are sent again: the prompt is below the ${threshold} threshold without dropping them`,
          },
        ],
      },
    };
  },
};

/** The last resort: the oldest turns leave without a summary while the prompt is over the hard limit. */
export const hardLimitDrop: DecideStage = {
  name: 'hard-limit-drop',
  plan: async function* ({ call, point, projection, tokens, report }) {
    const { facts, services } = call;
    if (tokens <= facts.limits.hardLimit) return undefined;
    const plan = planDrop({
      facts,
      point,
      projection,
      stateTokens: (state) => services.stateTokens(state),
      meter: services.meter,
      acknowledgement: services.settings.acknowledgement,
    });
    if (!plan) return undefined;
    return {
      point: applyDrop(point, plan),
      onlyIfSmaller: true,
      // made because a summary failed or waits, not by design (folding off, or still over after folding)
      provisional: report.failure !== undefined || (services.settings.folding && (yield* waits())),
      report: { messagesDropped: plan.cut - point.coveredCount, decisions: [plan.decision] },
    };
  },
};
