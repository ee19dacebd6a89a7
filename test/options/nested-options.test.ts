import { describe, expect, it } from 'vitest';
import * as aiSdk from '../../adapters/ai-sdk/index.js';
import { readCallOptions } from '../../adapters/langchain/call-options.js';
import * as langchain from '../../adapters/langchain/index.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError } from '../../src/errors.js';
import { findBoundaries } from '../../src/folding/semantic-triggers.js';
import { findStaleObservations } from '../../src/masking/staleness.js';
import { parseCallOptions } from '../../src/options/call-options.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { extractiveSummarizer } from '../../src/summarizers/extractive-summarizer.js';
import { echoModel } from '../helpers/mock-model.js';

/** The error a factory throws for options a JavaScript caller might pass, bypassing the type checker. */
function errorOf(build: () => unknown): InvalidOptionError {
  try {
    build();
  } catch (error) {
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    return error as InvalidOptionError;
  }
  throw new Error('expected the options to be rejected');
}

const engineError = (options: unknown) => errorOf(() => new CompressionEngine(options as CompressionOptions));
const INTENTS = 'IMPLEMENT, VERIFY, DEBUG, REFACTOR, DOCUMENT, EXPLORE';

/** [options, the option's path, what the message says after "must be" or "unknown option;", the value shown]. */
type Case = [Record<string, unknown>, string, string, string];

