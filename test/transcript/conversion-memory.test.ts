import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { contextCompression } from '../../adapters/ai-sdk/index.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { ConversionMemory } from '../../src/transcript/conversion-memory.js';
import type { Message } from '../../src/transcript/transcript.js';

type Input = { role: 'user' | 'assistant'; text: string; meta?: unknown };
const toMessage = (input: Input): Message => ({ role: input.role, parts: [{ type: 'text', text: input.text }] });
const history = (count: number): Input[] =>
  Array.from({ length: count }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', text: `message ${index}` }));

describe('ConversionMemory', () => {
  it('converts only what is new in a resent history, whatever its objects', () => {
    const convert = vi.fn(toMessage);
    const memory = new ConversionMemory(convert, (first: Input) => first.text);
    const first = memory.convertAll(history(6));
    expect(convert).toHaveBeenCalledTimes(6);
    const second = memory.convertAll(JSON.parse(JSON.stringify(history(8))));
    expect(convert).toHaveBeenCalledTimes(8);
    expect(second.slice(0, 6)).toEqual(first);
    for (let index = 0; index < 6; index++) expect(second[index]).toBe(first[index]);
  });

  it('converts again from the first message that differs in any field', () => {
    const convert = vi.fn(toMessage);
    const memory = new ConversionMemory(convert, (first: Input) => first.text);
    memory.convertAll(history(6));
    const changed = history(6);
    changed[3] = { ...(changed[3] as Input), meta: { cache: 'ephemeral' } };
    memory.convertAll(changed);
    expect(convert).toHaveBeenCalledTimes(9);
  });
});

describe('the AI SDK middleware with fresh request objects', () => {
  const prompt = (cacheAt: number): LanguageModelV4Prompt => [
    { role: 'system', content: 'Be brief.' },
    ...Array.from({ length: 6 }, (_, index) =>
      index % 2
        ? { role: 'assistant' as const, content: [{ type: 'text' as const, text: `answer ${index}` }] }
        : {
            role: 'user' as const,
            content: [{ type: 'text' as const, text: `question ${index}` }],
            ...(index === cacheAt ? { providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } } : {}),
          },
    ),
  ];

  it('sends what the caller sent for untouched messages, provider options included, as they move between calls', async () => {
    const middleware = contextCompression({ contextWindow: 100_000, tokenCounter: approximateCounter() });
    const model = new MockLanguageModelV4();
    const send = async (request: LanguageModelV4Prompt) => {
      const params: LanguageModelV4CallOptions = { prompt: JSON.parse(JSON.stringify(request)) };
      return (await middleware.transformParams?.({ type: 'generate', params, model }))?.prompt;
    };
    await send(prompt(0));
    const moved = prompt(4);
    const sent = await send(moved);
    // nothing to change: the prompt as it came, no awareness block
    expect(sent?.slice(1)).toEqual(moved.slice(1));
    expect(sent?.[5]).toHaveProperty('providerOptions.anthropic.cacheControl.type', 'ephemeral');
    expect(sent?.[1]).not.toHaveProperty('providerOptions');
  });

  it("sends an edited message with this call's provider options, not the ones an earlier equal message had", async () => {
    const middleware = contextCompression({
      contextWindow: 100_000,
      maxToolResultTokens: 200,
      tokenCounter: approximateCounter(),
    });
    const model = new MockLanguageModelV4();
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const request = (cachedAt: 'tool' | 'user'): LanguageModelV4Prompt => [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Read the log.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'log', toolName: 'read', input: { path: 'app.log' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'log',
            toolName: 'read',
            output: { type: 'text', value: 'line of the log\n'.repeat(400) },
          },
        ],
        ...(cachedAt === 'tool' ? { providerOptions: cache } : {}),
      },
      ...(cachedAt === 'user'
        ? [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'And now?' }], providerOptions: cache }]
        : []),
    ];
    const send = async (prompt: LanguageModelV4Prompt) => {
      const params: LanguageModelV4CallOptions = { prompt: JSON.parse(JSON.stringify(prompt)) };
      return (await middleware.transformParams?.({ type: 'generate', params, model }))?.prompt ?? [];
    };
    const first = await send(request('tool'));
    expect(first[4]).toHaveProperty('providerOptions.anthropic.cacheControl.type', 'ephemeral');
    const second = await send(request('user'));
    const tool = second.find((message) => message.role === 'tool');
    expect(JSON.stringify(tool)).toMatch(/left out, about \d+ tokens/);
    expect(tool).not.toHaveProperty('providerOptions');
    expect(second.filter((message) => 'providerOptions' in message && message.providerOptions)).toHaveLength(1);
  });
});
