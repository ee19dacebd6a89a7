import { describe, expect, it } from 'vitest';
import {
  ContextCompressionError,
  HardLimitError,
  InvalidOptionError,
  InvalidPromptError,
  MessageTooLargeError,
  SummarizerError,
  UnknownContextWindowError,
} from '../../src/errors.js';

const errors = {
  InvalidOptionError: new InvalidOptionError({ option: 'compressAt', message: 'bad' }),
  UnknownContextWindowError: new UnknownContextWindowError({ modelId: 'x' }),
  InvalidPromptError: new InvalidPromptError({ messageIndex: 1, field: 'content', expected: 'an array', value: null }),
  MessageTooLargeError: new MessageTooLargeError({ messageTokens: 10, budgetTokens: 5, messageIndex: 0 }),
  HardLimitError: new HardLimitError({ promptTokens: 3_604, hardLimitTokens: 2_975 }),
  SummarizerError: new SummarizerError({ summarizer: 'fn', reason: 'timeout' }),
};
const classes = {
  InvalidOptionError,
  UnknownContextWindowError,
  InvalidPromptError,
  MessageTooLargeError,
  HardLimitError,
  SummarizerError,
};
const names = Object.keys(classes) as (keyof typeof classes)[];

/** What another copy of the package throws: a plain object with the same marker symbols, and no shared class. */
function fromAnotherCopy(name: string): Error {
  const error = Object.assign(new Error('from another copy'), { name });
  for (const marker of ['context-compression.error', `context-compression.error.${name}`])
    Object.defineProperty(error, Symbol.for(marker), { value: true });
  return error;
}

describe('isInstance', () => {
  it.each(names)('%s.isInstance is true for its own errors and false for every other class', (name) => {
    const isInstance = classes[name].isInstance;
    expect(isInstance(errors[name])).toBe(true);
    expect(isInstance(fromAnotherCopy(name))).toBe(true);
    for (const other of names.filter((candidate) => candidate !== name)) {
      expect(isInstance(errors[other]), other).toBe(false);
      expect(isInstance(fromAnotherCopy(other)), `${other} from another copy`).toBe(false);
    }
  });

  it.each(names)('ContextCompressionError.isInstance is true for %s, from any copy', (name) => {
    expect(ContextCompressionError.isInstance(errors[name])).toBe(true);
    expect(ContextCompressionError.isInstance(fromAnotherCopy(name))).toBe(true);
    expect(errors[name]).toBeInstanceOf(ContextCompressionError);
    expect(errors[name].name).toBe(name);
  });

  it('does not take a same-named error without the markers, a class marker alone, or foreign values', () => {
    const sameName = Object.assign(new Error('x'), { name: 'InvalidOptionError' });
    const classMarkerOnly = Object.assign(new Error('x'), {
      [Symbol.for('context-compression.error.InvalidOptionError')]: true,
    });
    const falseMarker = Object.assign(new Error('x'), { [Symbol.for('context-compression.error')]: 'yes' });
    for (const value of [sameName, classMarkerOnly, falseMarker, new Error('plain'), null, undefined, 42, {}]) {
      expect(ContextCompressionError.isInstance(value)).toBe(false);
      for (const name of names) expect(classes[name].isInstance(value)).toBe(false);
    }
  });
});

describe('HardLimitError', () => {
  it('holds the sizes and says how to fix the call', () => {
    const error = errors.HardLimitError;
    expect(error).toMatchObject({ promptTokens: 3_604, hardLimitTokens: 2_975 });
    expect(error.message).toContain('3604 tokens');
    expect(error.message).toContain('hard limit of 2975');
    expect(error.message).toContain('`contextWindow`');
  });
});

describe('both adapters export every error class', () => {
  it.each(['ContextCompressionError', ...names])('%s', async (name) => {
    const aiSdk: Record<string, unknown> = await import('../../adapters/ai-sdk/index.js');
    const langchain: Record<string, unknown> = await import('../../adapters/langchain/index.js');
    expect(aiSdk[name]).toBeDefined();
    expect(langchain[name]).toBe(aiSdk[name]);
  });
});