describe('every nested option is checked, naming its path, the value and what is allowed', () => {
  it.each<Case>([
    [
      { triggers: { semantic: { minTokens: 'x' } } },
      'triggers.semantic.minTokens',
      'a whole number of tokens of at least 0',
      '"x"',
    ],
    [
      { triggers: { semantic: { minTokens: -1 } } },
      'triggers.semantic.minTokens',
      'a whole number of tokens of at least 0',
      '-1',
    ],
    [{ triggers: { semantic: { subtask: 'yes' } } }, 'triggers.semantic.subtask', 'true or false', '"yes"'],
    [{ triggers: { semantic: { intent: 1 } } }, 'triggers.semantic.intent', 'true or false', '1'],
    [{ triggers: { semantic: { file: null } } }, 'triggers.semantic.file', 'true or false', 'null'],
    [{ triggers: { semantic: { module: 'no' } } }, 'triggers.semantic.module', 'true or false', '"no"'],
    [{ triggers: { semantic: { test: 0 } } }, 'triggers.semantic.test', 'true or false', '0'],
    [{ triggers: { semantic: { api: 'on' } } }, 'triggers.semantic.api', 'true or false', '"on"'],
    [
      { triggers: { semantic: { deferWhileQuoted: 'x' } } },
      'triggers.semantic.deferWhileQuoted',
      'true or false',
      '"x"',
    ],
    [
      { triggers: { semantic: { transitions: 'EXPLORE->IMPLEMENT' } } },
      'triggers.semantic.transitions',
      `an array of [from, to] pairs of intents (${INTENTS})`,
      '"EXPLORE->IMPLEMENT"',
    ],
    [
      { triggers: { semantic: { transitions: [['EXPLORE', 'CODING']] } } },
      'triggers.semantic.transitions[0][1]',
      `an intent: ${INTENTS}`,
      '"CODING"',
    ],
    [
      { triggers: { semantic: true } },
      'triggers.semantic',
      'false or an object { subtask?, intent?, file?, module?, test?, api?, transitions?, minTokens?, deferWhileQuoted? }',
      'true',
    ],
    [
      { triggers: { staleness: { threshold: Number.NaN } } },
      'triggers.staleness.threshold',
      'a number of at least 0',
      'NaN',
    ],
    [
      { triggers: { staleness: { threshold: -0.5 } } },
      'triggers.staleness.threshold',
      'a number of at least 0',
      '-0.5',
    ],
    [
      { triggers: { staleness: { maxAge: 0 } } },
      'triggers.staleness.maxAge',
      'a whole number of steps of at least 1',
      '0',
    ],
    [
      { triggers: { staleness: { maxReferences: 1.5 } } },
      'triggers.staleness.maxReferences',
      'a whole number of at least 1',
      '1.5',
    ],
    [
      { triggers: { staleness: { window: '5' } } },
      'triggers.staleness.window',
      'a whole number of steps of at least 1',
      '"5"',
    ],
    [
      { triggers: { staleness: { weights: { age: -1, references: 0.4, relevance: 0.3 } } } },
      'triggers.staleness.weights.age',
      'a number of at least 0',
      '-1',
    ],
    [
      { triggers: { staleness: { weights: { age: 0.3, references: 0.4 } } } },
      'triggers.staleness.weights.relevance',
      'a number of at least 0',
      'undefined',
    ],
    [{ triggers: { staleness: { relevance: 0.5 } } }, 'triggers.staleness.relevance', 'a function', '0.5'],
    [{ triggers: false }, 'triggers', 'an object { semantic?, staleness? }', 'false'],
    [{ masking: { clearAtLeast: 1.5 } }, 'masking.clearAtLeast', 'a whole number of tokens of at least 0', '1.5'],
    [{ masking: { keepRecent: 'all' } }, 'masking.keepRecent', 'a whole number of at least 0', '"all"'],
    [{ masking: { excludeTools: 'read' } }, 'masking.excludeTools', 'an array of tool names', '"read"'],
    [{ masking: { excludeTools: ['read', 3] } }, 'masking.excludeTools[1]', 'a tool name', '3'],
    [{ recall: { budgetShare: 1 } }, 'recall.budgetShare', 'a number greater than 0 and less than 1', '1'],
    [{ recall: { budgetShare: '10%' } }, 'recall.budgetShare', 'a number greater than 0 and less than 1', '"10%"'],
    [{ recall: true }, 'recall', 'false or an object { budgetShare? }', 'true'],
    [{ cachePricing: { read: -0.1 } }, 'cachePricing.read', 'a number of at least 0', '-0.1'],
    [{ cachePricing: { write: 0 } }, 'cachePricing.write', 'a number greater than 0', '0'],
    [{ cachePricing: false }, 'cachePricing', 'an object { read?, write?, output? }', 'false'],
    [{ foldLease: { waitMs: -1 } }, 'foldLease.waitMs', 'a whole number of milliseconds from 0 to 2147483647', '-1'],
    [
      { foldLease: { waitMs: 2 ** 31 } },
      'foldLease.waitMs',
      'a whole number of milliseconds from 0 to 2147483647',
      '2147483648',
    ],
    [{ foldLease: true }, 'foldLease', 'false or an object { waitMs? }', 'true'],
    [{ redaction: { toolName: '' } }, 'redaction.toolName', 'a non-empty string', '""'],
    [{ redaction: { excludeTools: [1] } }, 'redaction.excludeTools[0]', 'a tool name', '1'],
    [{ redaction: 'off' }, 'redaction', 'false or an object { toolName?, excludeTools? }', '"off"'],
  ])('%j', (options, path, allowed, got) => {
    const error = engineError(options);
    expect(error.option).toBe(path);
    expect(error.message).toBe(`Invalid option \`${path}\`: must be ${allowed} (got ${got})`);
  });
});

describe('unknown nested keys name the closest option', () => {
  it.each<[Record<string, unknown>, string, string, string]>([
    [
      { triggers: { semantic: { minTokns: 5 } } },
      'triggers.semantic.minTokns',
      'did you mean `triggers.semantic.minTokens`?',
      '5',
    ],
    [
      { triggers: { staleness: { treshold: 0.5 } } },
      'triggers.staleness.treshold',
      'did you mean `triggers.staleness.threshold`?',
      '0.5',
    ],
    [{ triggers: { stalenes: false } }, 'triggers.stalenes', 'did you mean `triggers.staleness`?', 'false'],
    [{ recall: { budgetshare: 0.2 } }, 'recall.budgetshare', 'did you mean `recall.budgetShare`?', '0.2'],
    [{ cachePricing: { reads: 0.1 } }, 'cachePricing.reads', 'did you mean `cachePricing.read`?', '0.1'],
    [{ redaction: { toolname: 'x' } }, 'redaction.toolname', 'did you mean `redaction.toolName`?', '"x"'],
    [{ foldLease: { timeout: 100 } }, 'foldLease.timeout', 'the options are waitMs', '100'],
  ])('%j', (options, path, hint, got) => {
    const error = engineError(options);
    expect(error.option).toBe(path);
    expect(error.message).toBe(`Invalid option \`${path}\`: unknown option; ${hint} (got ${got})`);
  });
});

