import { describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import {
  applyFold,
  foldStateCap,
  planBudgetFold,
  planSemanticFold,
  ROOM_FOR_CALLS,
  STATE_FLOOR_SHARE,
} from '../../src/folding/fold-plans.js';
import { type Boundary, DEFAULT_SEMANTIC_TRIGGER_OPTIONS } from '../../src/folding/semantic-triggers.js';
import { STATE_SHARE_OF_BUDGET } from '../../src/options/budget.js';
import type { ResultInUse } from '../../src/signals/results-in-use.js';
import { callFacts, economics, pointAt, projectAt } from '../helpers/call-facts.js';
import { agentLoop, chat, deepFreeze } from '../helpers/fixtures.js';

/** The fold planners on hand-built calls: where a budget fold cuts, and which finished segment a semantic fold takes. */

describe('planBudgetFold', () => {
  // 30 chat messages of ~58 tokens: over the 70% threshold of a 2,000-token budget
  const facts = callFacts(chat(30), { budget: 2_000 });
  const budgetFold = (force = false, point: CompressionPoint = pointAt(facts)) => {
    const projection = projectAt(facts, point);
    const tokensBefore = projection.layout.total(point.coveredCount, 0);
    return { projection, plan: planBudgetFold({ facts, point, projection, stateTokens: 0, force, tokensBefore }) };
  };

  it('folds whole turns down below the target in one break', () => {
    const { projection, plan } = budgetFold();
    const cut = plan?.cut ?? 0;
    expect(facts.messages[cut]?.role).toBe('user');
    expect(projection.layout.total(cut, 0)).toBeLessThanOrEqual(facts.limits.compressTo);
    expect(plan?.decision).toMatchObject({ trigger: 'budget', scope: { kind: 'messages', from: 0, to: cut } });
    expect(plan?.decision.details).toMatch(/passed the 70% threshold; folded \d+ messages into the session state/);
  });

  it('leaves room below the threshold for the next calls: deeper than just under the threshold', () => {
    const { projection, plan } = budgetFold();
    expect(projection.layout.total(plan?.cut ?? 0, 0)).toBeLessThan(
      facts.limits.compressAt - 3 * projection.layout.growthPerCall(),
    );
  });

  it('goes deeper by what the history adds before a fold summarized ahead is made', () => {
    const point = pointAt(facts);
    const projection = projectAt(facts, point);
    const tokensBefore = projection.layout.total(0, 0);
    const plan = (growthUntilMade: number) =>
      planBudgetFold({ facts, point, projection, stateTokens: 0, force: false, tokensBefore, growthUntilMade });
    const now = plan(0)?.cut ?? 0;
    const later = plan(2 * projection.layout.growthPerCall())?.cut ?? 0;
    expect(later).toBeGreaterThan(now);
    // what the fold leaves, with two more calls of the same growth, fits the target the fold made now aims for
    expect(projection.layout.total(later, 0)).toBeLessThanOrEqual(
      Math.min(facts.limits.compressTo, facts.limits.compressAt - ROOM_FOR_CALLS * projection.layout.growthPerCall()) -
        2 * projection.layout.growthPerCall(),
    );
  });

  it('folds up to the latest user message on request', () => {
    const { plan } = budgetFold(true);
    expect(plan?.cut).toBe(28);
    expect(plan?.decision).toMatchObject({ trigger: 'forced', details: 'folded 28 messages on request' });
  });

  it('plans nothing when no fold point is left beyond the current one', () => {
    expect(budgetFold(false, pointAt(facts, { coveredCount: 29 })).plan).toBeUndefined();
    expect(budgetFold(true, pointAt(facts, { coveredCount: 28 })).plan).toBeUndefined();
  });

  it('does not mutate its inputs', () => {
    const point = deepFreeze(pointAt(facts));
    expect(() => budgetFold(false, point)).not.toThrow();
  });
});

describe('foldStateCap', () => {
  const capOf = (facts: CallFacts) => foldStateCap(facts.limits, projectAt(facts, pointAt(facts)).layout, 0);

  it("keeps the state's full share in a chat: its turns are small against the budget", () => {
    const facts = callFacts(chat(30), { budget: 20_000 });
    expect(capOf(facts)).toBe(facts.limits.maxStateTokens);
  });

  it('gives the state less in a loop whose steps are large against the budget, so a fold buys several calls', () => {
    // steps of ~1,700 tokens against a 12,000-token budget
    const facts = callFacts(agentLoop(12, 6_000), { budget: 12_000 });
    const { layout } = projectAt(facts, pointAt(facts));
    const cap = capOf(facts);
    expect(cap).toBeLessThan(facts.limits.maxStateTokens);
    const kept = layout.total(layout.cuts.at(-1) ?? 0, 0) - layout.fixedTokens;
    // room for the calls, or the floor when even that leaves none
    const room =
      facts.limits.compressAt - layout.fixedTokens - kept - ROOM_FOR_CALLS * layout.growthPerCall(5, false, true);
    const floor = Math.floor((facts.limits.maxStateTokens * STATE_FLOOR_SHARE) / STATE_SHARE_OF_BUDGET);
    expect(cap).toBe(Math.max(floor, Math.floor(room)));
    expect(layout.growthPerCall()).toBeGreaterThan(facts.limits.budget / 10);
  });

  it('never goes below its floor share of the budget', () => {
    const facts = callFacts(agentLoop(6, 20_000), { budget: 12_000 });
    expect(capOf(facts)).toBe(Math.floor((facts.limits.maxStateTokens * STATE_FLOOR_SHARE) / STATE_SHARE_OF_BUDGET));
  });

  it('is the cap a budget fold fits its state to', () => {
    const facts = callFacts(agentLoop(12, 6_000), { budget: 12_000 });
    const point = pointAt(facts);
    const projection = projectAt(facts, point);
    const tokensBefore = projection.layout.total(0, 0);
    const plan = planBudgetFold({ facts, point, projection, stateTokens: 0, force: false, tokensBefore });
    expect(plan?.stateCap).toBe(capOf(facts));
  });
});

describe('planSemanticFold', () => {
  // steps of one assistant message (two calls) and one tool message: step i starts at message 1 + 2i
  const facts = callFacts(agentLoop(8, 600));
  const boundary = (messageIndex: number): Boundary => ({
    trigger: 'boundary:file',
    stepIndex: (messageIndex - 1) / 2,
    messageIndex,
    confidence: 0.9,
    details: `work on src/f${messageIndex}.ts finished`,
  });
  const semanticFold = ({
    pays = true,
    minTokens = 100,
    boundaries = [boundary(5), boundary(9)],
    inUse = [],
    onDeferred,
  }: {
    pays?: boolean;
    minTokens?: number;
    boundaries?: Boundary[];
    inUse?: ResultInUse[];
    onDeferred?: (decision: unknown) => void;
  } = {}) => {
    const point = pointAt(facts);
    return planSemanticFold({
      facts,
      point,
      projection: projectAt(facts, point),
      stateTokens: 0,
      options: { ...DEFAULT_SEMANTIC_TRIGGER_OPTIONS, minTokens },
      economics: economics(pays),
      boundaries: () => boundaries,
      inUse: () => inUse,
      ...(onDeferred ? { onDeferred } : {}),
    });
  };
  const quoted = (messageIndex: number, lastUse: number): ResultInUse => ({
    key: `key-${messageIndex}`,
    callId: `read-${(messageIndex - 2) / 2}`,
    messageIndex,
    term: 'x1',
    lastUse,
  });

  it('folds the deepest finished segment that frees enough and pays for its cache break', () => {
    const plan = semanticFold();
    expect(plan?.cut).toBe(9);
    expect(plan?.decision).toMatchObject({
      trigger: 'boundary:file',
      confidence: 0.9,
      scope: { kind: 'messages', from: 0, to: 9 },
    });
    expect(plan?.decision.details).toMatch(/^work on src\/f9\.ts finished; folded the finished segment \(9 messages\)/);
  });

  it('plans nothing when no fold pays or frees minTokens, and reads no boundary when none could', () => {
    expect(semanticFold({ pays: false })).toBeUndefined();
    const boundaries = vi.fn(() => [boundary(9)]);
    const point = pointAt(facts);
    const plan = planSemanticFold({
      facts,
      point,
      projection: projectAt(facts, point),
      stateTokens: 0,
      options: { ...DEFAULT_SEMANTIC_TRIGGER_OPTIONS, minTokens: 1_000_000 },
      economics: economics(true),
      boundaries,
    });
    expect(plan).toBeUndefined();
    expect(boundaries).not.toHaveBeenCalled();
  });

  it('skips boundaries that are not fold points or lie before the current point', () => {
    expect(semanticFold({ boundaries: [boundary(5), { ...boundary(9), messageIndex: 10 }] })?.cut).toBe(5);
  });

  it('puts off a fold whose results the work after it still quotes, and takes a shallower one', () => {
    const onDeferred = vi.fn();
    const plan = semanticFold({ inUse: [quoted(6, 12)], onDeferred });
    expect(plan?.cut).toBe(5);
    expect(plan?.decision.details).toMatch(
      /a fold to message 9 \(about \d+ tokens\) waits: the work after it still quotes 1 of its results \(read-2 \("x1"\)\)/,
    );
    expect(onDeferred).not.toHaveBeenCalled();
  });

  it('tells of the fold it put off when no other one is due', () => {
    const onDeferred = vi.fn();
    expect(semanticFold({ inUse: [quoted(2, 12)], onDeferred })).toBeUndefined();
    expect(onDeferred).toHaveBeenCalledOnce();
    expect(onDeferred.mock.calls[0]?.[0]).toMatchObject({
      trigger: 'boundary:file',
      scope: { kind: 'messages', from: 0, to: 9 },
    });
  });
});

describe('applyFold', () => {
  it('moves the fold point and sets the state on a new point', () => {
    const facts: CallFacts = callFacts(chat(4));
    const point = pointAt(facts);
    const state = { logos: ['a'], pathos: [], abstract: [], conversationSummary: 'b' };
    expect(applyFold(point, 2, state)).toMatchObject({ coveredCount: 2, state });
    expect(point.coveredCount).toBe(0);
  });
});
