import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { fromTranscript, withoutOpenAIItemId } from '../../../adapters/ai-sdk/from-transcript.js';
import { approximateCounter } from '../../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../../adapters/ai-sdk/to-transcript.js';
import { CompressionEngine, findPairingProblems } from '../../../src/advanced.js';

const prompt: LanguageModelV4Prompt = [
  {
    role: 'system',
    content: 'You are terse.',
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  },
  {
    role: 'user',
    content: [{ type: 'text', text: 'Read the log.', providerOptions: { openai: { itemId: 'msg_1' } } }],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'The log may be long.', providerOptions: { openai: { itemId: 'rs_1' } } },
      { type: 'text', text: 'Reading it.', providerOptions: { openai: { itemId: 'msg_2' } } },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_log', input: { lines: 5000 } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'read_log', input: { lines: 10 } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'read_log',
        output: {
          type: 'text',
          value: Array.from({ length: 3000 }, (_, index) => `line ${index}: GET /api/orders 200`).join('\n'),
        },
        providerOptions: { openai: { itemId: 'fc_1', other: 1 } },
      },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'read_log', output: { type: 'json', value: { ok: true } } },
    ],
  },
  { role: 'user', content: [{ type: 'text', text: 'Anything unusual?' }] },
];

describe('prompt <-> transcript', () => {
  it('hands back untouched messages as the very same objects', () => {
    const transcript = toTranscript(prompt, undefined);
    const back = fromTranscript(transcript.system, transcript.messages);
    expect(back).toHaveLength(prompt.length);
    for (const [index, message] of back.entries()) expect(message).toBe(prompt[index]);
  });

  it('rebuilds a shortened tool result with its id and provider options, minus the OpenAI item id', async () => {
    const engine = new CompressionEngine({
      contextWindow: 20_000,
      reserveOutputTokens: 1_000,
      tokenCounter: approximateCounter(),
    });
    const result = await engine.compress({ transcript: toTranscript(prompt, undefined), modelId: 'm' });
    const back = fromTranscript(result.system, result.messages);
    const tool = back.find((message) => message.role === 'tool');
    expect(tool?.role).toBe('tool');
    if (tool?.role !== 'tool') return;
    const [shortened, untouched] = tool.content;
    expect(shortened).toMatchObject({
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'read_log',
      providerOptions: { openai: { other: 1 } },
    });
    expect(JSON.stringify(shortened)).not.toContain('fc_1');
    expect(shortened?.type === 'tool-result' && shortened.output.type === 'text' && shortened.output.value).toMatch(
      /left out, about \d+ tokens/,
    );
    expect(untouched).toBe((prompt[3] as { content: unknown[] }).content[1]);
    // the assistant message with reasoning and both parallel calls is unchanged and still paired
    expect(back.find((message) => message.role === 'assistant')).toBe(prompt[2]);
    expect(findPairingProblems(toTranscript(back, undefined).messages)).toEqual([]);
  });

  it('keeps reasoning with its assistant message when turns are folded', async () => {
    const long = [...prompt];
    for (let turn = 0; turn < 40; turn++) {
      long.push({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: `thinking ${turn}` },
          { type: 'text', text: `answer ${turn} ${'x '.repeat(200)}` },
        ],
      });
      long.push({ role: 'user', content: [{ type: 'text', text: `question ${turn}` }] });
    }
    const engine = new CompressionEngine({
      contextWindow: 8_000,
      reserveOutputTokens: 1_000,
      tokenCounter: approximateCounter(),
    });
    const result = await engine.compress({ transcript: toTranscript(long, undefined), modelId: 'm' });
    const back = fromTranscript(result.system, result.messages);
    expect(result.decisions.map((decision) => decision.trigger)).toContain('budget');
    const withReasoning = back.filter(
      (message) =>
        message.role === 'assistant' &&
        Array.isArray(message.content) &&
        message.content.some((part) => part.type === 'reasoning'),
    );
    expect(withReasoning.length).toBeGreaterThan(0);
    for (const message of withReasoning) expect(long).toContain(message);
  });

  it('withoutOpenAIItemId removes only the item id', () => {
    expect(withoutOpenAIItemId({ openai: { itemId: 'x' } })).toBeUndefined();
    expect(withoutOpenAIItemId({ openai: { itemId: 'x', store: false }, google: { a: 1 } })).toEqual({
      openai: { store: false },
      google: { a: 1 },
    });
    expect(withoutOpenAIItemId({ anthropic: { cacheControl: { type: 'ephemeral' } } })).toEqual({
      anthropic: { cacheControl: { type: 'ephemeral' } },
    });
  });
});
