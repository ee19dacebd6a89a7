import type { BudgetLimits } from '../options/budget.js';
import type { StateRecord } from '../persistence/state-records.js';
import type { CompressionDecision } from '../reports/decisions.js';
import type { SessionState } from '../session-state/session-state.js';

/**
 * A stored record with its states (the lasting one and a provisional drop's) within this call's cap: a record made
 * when the cap was larger (the calibration ratio was lower, another budget, a store shared with other options) is
 * fitted again, so the state sent never exceeds the cap of the call that sends it. The same record when both fit.
 */
export function fittedRecord(
  record: StateRecord | undefined,
  maxStateTokens: number,
  {
    stateTokens,
    fitTo,
  }: { stateTokens: (state: SessionState) => number; fitTo: (state: SessionState, maxTokens: number) => SessionState },
): StateRecord | undefined {
  if (!record) return undefined;
  const capped = (state: SessionState) => (stateTokens(state) <= maxStateTokens ? state : fitTo(state, maxStateTokens));
  const state = record.state && capped(record.state);
  const provisionalState = record.provisional && capped(record.provisional.state);
  if (state === record.state && provisionalState === record.provisional?.state) return record;
  return {
    ...record,
    ...(state ? { state } : {}),
    ...(record.provisional && provisionalState
      ? { provisional: { ...record.provisional, state: provisionalState } }
      : {}),
  };
}

/**
 * The decision a call reports when it sends a stored state cut to its cap: the state message changes, so the cached
 * prefix is rewritten once; the fitted record is saved, so later calls send the same cut.
 */
export function refitDecision(limits: BudgetLimits, coveredCount: number): CompressionDecision {
  return {
    trigger: 'budget',
    scope: { kind: 'messages', from: 0, to: coveredCount },
    confidence: 1,
    details: `the stored session state was cut to its cap of ${Math.round(limits.maxStateTokens * limits.ratio)} tokens: the budget or the calibration ratio changed since it was made`,
  };
}
