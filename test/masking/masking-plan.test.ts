import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import { applyMasking, planMasking } from '../../src/masking/masking-plan.js';
import { DEFAULT_MASKING_OPTIONS, type MaskingOptions } from '../../src/masking/observation-masking.js';
import { DEFAULT_STALENESS_OPTIONS, type StalenessOptions } from '../../src/masking/staleness.js';
import { callFacts, economics, pointAt, projectAt } from '../helpers/call-facts.js';
import { agentLoop, deepFreeze, meter, text } from '../helpers/fixtures.js';
import { edit, note, read } from '../helpers/steps.js';

/** planMasking on hand-built calls: which results a batch masks, when it is due, and how it explains itself. */

const KEEP_RECENT = 2;

function plan(
  facts: CallFacts,
  {
    pressure = false,
    force = false,
    pays = true,
    masking = {},
    staleness,
    point = pointAt(facts),
  }: {
    pressure?: boolean;
    force?: boolean;
    pays?: boolean;
    masking?: MaskingOptions;
    staleness?: StalenessOptions;
    point?: CompressionPoint;
  } = {},
) {
  return planMasking({
    facts,
    point,
    projection: projectAt(facts, point, KEEP_RECENT),
    pressure,
    force,
    masking: { ...DEFAULT_MASKING_OPTIONS, keepRecent: KEEP_RECENT, clearAtLeast: 0, ...masking },
    staleness: staleness && { ...DEFAULT_STALENESS_OPTIONS, ...staleness },
    economics: economics(pays),
    meter,
    placeholderTokens: new LRUCache({ max: 100 }),
    descriptions: new WeakMap(),
    termMemo: new LRUCache({ max: 100 }),
  });
}

const callIds = (facts: CallFacts, keys: readonly string[]) => keys.map((key) => facts.siteByKey.get(key)?.callId);
const loop = () => callFacts(agentLoop(6, 900), { masking: { keepRecent: KEEP_RECENT } });

describe('planMasking', () => {
  it('under pressure masks every large result older than the newest ones, as a budget decision', () => {
    const facts = loop();
    const masking = plan(facts, { pressure: true, pays: false });
    // the tiny grep results are not worth a placeholder; the two newest results (the last step's) stay
    expect(callIds(facts, masking?.keys ?? [])).toEqual(['read-0', 'read-1', 'read-2', 'read-3', 'read-4']);
    expect(masking?.freed).toBeGreaterThan(0);
    expect(masking?.decisions.map((decision) => decision.trigger)).toEqual(['budget']);
    expect(masking?.decisions[0]?.scope).toEqual({
      kind: 'observations',
      toolCallIds: ['read-0', 'read-1', 'read-2', 'read-3', 'read-4'],
    });
    expect(masking?.staleReasons.size).toBe(0);
  });

  it('names a forced call forced', () => {
    expect(plan(loop(), { pressure: true, force: true })?.decisions[0]?.trigger).toBe('forced');
  });

  it('below the threshold masks only a batch that pays for its cache break and frees clearAtLeast', () => {
    const facts = loop();
    expect(plan(facts, { pays: false })).toBeUndefined();
    expect(plan(facts, { masking: { clearAtLeast: 1_000_000 } })).toBeUndefined();
    const batch = plan(facts);
    expect(batch?.decisions[0]?.trigger).toBe('turns');
    expect(batch?.decisions[0]?.details).toMatch(
      /^masked 5 tool results older than the 2 most recent: frees \d+ tokens/,
    );
  });

  it('plans nothing when every candidate is masked already or folded away', () => {
    const facts = loop();
    const masked = plan(facts, { pressure: true });
    expect(plan(facts, { pressure: true, point: pointAt(facts, { masked: new Set(masked?.keys) }) })).toBeUndefined();
    expect(plan(facts, { pressure: true, point: pointAt(facts, { coveredCount: 11 }) })).toBeUndefined();
    expect(plan(callFacts([text('user', 'Hello there.')]), { pressure: true })).toBeUndefined();
  });

  it('masks a read that a later edit superseded, even among the newest, with its reason', () => {
    const big = `export const a = 1;\n${'// filler line of the file\n'.repeat(120)}`;
    const facts = callFacts([
      text('user', 'Change a in src/a.ts.'),
      ...read('r1', 'src/a.ts', big),
      ...edit('e1', 'src/a.ts'),
      ...note('n1'),
    ]);
    expect(plan(facts, { pressure: true })).toBeUndefined(); // without staleness: too recent to mask
    const stale = plan(facts, { pressure: true, staleness: {} });
    expect(callIds(facts, stale?.keys ?? [])).toEqual(['r1']);
    expect(stale?.decisions.map((decision) => decision.trigger)).toEqual(['staleness']);
    expect([...(stale?.staleReasons.values() ?? [])][0]).toMatch(/src\/a\.ts/);
  });

  it('does not mutate its inputs', () => {
    const facts = loop();
    const point = deepFreeze(pointAt(facts));
    const masked = point.masked.size;
    expect(() => plan(facts, { pressure: true, point })).not.toThrow();
    expect(point.masked.size).toBe(masked);
  });
});

describe('applyMasking', () => {
  it('adds the plan keys and stale reasons to a new point, and records the history length a staleness saw', () => {
    const facts = loop();
    const point = pointAt(facts, { masked: new Set(['earlier']) });
    const next = applyMasking(
      point,
      { keys: ['a', 'b'], staleReasons: new Map([['b', 'superseded']]), freed: 10, decisions: [] },
      12,
    );
    expect([...next.masked]).toEqual(['earlier', 'a', 'b']);
    expect(next.maskReasons.get('b')).toBe('superseded');
    expect(next.staleThrough).toBe(12);
    expect(point.masked.size).toBe(1);
  });
});
