import { describe, expect, it } from 'vitest';
import { faults, runFault } from '../../bench/faults/scenarios.js';

/** What `onError` must hear for each fault (a pattern), besides the call being answered with a clean prompt. */
const EXPECTED_ERRORS: Record<string, RegExp> = {
  'none (baseline)': /^-$/,
  'summarizer throws': /SummarizerError \(threw\)/,
  'summarizer never settles': /SummarizerError \(timeout\)/,
  'summarizer returns garbage': /SummarizerError \(invalid-output\)/,
  'summarizer returns 1 MB': /^-$/,
  'summarizer returns the closing tag': /^-$/,
  'store get throws': /StoreError \(threw\) -> without-store/,
  'store set throws': /StoreError \(threw\) -> without-store/,
  'store never settles': /StoreError \(timeout\) -> without-store/,
  'store returns a corrupted record': /StoreError \(invalid-record\)/,
  'store returns strings': /StoreError \(invalid-record\)/,
  'stored fold point splits a pair': /StoreError \(invalid-record\)/,
  'onCompress throws': /ListenerError -> continued/,
  'onError throws': /SummarizerError/,
  'token counter throws': /TokenCounterError \(threw\) -> approximate-count/,
  'token counter returns NaN': /TokenCounterError \(invalid-count\) -> approximate-count/,
  'embedder throws': /EmbedderError \(threw\) -> lexical/,
  'embedder never settles': /EmbedderError \(timeout\) -> lexical/,
};

describe('the fault table: no fault of a dependency fails or pollutes the user call', () => {
  it.each(faults().map((fault) => [fault.name, fault] as const))('%s', async (name, fault) => {
    const row = await runFault(fault);
    expect(row.outcome).toBe('answered');
    expect(row.onError).toMatch(EXPECTED_ERRORS[name] ?? /^never$/);
    expect(row.faultTextInPrompt).toBe(false);
    expect(row.paired).toBe(true);
    expect(row.underHardLimit).toBe(true);
  });
});
