import { LRUCache } from 'lru-cache';
import type { CallFacts } from '../../src/call/call-facts.js';
import { type CompressionPoint, startingPoint } from '../../src/call/compression-point.js';
import type { Projection } from '../../src/call/projection.js';
import { readCall } from '../../src/engine/read-call.js';
import { DEFAULT_MASKING_OPTIONS, type MaskingOptions } from '../../src/masking/observation-masking.js';
import type { BudgetLimits } from '../../src/options/budget.js';
import type { StateRecord } from '../../src/persistence/state-records.js';
import { StepAnalyses } from '../../src/signals/step-analyses.js';
import type { CacheEconomics } from '../../src/strategies/cache-economics.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import { ResultSiteIndex } from '../../src/transcript/result-sites.js';
import type { Message } from '../../src/transcript/transcript.js';
import { project } from '../../src/view/project.js';
import { meter } from './fixtures.js';

/**
 * Builders of a call's facts, points and projections for the planners' unit tests: no engine, no adapter, the
 * approximate counter.
 */

/** The limits of a budget at the default shares: compress above 70% down to 60%, the hard limit at 85%. */
export function limitsOf(budget: number): BudgetLimits {
  return {
    budget,
    ratio: 1,
    compressAt: 0.7 * budget,
    compressTo: 0.6 * budget,
    hardLimit: 0.85 * budget,
    maxStateTokens: Math.floor(0.25 * budget),
    maxRecallTokens: Math.floor(0.1 * budget),
    maxToolResultTokens: budget,
    percent: (tokens, digits = 0) => `${((tokens / budget) * 100).toFixed(digits)}%`,
  };
}

/** The facts of a call of `messages` (step signals read, masking with `masking`, no redaction tool). */
export function callFacts(
  messages: readonly Message[],
  { budget = 3_500, masking = {} }: { budget?: number; masking?: MaskingOptions } = {},
): CallFacts {
  const analyses = new StepAnalyses();
  return readCall(
    { system: [], tools: [], messages },
    {
      meter,
      limits: limitsOf(budget),
      scope: ['', ''],
      system: [],
      masking: { ...DEFAULT_MASKING_OPTIONS, ...masking },
      redaction: undefined,
      redactionToolName: DEFAULT_REDACTION_TOOL_NAME,
      ownTools: {},
      siteIndex: new ResultSiteIndex(),
      reuseSeen: (_conversation, history) => history,
      analyzeSteps: (conversation, history, prefixHashes) => analyses.analyze(conversation, history, prefixHashes, []),
    },
  );
}

/** Nothing compressed yet, or `coveredCount` messages folded into `state` when given. */
export function pointAt(facts: CallFacts, changes: Partial<CompressionPoint> = {}): CompressionPoint {
  return { ...startingPoint(facts, undefined), ...changes };
}

/** What the model sees at a point (the `keepRecent` newest results never cut). */
export function projectAt(facts: CallFacts, point: CompressionPoint, keepRecent = 10): Projection {
  return project(facts, point, {
    meter,
    keepRecent,
    cache: {
      edits: new LRUCache({ max: 100 }),
      messages: new LRUCache({ max: 100 }),
      descriptions: new WeakMap(),
      truncations: new WeakMap(),
    },
    recallTokens: () => 0,
  });
}

/** Cache arithmetic that always (or never) pays, whatever is freed and rewritten. */
export function economics(pays: boolean): CacheEconomics {
  return {
    read: 0.1,
    write: 1.25,
    expectedCalls: 10,
    margin: 2,
    unshown: 0,
    pricesSummaries: false,
    summaryCost: () => 0,
    weigh: (freed, rewritten) => ({ savings: freed, breakCost: rewritten, pays }),
  };
}

/** A stored record that covers `covered` messages and holds nothing else (its prefix hash made up). */
export const storedRecord = (covered: number): StateRecord => ({
  version: 3,
  through: covered,
  prefixHash: 'x',
  coveredCount: covered,
  droppedCount: 0,
  masked: [],
});
