import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { approximateCounter, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../../adapters/ai-sdk/to-transcript.js';
import { echoModel } from '../../helpers/mock-model.js';

const sources = Array.from({ length: 400 }, (_, index) => ({
  type: 'url',
  url: `https://example.com/rates-${index}`,
  title: `Result ${index} about shipping rates`,
}));
const logLines = Array.from({ length: 1_500 }, (_, index) => `line ${index}: GET /api/rates 200`).join('\n');

/** A web search the provider ran (call and result in the assistant message), then a client tool as large. */
const prompt: LanguageModelV4Prompt = [
  { role: 'user', content: [{ type: 'text', text: 'Search the web for shipping rates, then read the log.' }] },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool-call',
        toolCallId: 'ws_1',
        toolName: 'web_search',
        input: { query: 'rates' },
        providerExecuted: true,
      },
      {
        type: 'tool-result',
        toolCallId: 'ws_1',
        toolName: 'web_search',
        output: { type: 'json', value: { action: { type: 'search', query: 'rates' }, sources } },
        providerOptions: { openai: { itemId: 'ws_1' } },
      },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_log', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read_log', output: { type: 'text', value: logLines } },
    ],
  },
  { role: 'user', content: [{ type: 'text', text: 'Summarize both.' }] },
];

describe('provider-executed tool results', () => {
  it('are sent as the caller wrote them, JSON output and item id kept, while client results are still shortened', async () => {
    const mock = echoModel();
    const model = withContextCompression(mock, {
      contextWindow: 64_000,
      maxToolResultTokens: 2_000,
      tokenCounter: approximateCounter(),
    });
    await model.doGenerate({ prompt });
    const sent = mock.doGenerateCalls[0]?.prompt as LanguageModelV4Prompt;
    expect(sent.slice(1)).toHaveLength(prompt.length);
    expect(sent[2]).toBe(prompt[1]);
    const tool = sent[3];
    expect(tool).not.toBe(prompt[2]);
    const shortened = tool?.role === 'tool' ? tool.content[0] : undefined;
    expect(shortened?.type === 'tool-result' && shortened.output.type).toBe('text');
    expect(JSON.stringify(shortened)).toMatch(/left out, about \d+ tokens/);
  });

  it('are read as parts no strategy edits, still counted', () => {
    const transcript = toTranscript(prompt, undefined);
    const parts = transcript.messages[1]?.parts ?? [];
    expect(parts.map((part) => part.type)).toEqual(['other', 'other', 'tool-call']);
    expect(parts[1]?.type === 'other' && parts[1].text).toContain('example.com/rates-399');
  });
});
