import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  approximateCounter,
  InvalidPromptError,
  type SessionState,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { echoModel } from '../../helpers/mock-model.js';

const options = { contextWindow: 4_000, reserveOutputTokens: 500, tokenCounter: approximateCounter() };
const user = (text: unknown) => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (input: unknown) => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input }],
});
const result = (output: unknown) => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output }],
});

/** Sends a prompt a JavaScript caller built, bypassing the type checker; returns the mock and the wrapped model. */
async function send(prompt: unknown[], extra: Record<string, unknown> = {}) {
  const mock = echoModel();
  const model = withContextCompression(mock, { ...options, ...extra });
  await model.doGenerate({ prompt: prompt as LanguageModelV4Prompt });
  return mock.doGenerateCalls[0]?.prompt as LanguageModelV4Prompt;
}

function circularInput() {
  const input: Record<string, unknown> = { city: 'Berlin' };
  input.self = input;
  return input;
}

describe('unreadable messages are an InvalidPromptError naming the index and the field', () => {
  it.each<[string, unknown[], number, string, string]>([
    [
      'a null message',
      [user('hi'), null],
      1,
      '',
      'Invalid message at index 1: must be a message object { role, content } (got null)',
    ],
    [
      'null content',
      [user('hi'), { role: 'user', content: null }],
      1,
      'content',
      'Invalid message at index 1: `content` must be an array of parts in a user message (got null)',
    ],
    [
      'a system message without a string',
      [{ role: 'system', content: null }, user('hi')],
      0,
      'content',
      'Invalid message at index 0: `content` must be a string in a system message (got null)',
    ],
    [
      'a null part',
      [user('hi'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }, null] }],
      1,
      'content[1]',
      'Invalid message at index 1: `content[1]` must be a part object with a type (got null)',
    ],
    [
      'a tool result with output null',
      [user('hi'), call({}), result(null)],
      2,
      'content[0].output',
      'Invalid message at index 2: `content[0].output` must be a tool output such as { type: "text", value } (got null)',
    ],
  ])('%s', async (_name, prompt, messageIndex, field, message) => {
    const error = await send(prompt).then(
      () => undefined,
      (caught: unknown) => caught as InvalidPromptError,
    );
    expect(InvalidPromptError.isInstance(error)).toBe(true);
    expect(error?.messageIndex).toBe(messageIndex);
    expect(error?.field).toBe(field);
    expect(error?.message).toBe(message);
  });
});

describe('odd but sendable values are read tolerantly and sent as the caller wrote them', () => {
  it.each<[string, unknown[]]>([
    [
      'a text part with text null',
      [user('hi'), { role: 'assistant', content: [{ type: 'text', text: null }] }, user('go')],
    ],
    ['a text tool output with value null', [user('hi'), call({}), result({ type: 'text', value: null }), user('go')]],
    [
      'tool-call input with a cycle',
      [user('hi'), call(circularInput()), result({ type: 'text', value: 'x' }), user('go')],
    ],
    [
      'tool-call input with a BigInt',
      [user('hi'), call({ id: 10n }), result({ type: 'text', value: 'x' }), user('go')],
    ],
  ])('%s', async (_name, prompt) => {
    const sent = await send(prompt);
    // nothing to change: the caller's very objects, without the awareness block
    expect(sent).toHaveLength(prompt.length);
    for (const [index, message] of prompt.entries()) expect(sent[index]).toBe(message);
  });

  it('does not mutate a circular input and folds it with its turn', async () => {
    const input = circularInput();
    const history: ModelMessage[] = [
      { role: 'user', content: 'Look up Berlin.' },
      call(input) as ModelMessage,
      result({ type: 'text', value: 'Berlin: 3.7 million people.' }) as ModelMessage,
    ];
    for (let turn = 0; turn < 30; turn++) {
      history.push(
        turn % 2 === 0
          ? { role: 'user', content: `Question ${turn} about ORD-${turn}. ${'details '.repeat(40)}` }
          : { role: 'assistant', content: `Answer ${turn}. ${'details '.repeat(40)}` },
      );
    }
    let folded = 0;
    const mock = echoModel();
    const model = withContextCompression(mock, {
      ...options,
      summarizer: async ({ messages }): Promise<SessionState> => {
        folded += messages.length;
        return { logos: ['Berlin has 3.7 million people.'], pathos: [], abstract: [], conversationSummary: 'Cities.' };
      },
    });
    await generateText({ model, messages: history });
    expect(folded).toBeGreaterThan(3);
    expect(Object.keys(input)).toEqual(['city', 'self']);
    expect(input.self).toBe(input);
  });

  it('a BigInt or a cycle through generateText does not fail inside the middleware', async () => {
    const model = withContextCompression(echoModel(), options);
    for (const input of [{ id: 10n }, circularInput()]) {
      const messages = [
        { role: 'user', content: 'hi' },
        call(input),
        result({ type: 'text', value: 'x' }),
        { role: 'user', content: 'go' },
      ] as ModelMessage[];
      await expect(generateText({ model, messages })).resolves.toMatchObject({ text: 'ok' });
    }
  });
});
