/** fast-check generators of the library's options and of a custom summarizer's outputs, for the fuzz cases. */
import fc from 'fast-check';
import type { SessionState } from '../../src/index.js';
import { fragment } from './fragments.js';

/** Which summarizer a case uses; `custom` returns `summaries` in turn, `failing` throws. */
export type SummarizerChoice = 'default' | 'custom' | 'failing';

const stateEntry = fc.oneof(
  { weight: 5, arbitrary: fragment },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
  { weight: 1, arbitrary: fragment.map((piece) => piece.repeat(200)) },
);

/** A random output of a custom summarizer, valid against SummarizerOutputSchema. */
export const summary: fc.Arbitrary<SessionState> = fc.record({
  logos: fc.array(stateEntry, { maxLength: 12 }),
  pathos: fc.array(stateEntry, { maxLength: 4 }),
  abstract: fc.array(stateEntry, { maxLength: 4 }),
  salience: fc.array(stateEntry, { maxLength: 4 }),
  conversationSummary: fc.oneof(
    fragment,
    stateEntry,
    fragment.map((piece) => piece.repeat(2_000)),
  ),
});

/** Options of one case, in a form both adapters take (summarizer and counter are built by the harness). */
export interface FuzzOptions {
  readonly contextWindow: number;
  readonly reserveOutputTokens: number | undefined;
  readonly shares: { compressAt: number; compressTo: number; hardLimit: number } | undefined;
  readonly masking: false | { keepRecent?: number; clearAtLeast?: number; excludeTools?: string[] } | undefined;
  readonly folding: boolean | undefined;
  readonly recall: false | { budgetShare: number } | undefined;
  readonly triggers: { semantic?: false; staleness?: false } | undefined;
  readonly maxToolResultTokens: number | undefined;
  readonly awarenessBlock: string | undefined;
  readonly summarizer: SummarizerChoice;
  readonly summaries: readonly SessionState[];
  readonly counter: 'gpt-tokenizer' | 'approximate';
  /**
   * Provider tokens per token of ours, reported as usage by the mock models of multi-call cases (a tokenizer other
   * than o200k, as Claude's or Gemini's). Undefined: no usage is reported.
   */
  readonly usageRatio: number | undefined;
  /** The default memory store, or a store that keeps values as JSON text, as Redis or a database would. */
  readonly store: 'memory' | 'json';
}

const contextWindow = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 2_000, max: 8_000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 8_000, max: 32_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 32_000, max: 128_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(128_000, 200_000) },
);

const shares = fc
  .tuple(
    fc.double({ min: 0.2, max: 0.95, noNaN: true }),
    fc.double({ min: 0.2, max: 0.95, noNaN: true }),
    fc.double({ min: 0.2, max: 1, noNaN: true }),
  )
  .map((values) => [...values].sort((a, b) => a - b))
  .filter(([low = 0, middle = 0, high = 0]) => middle - low > 0.02 && high - middle > 0.02)
  .map(([compressTo = 0, compressAt = 0, hardLimit = 0]) => ({ compressTo, compressAt, hardLimit }));

