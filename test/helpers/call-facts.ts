import { LRUCache } from 'lru-cache';
import { type CallFacts, readCall } from '../../src/engine/call-facts.js';
import { type CompressionPoint, startingPoint } from '../../src/engine/compression-point.js';
import { type Projection, project } from '../../src/engine/projection.js';
import { budgetLimits } from '../../src/options/budget.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { StepAnalyses } from '../../src/signals/step-analyses.js';
import type { CacheEconomics } from '../../src/strategies/cache-economics.js';
import { DEFAULT_MASKING_OPTIONS, type MaskingOptions } from '../../src/strategies/observation-masking.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import { ResultSiteIndex } from '../../src/transcript/result-sites.js';
import type { Message } from '../../src/transcript/transcript.js';
import { meter } from './fixtures.js';

/**
 * Builders of a call's facts, points and projections for the planners' unit tests: no engine, no adapter, the
 * approximate counter, a budget of `budget` tokens with the options' shares (70% / 60% / 85% by default).
 */

/** The facts of a call of `messages` (step signals read, masking with `masking`, no redaction tool). */
export function callFacts(
  messages: readonly Message[],
  {
    budget = 3_500,
    options = {},
    masking = {},
  }: { budget?: number; options?: CompressionOptions; masking?: MaskingOptions } = {},
): CallFacts {
  const analyses = new StepAnalyses();
  return readCall(
    { system: [], tools: [], messages },
    {
      meter,
      limits: budgetLimits(budget, 1, options),
      scope: ['', ''],
      system: [],
      masking: { ...DEFAULT_MASKING_OPTIONS, ...masking },
      redaction: undefined,
      redactionToolName: DEFAULT_REDACTION_TOOL_NAME,
      ownTools: {},
      siteIndex: new ResultSiteIndex(),
      recall: (_conversation, history) => history,
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
    weigh: (freed, rewritten) => ({ savings: freed, breakCost: rewritten, pays }),
  };
}
