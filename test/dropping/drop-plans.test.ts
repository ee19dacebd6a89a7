import { describe, expect, it } from 'vitest';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import { applyDrop, planDrop } from '../../src/dropping/drop-plans.js';
import { callFacts, pointAt, projectAt } from '../helpers/call-facts.js';
import { chat, deepFreeze, meter, text } from '../helpers/fixtures.js';

/** planDrop on hand-built calls: the last resort over the hard limit, without a summary. */

// 40 chat messages of ~58 tokens: over the 85% hard limit of a 2,000-token budget
const facts = callFacts(
  [text('user', 'You must never deploy on Fridays.'), text('assistant', 'Understood.'), ...chat(40)],
  { budget: 2_000 },
);
const drop = (point: CompressionPoint = pointAt(facts)) => {
  const projection = projectAt(facts, point);
  return {
    projection,
    plan: planDrop({ facts, point, projection, stateTokens: () => 80, meter }),
  };
};

describe('planDrop', () => {
  it('drops the oldest whole turns down to the target, with a hard-limit decision', () => {
    const { projection, plan } = drop();
    const cut = plan?.cut ?? 0;
    expect(cut).toBeGreaterThan(0);
    expect(facts.messages[cut]?.role).toBe('user');
    expect(projection.layout.total(cut, 0)).toBeLessThanOrEqual(facts.limits.compressTo);
    expect(plan?.decision).toMatchObject({ trigger: 'hard-limit', scope: { kind: 'messages', from: 0, to: cut } });
    expect(plan?.decision.details).toBe(
      `prompt over the hard limit of 85% of the budget; dropped the oldest ${cut} messages without a summary`,
    );
  });

  it('notes what was left out in the state, keeps constraints as quotes and names the span in the timeline', () => {
    const state = drop().plan?.state;
    const cut = drop().plan?.cut;
    expect(state?.conversationSummary).toBe(`(${cut} earlier messages could not be summarized and were left out.)`);
    expect(state?.salience).toContain('You must never deploy on Fridays.');
    expect(state?.timeline).toHaveLength(1);
  });

  it('extends the state of an earlier fold rather than replacing it', () => {
    const earlier = { logos: ['port is 8080'], pathos: [], abstract: [], conversationSummary: 'Set up the server.' };
    const { plan } = drop(pointAt(facts, { coveredCount: 2, state: earlier }));
    expect(plan?.state.logos).toContain('port is 8080');
    expect(plan?.state.conversationSummary).toMatch(/^Set up the server\. \(\d+ earlier messages could not be/);
    expect(plan?.decision.scope).toMatchObject({ from: 2 });
  });

  it('plans nothing when no fold point is left', () => {
    expect(drop(pointAt(facts, { coveredCount: facts.messages.length - 1 })).plan).toBeUndefined();
  });

  it('does not mutate its inputs', () => {
    expect(() => drop(deepFreeze(pointAt(facts)))).not.toThrow();
  });
});

describe('applyDrop', () => {
  it('moves the fold point, sets the noted state and counts the dropped messages', () => {
    const point = pointAt(facts, { coveredCount: 2, droppedCount: 3 });
    const { plan } = drop(point);
    if (!plan) throw new Error('expected a drop');
    const dropped = applyDrop(point, plan);
    expect(dropped).toMatchObject({ coveredCount: plan.cut, state: plan.state, droppedCount: 3 + plan.cut - 2 });
    expect(point.coveredCount).toBe(2);
  });
});
