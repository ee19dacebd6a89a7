/**
 * The options of the functions besides the model wrappers (the tools, `explainCompression`, `compressMessages`, the
 * memory store) are checked when each is called: an InvalidOptionError naming the option, the value and what is
 * allowed, never a TypeError from inside or a value silently ignored.
 */
import { describe, expect, it } from 'vitest';
import * as aiSdk from '../../adapters/ai-sdk/index.js';
import * as langChain from '../../adapters/langchain/index.js';
import { InvalidOptionError, memoryStateStore } from '../../src/index.js';

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}

async function rejected(make: () => Promise<unknown>): Promise<unknown> {
  try {
    await make();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Casts a value a JavaScript caller could pass, which the types would refuse. */
const loose = <T>(value: unknown) => value as T;

describe('options of the tools and the memory store', () => {
  it.each<[string, () => unknown, RegExp]>([
    [
      'AI SDK retrievalTool: a page too small',
      () => aiSdk.retrievalTool({ pageChars: 1 }),
      /`pageChars`: must be a whole number of characters of at least 200 \(got 1\)/,
    ],
    [
      'AI SDK retrievalTool: null',
      () => aiSdk.retrievalTool(loose(null)),
      /must be an object \{ description\?, pageChars\? \} \(got null\)/,
    ],
    [
      'AI SDK retrievalTool: a typo',
      () => aiSdk.retrievalTool(loose({ pagechars: 900 })),
      /`pagechars`: unknown option; did you mean `pageChars`\?/,
    ],
    [
      'AI SDK redactionTool: excludeTools not an array',
      () => aiSdk.redactionTool(loose({ excludeTools: 'bash' })),
      /`excludeTools`: must be an array of tool names \(got "bash"\)/,
    ],
    [
      'AI SDK redactionTool: a LangChain-only name',
      () => aiSdk.redactionTool(loose({ name: 'forget' })),
      /`name`: unknown option/,
    ],
    [
      'LangChain retrievalTool: an empty name',
      () => langChain.retrievalTool({ name: '' }),
      /`name`: must be a non-empty string \(got ""\)/,
    ],
    [
      'LangChain retrievalTool: messages not a function',
      () => langChain.retrievalTool(loose({ messages: [] })),
      /`messages`: must be a function/,
    ],
    [
      'LangChain redactionTool: description not a string',
      () => langChain.redactionTool(loose({ description: 5 })),
      /`description`: must be a string \(got 5\)/,
    ],
    [
      'memoryStateStore: a negative bound',
      () => memoryStateStore({ maxEntries: -1 }),
      /`maxEntries`: must be a whole number of entries of at least 1 \(got -1\)/,
    ],
    ['memoryStateStore: null', () => memoryStateStore(loose(null)), /must be an object/],
    [
      'compressMessages: an empty model id',
      () => langChain.compressMessages({ model: '' }),
      /`model`: must be a non-empty string \(got ""\)/,
    ],
  ])('%s', (_name, make, message) => {
    const error = thrown(make);
    expect(InvalidOptionError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('accepts what the reference allows', () => {
    expect(() => aiSdk.retrievalTool({ pageChars: 200, description: 'Get results back.' })).not.toThrow();
    expect(() => langChain.redactionTool({ name: 'forget', excludeTools: ['bash'] })).not.toThrow();
    expect(memoryStateStore({ maxEntries: 1 }).size).toBe(0);
  });
});

describe('options of explainCompression', () => {
  const messages = [{ role: 'user' as const, content: 'hello' }];
  it.each<[string, () => Promise<unknown>, RegExp]>([
    [
      'AI SDK: an unknown mode',
      () => aiSdk.explainCompression(messages, loose({ contextWindow: 8_000, mode: 'all' })),
      /`mode`: must be 'replay' or 'final' \(got "all"\)/,
    ],
    [
      'AI SDK: instructions not a string',
      () => aiSdk.explainCompression(messages, loose({ contextWindow: 8_000, instructions: 5 })),
      /`instructions`: must be a string \(got 5\)/,
    ],
    [
      'AI SDK: cacheBreakpoints not a boolean',
      () => aiSdk.explainCompression(messages, loose({ contextWindow: 8_000, cacheBreakpoints: 'x' })),
      /`cacheBreakpoints`: must be true or false/,
    ],
    [
      'LangChain: an empty model id beside a window',
      () => langChain.explainCompression([], { contextWindow: 8_000, modelId: '' }),
      /`modelId`: must be a non-empty string/,
    ],
    [
      'LangChain: an unknown mode',
      () => langChain.explainCompression([], loose({ contextWindow: 8_000, mode: 'last' })),
      /`mode`: must be 'replay' or 'final' \(got "last"\)/,
    ],
  ])('%s', async (_name, make, message) => {
    const error = await rejected(make);
    expect(InvalidOptionError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});