describe('nested options fail when a model is wrapped or a middleware made', () => {
  it.each<[string, () => unknown]>([
    ['AI SDK withContextCompression', () => aiSdk.withContextCompression(echoModel(), BAD)],
    ['AI SDK contextCompression', () => aiSdk.contextCompression(BAD)],
    ['LangChain compressMessages', () => langchain.compressMessages(BAD)],
    ['LangChain contextCompressionMiddleware', () => langchain.contextCompressionMiddleware(BAD)],
  ])('%s', (_name, build) => {
    expect(errorOf(build).option).toBe('triggers.semantic.minTokens');
  });
});
const BAD = { contextWindow: 8_000, triggers: { semantic: { minTokens: 'x' } } } as never;

describe('detectors called on their own check their options alike', () => {
  it('findBoundaries and findStaleObservations', () => {
    expect(errorOf(() => findBoundaries([], [], { minTokens: -5 })).message).toBe(
      'Invalid option `minTokens`: must be a whole number of tokens of at least 0 (got -5)',
    );
    expect(
      errorOf(() => findStaleObservations({ messages: [], steps: [], sites: [], from: 0, options: { window: 0 } }))
        .message,
    ).toBe('Invalid option `window`: must be a whole number of steps of at least 1 (got 0)');
  });
});

describe('extractiveSummarizer options', () => {
  it.each<[Record<string, unknown>, string, string]>([
    [{ maxLogos: -1 }, 'maxLogos', 'must be a whole number of at least 0 (got -1)'],
    [{ maxSentenceChars: 1 }, 'maxSentenceChars', 'must be a whole number of characters of at least 2 (got 1)'],
    [{ maxChars: Number.NaN }, 'maxChars', 'must be a whole number of characters of at least 0 (got NaN)'],
    [{ merge: { similarity: 2 } }, 'merge.similarity', 'must be a number greater than 0 and at most 1 (got 2)'],
    [
      { merge: { maxEntries: { logos: 2.5 } } },
      'merge.maxEntries.logos',
      'must be a whole number of at least 0 (got 2.5)',
    ],
    [{ merge: { maxChars: 10 } }, 'merge.maxChars', 'unknown option; the options are similarity, maxEntries (got 10)'],
  ])('%j', (options, path, message) => {
    const error = errorOf(() => extractiveSummarizer(options));
    expect(error.option).toBe(path);
    expect(error.message).toBe(`Invalid option \`${path}\`: ${message}`);
  });
});

describe('per-call options', () => {
  const where = "providerOptions['context-compression']";
  it.each<[unknown, string, string]>([
    [{ force: 'yes' }, `${where}.force`, 'must be true or false (got "yes")'],
    [{ disable: 1 }, `${where}.disable`, 'must be true or false (got 1)'],
    [{ namespace: 5 }, `${where}.namespace`, 'must be a string (got 5)'],
    [{ namspace: 'a' }, `${where}.namspace`, `unknown option; did you mean \`${where}.namespace\`? (got "a")`],
    ['x', where, 'must be an object { namespace?, disable?, force? } (got "x")'],
    [null, where, 'must be an object { namespace?, disable?, force? } (got null)'],
  ])('%j', (raw, path, message) => {
    const error = errorOf(() => parseCallOptions(raw, where));
    expect(error.option).toBe(path);
    expect(error.message).toBe(`Invalid option \`${path}\`: ${message}`);
  });

  it('are resolved with their defaults, in both adapters', () => {
    const defaults = { namespace: '', disable: false, force: false };
    expect(parseCallOptions(undefined, where)).toEqual(defaults);
    expect(readCallOptions({})).toEqual(defaults);
    expect(readCallOptions({ configurable: { 'context-compression': { force: true } } })).toEqual({
      ...defaults,
      force: true,
    });
  });
});
