import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import {
  DEFAULT_MAX_SESSION_STATE_ENTRIES,
  DEFAULT_MERGE_SIMILARITY,
  mergeSessionStates,
  sessionStateSize,
} from '../../src/session-state/merge-session-state.js';
import { type SessionState, SessionStateSchema } from '../../src/session-state/session-state.js';

function state(partial: Partial<SessionState> = {}): SessionState {
  return { logos: [], pathos: [], abstract: [], conversationSummary: '', ...partial };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const longFact =
  'user: the billing service reads invoices from s3://acme-billing/invoices and writes totals to postgres table invoice_totals nightly';

describe('mergeSessionStates', () => {
  it('keeps previous entries first, then new ones', () => {
    const merged = mergeSessionStates(state({ logos: ['a is 1', 'b is 2'] }), state({ logos: ['c is 3'] }));
    expect(merged.logos).toEqual(['a is 1', 'b is 2', 'c is 3']);
  });

  it('works without a previous state', () => {
    const next = state({ logos: ['x is 1'], pathos: ['calm'], abstract: ['REST'], conversationSummary: 'Did x.' });
    expect(mergeSessionStates(undefined, next)).toEqual(next);
  });

  it.each([
    ['case', 'Uses Postgres 15', 'uses postgres 15'],
    ['whitespace', 'Uses  Postgres\t15', 'Uses Postgres 15'],
    ['punctuation around words', '"Uses Postgres 15."', 'Uses Postgres 15'],
  ])('merges entries that differ only in %s, keeping the newer text in the earlier place', (_name, older, newer) => {
    const merged = mergeSessionStates(state({ logos: [older, 'other fact 2'] }), state({ logos: [newer] }));
    expect(merged.logos).toEqual([newer, 'other fact 2']);
  });

  it.each([
    ['a different number', 'port is 8080', 'port is 8081', 2],
    ['a different path', 'config lives in src/config.ts', 'config lives in src/settings.ts', 2],
    ['a different sign', 'balance is -5', 'balance is 5', 2],
  ])('keeps short entries with %s apart', (_name, older, newer, count) => {
    expect(mergeSessionStates(state({ logos: [older] }), state({ logos: [newer] })).logos).toHaveLength(count);
  });

  it('replaces a near-duplicate with the newer, more complete entry in the earlier place', () => {
    const newer = `${longFact} at 02:00`;
    const merged = mergeSessionStates(state({ logos: ['first', longFact, 'last'] }), state({ logos: [newer] }));
    expect(merged.logos).toEqual(['first', newer, 'last']);
  });

  it('keeps the older entry when the newer near-duplicate says less', () => {
    const older = `${longFact} at 02:00`;
    const merged = mergeSessionStates(state({ logos: [older] }), state({ logos: [longFact] }));
    expect(merged.logos).toEqual([older]);
  });

  it('dedups inside the new state too', () => {
    const merged = mergeSessionStates(
      undefined,
      state({ pathos: ['Prefers brevity.', 'prefers brevity', 'Curious.'] }),
    );
    expect(merged.pathos).toEqual(['prefers brevity', 'Curious.']);
  });

  it('merges near-duplicates only at or above the configured similarity', () => {
    const newer = `${longFact} at 02:00`;
    const strict = mergeSessionStates(state({ logos: [longFact] }), state({ logos: [newer] }), { similarity: 1 });
    expect(strict.logos).toEqual([longFact, newer]);
    const loose = mergeSessionStates(state({ logos: ['deploy on friday'] }), state({ logos: ['deploy on monday'] }), {
      similarity: 0.5,
    });
    expect(loose.logos).toEqual(['deploy on monday']);
    expect(DEFAULT_MERGE_SIMILARITY).toBe(0.85);
  });

  it('drops empty entries', () => {
    expect(mergeSessionStates(state({ logos: ['  ', 'kept 1'] }), state({ logos: [''] })).logos).toEqual(['kept 1']);
  });

  it('caps each list by dropping its oldest entries', () => {
    const previous = state({ logos: ['fact 1', 'fact 2', 'fact 3'], pathos: ['p1', 'p2'], abstract: ['a1'] });
    const next = state({ logos: ['fact 4'], pathos: ['p3'], abstract: ['a2'] });
    const merged = mergeSessionStates(previous, next, { maxEntries: { logos: 2, pathos: 0 } });
    expect(merged.logos).toEqual(['fact 3', 'fact 4']);
    expect(merged.pathos).toEqual([]);
    expect(merged.abstract).toEqual(['a1', 'a2']);
  });

  it('applies the default caps', () => {
    const many = Array.from({ length: 250 }, (_, index) => `fact number ${index}`);
    const merged = mergeSessionStates(state({ logos: many }), state({ logos: ['newest fact'] }));
    expect(merged.logos).toHaveLength(DEFAULT_MAX_SESSION_STATE_ENTRIES.logos);
    expect(merged.logos.at(-1)).toBe('newest fact');
    expect(merged.logos[0]).toBe('fact number 51');
  });

  it.each([
    ['a new summary wins', 'Old.', 'New.', 'New.'],
    ['an empty new summary keeps the old one', 'Old.', '', 'Old.'],
    ['a blank new summary keeps the old one', 'Old.', '  \n', 'Old.'],
  ])('summary: %s', (_name, older, newer, expected) => {
    const merged = mergeSessionStates(state({ conversationSummary: older }), state({ conversationSummary: newer }));
    expect(merged.conversationSummary).toBe(expected);
  });

  it('fits maxChars by dropping the oldest logos first', () => {
    const previous = state({ logos: ['aaaa 1', 'bbbb 2'], pathos: ['calm'], conversationSummary: 'Sum.' });
    const merged = mergeSessionStates(previous, state({ logos: ['cccc 3'] }), { maxChars: 18 });
    expect(merged.logos).toEqual(['cccc 3']);
    expect(merged.pathos).toEqual(['calm']);
    expect(sessionStateSize(merged)).toBeLessThanOrEqual(18);
  });

  it('cuts the summary when nothing else is left to drop', () => {
    const merged = mergeSessionStates(undefined, state({ logos: ['x 1'], conversationSummary: 'A long summary.' }), {
      maxChars: 6,
    });
    expect(merged).toEqual(state({ conversationSummary: 'A long' }));
  });

  it('does not mutate its input', () => {
    const previous = deepFreeze(
      state({ logos: ['Uses Postgres 15', 'b 2'], pathos: ['calm'], conversationSummary: 'A.' }),
    );
    const next = deepFreeze(
      state({ logos: ['uses postgres 15', 'c 3'], abstract: ['REST'], conversationSummary: 'B.' }),
    );
    const snapshot = structuredClone([previous, next]);
    const merged = mergeSessionStates(previous, next, { maxEntries: { logos: 2 }, maxChars: 100 });
    expect([previous, next]).toEqual(snapshot);
    expect(merged.logos).not.toBe(previous.logos);
  });

  it('returns the expected valid SessionState whatever the key order of its inputs', () => {
    const previous = state({ logos: ['a 1', longFact], pathos: ['calm'], conversationSummary: 'A.' });
    const next = state({ logos: [`${longFact} at 02:00`, 'd 4'], abstract: ['REST'], conversationSummary: 'B.' });
    const reordered = (value: SessionState) =>
      Object.fromEntries(Object.entries(value).reverse()) as unknown as SessionState;
    const expected: SessionState = {
      logos: ['a 1', `${longFact} at 02:00`, 'd 4'],
      pathos: ['calm'],
      abstract: ['REST'],
      conversationSummary: 'B.',
    };
    expect(mergeSessionStates(previous, next)).toEqual(expected);
    expect(mergeSessionStates(reordered(previous), reordered(next))).toEqual(expected);
    expect(SessionStateSchema.parse(expected)).toEqual(expected);
  });

  it.each([
    ['similarity 0', { similarity: 0 }],
    ['similarity above 1', { similarity: 1.5 }],
    ['a negative cap', { maxEntries: { logos: -1 } }],
    ['a fractional cap', { maxEntries: { pathos: 2.5 } }],
    ['negative maxChars', { maxChars: -1 }],
  ])('rejects %s', (_name, options) => {
    expect(() => mergeSessionStates(undefined, state(), options)).toThrow(InvalidOptionError);
  });
});

describe('sessionStateSize', () => {
  it('counts the characters of every entry and the summary', () => {
    expect(
      sessionStateSize(state({ logos: ['abc', 'de'], pathos: ['f'], abstract: ['gh'], conversationSummary: 'ij' })),
    ).toBe(10);
  });
});