/** Options across their valid ranges: windows of 2k to 200k tokens, every stage on or off, three summarizers. */
export const options: fc.Arbitrary<FuzzOptions> = contextWindow.chain((window) =>
  fc.record({
    contextWindow: fc.constant(window),
    reserveOutputTokens: fc.option(fc.integer({ min: 0, max: Math.ceil(window / 2) - 1 }), { nil: undefined }),
    shares: fc.option(shares, { nil: undefined, freq: 4 }),
    masking: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(false as const) },
      {
        weight: 2,
        arbitrary: fc.record(
          {
            keepRecent: fc.nat(12),
            clearAtLeast: fc.nat(3_000),
            excludeTools: fc.subarray(['bash', 'read_file', 'search']),
          },
          { requiredKeys: [] },
        ),
      },
    ),
    folding: fc.option(fc.boolean(), { nil: undefined }),
    recall: fc.oneof(
      fc.constant(undefined),
      fc.constant(false as const),
      fc.record({ budgetShare: fc.double({ min: 0.01, max: 0.3, noNaN: true }) }),
    ),
    triggers: fc.option(fc.record({ semantic: fc.constant(false as const), staleness: fc.constant(false as const) }), {
      nil: undefined,
    }),
    maxToolResultTokens: fc.option(fc.integer({ min: 50, max: window }), { nil: undefined, freq: 5 }),
    awarenessBlock: fc.option(
      fc.oneof(fc.constant(''), fc.constant('Earlier turns may be summarized in <session_state>.'), fragment),
      { nil: undefined, freq: 4 },
    ),
    summarizer: fc.constantFrom<SummarizerChoice>('default', 'default', 'custom', 'custom', 'failing'),
    summaries: fc.array(summary, { minLength: 1, maxLength: 3 }),
    counter: fc.constantFrom<FuzzOptions['counter']>('gpt-tokenizer', 'gpt-tokenizer', 'approximate'),
    store: fc.constantFrom<FuzzOptions['store']>('memory', 'json'),
    usageRatio: fc.option(fc.double({ min: 0.5, max: 2, noNaN: true }), { nil: undefined, freq: 2 }),
  }),
);

/** A state far over any cap: a summarizer that writes long states (the engine fits it, or discards the fold). */
const largeSummary: fc.Arbitrary<SessionState> = fc.record({
  logos: fc.array(
    fragment.map((piece) => piece.repeat(40)),
    { minLength: 4, maxLength: 40 },
  ),
  pathos: fc.array(fragment, { maxLength: 4 }),
  abstract: fc.array(fragment, { maxLength: 4 }),
  salience: fc.array(fragment, { maxLength: 4 }),
  conversationSummary: fragment.map((piece) => piece.repeat(500)),
});

/**
 * Options that put recall under pressure: small windows (2.5k, 2.7k) and mid ones (45k), the approximate counter, a
 * summarizer whose states are very large (or any summarizer), a store of JSON text, semantic triggers off or on,
 * masking and staleness on, a recall budget of every size. Folds, masks and recall blocks then meet in tool loops.
 */
export const pressureOptions: fc.Arbitrary<FuzzOptions> = fc
  .oneof(
    fc.constantFrom(2_500, 2_700, 45_000),
    fc.integer({ min: 2_000, max: 6_000 }),
    fc.integer({ min: 30_000, max: 60_000 }),
  )
  .chain((window) =>
    fc.record({
      contextWindow: fc.constant(window),
      reserveOutputTokens: fc.option(fc.integer({ min: 0, max: Math.ceil(window / 4) }), { nil: undefined }),
      shares: fc.option(shares, { nil: undefined, freq: 4 }),
      masking: fc.oneof(
        fc.constant(undefined),
        fc.record({ keepRecent: fc.nat(4), clearAtLeast: fc.nat(600) }, { requiredKeys: [] }),
      ),
      folding: fc.constant(undefined),
      recall: fc.oneof(
        fc.constant(undefined),
        fc.record({ budgetShare: fc.double({ min: 0.05, max: 0.3, noNaN: true }) }),
      ),
      triggers: fc.option(fc.constant({ semantic: false as const }), { nil: undefined }),
      maxToolResultTokens: fc.option(fc.integer({ min: 50, max: window }), { nil: undefined, freq: 5 }),
      awarenessBlock: fc.constant(undefined),
      summarizer: fc.constantFrom<SummarizerChoice>('custom', 'custom', 'custom', 'default', 'failing'),
      summaries: fc.oneof(
        fc.array(largeSummary, { minLength: 1, maxLength: 3 }),
        fc.array(summary, { minLength: 1, maxLength: 3 }),
      ),
      counter: fc.constantFrom<FuzzOptions['counter']>('approximate', 'approximate', 'gpt-tokenizer'),
      store: fc.constantFrom<FuzzOptions['store']>('json', 'json', 'memory'),
      usageRatio: fc.constant(undefined),
    }),
  );
