import { describe, expect, it } from 'vitest';
import { budgetLimits } from '../../src/options/budget.js';
import { engineSettings } from '../../src/options/engine-settings.js';
import { DEFAULT_AWARENESS_BLOCK, DEFAULT_STATE_ACKNOWLEDGEMENT } from '../../src/options/prompts.js';
import { resolveOptions } from '../../src/options/resolve-options.js';
import { DEFAULT_INTENT_TRANSITIONS } from '../../src/signals/transcript-signals.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';

describe('resolveOptions', () => {
  it('fills in every default, nested ones too', () => {
    const { summarizer, reserveFor, maxToolResultTokensFor, ...resolved } = resolveOptions({});
    expect(typeof (summarizer as { summarize?: unknown }).summarize).toBe('function');
    expect(resolved).toEqual({
      compressAt: 0.7,
      compressTo: 0.6,
      hardLimit: 0.85,
      summarizerTimeoutMs: 30_000,
      storeTimeoutMs: 2_000,
      stateTtlMs: 7 * 24 * 60 * 60 * 1000,
      foldLease: { waitMs: 3_000 },
      namespace: '',
      onBrokenPromise: 'report',
      awarenessBlock: DEFAULT_AWARENESS_BLOCK,
      acknowledgement: DEFAULT_STATE_ACKNOWLEDGEMENT,
      masking: { keepRecent: 10, clearAtLeast: 2_000, excludeTools: [] },
      folding: true,
      triggers: {
        semantic: {
          subtask: true,
          intent: true,
          file: true,
          module: true,
          test: true,
          api: true,
          transitions: DEFAULT_INTENT_TRANSITIONS,
          minTokens: 2_000,
          deferWhileQuoted: true,
        },
        staleness: {
          weights: { age: 0.3, references: 0.4, relevance: 0.3 },
          maxAge: 20,
          maxReferences: 3,
          window: 5,
          threshold: 0.7,
        },
      },
      redaction: { toolName: DEFAULT_REDACTION_TOOL_NAME, excludeTools: [] },
      cachePricing: { read: 0.1, write: 1.25, output: 5 },
      recall: { budgetShare: 0.1 },
      embedderTimeoutMs: 10_000,
    });
    expect(reserveFor(128_000)).toBe(4_096);
    expect(reserveFor(8_192)).toBe(2_048);
    expect(maxToolResultTokensFor(100_000)).toBe(30_000);
  });

  it('keeps what was given and fills in the rest of a nested group', () => {
    const resolved = resolveOptions({
      reserveOutputTokens: 1_000,
      maxToolResultTokens: 5_000,
      masking: { keepRecent: 3, excludeTools: ['memory'] },
      triggers: { semantic: { minTokens: 500 }, staleness: false },
      recall: false,
    });
    expect(resolved.masking).toEqual({ keepRecent: 3, clearAtLeast: 2_000, excludeTools: ['memory'] });
    expect(resolved.triggers.semantic).toMatchObject({ minTokens: 500, subtask: true, deferWhileQuoted: true });
    expect(resolved.triggers.staleness).toBe(false);
    expect(resolved.recall).toBe(false);
    expect(resolved.reserveFor(8_192)).toBe(1_000);
    expect(resolved.maxToolResultTokensFor(100_000)).toBe(5_000);
    // redaction keeps the masked tools' results too, unless it is given its own list
    expect(resolved.redaction).toEqual({ toolName: DEFAULT_REDACTION_TOOL_NAME, excludeTools: ['memory'] });
    expect(resolveOptions({ redaction: { excludeTools: [] }, masking: { excludeTools: ['a'] } }).redaction).toEqual({
      toolName: DEFAULT_REDACTION_TOOL_NAME,
      excludeTools: [],
    });
  });

  it('does not change the options it is given', () => {
    const options = { masking: { keepRecent: 3 }, triggers: { semantic: {} } };
    const copy = structuredClone(options);
    resolveOptions(options);
    expect(options).toEqual(copy);
  });

  it('is what the engine settings and the budget limits read', () => {
    const settings = engineSettings(resolveOptions({ folding: false, masking: false }));
    expect(settings.semantic).toBeUndefined();
    expect(settings.staleness).toBeUndefined();
    expect(settings.masking).toBeUndefined();
    expect(settings.keepRecent).toBe(10);
    expect(settings.redactionToolName).toBe(DEFAULT_REDACTION_TOOL_NAME);
    const limits = budgetLimits(100_000, 1, resolveOptions({}));
    expect(limits).toMatchObject({
      compressAt: 70_000,
      compressTo: 60_000,
      hardLimit: 85_000,
      maxRecallTokens: 10_000,
    });
    expect(limits.maxToolResultTokens).toBe(30_000);
    expect(budgetLimits(100_000, 1, resolveOptions({ recall: false })).maxRecallTokens).toBe(0);
  });

  it("scales the default tool-result cap by a rejection's ratio, not by the running ratio or a given cap", () => {
    expect(budgetLimits(100_000, 2, resolveOptions({})).maxToolResultTokens).toBe(30_000);
    expect(budgetLimits(100_000, 2, resolveOptions({}), 2).maxToolResultTokens).toBe(15_000);
    expect(budgetLimits(100_000, 2, resolveOptions({ maxToolResultTokens: 4_000 }), 2).maxToolResultTokens).toBe(4_000);
  });
});
