import type { JSONSchema7, LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { retrievalTool, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { RetrievalInputSchema, type RetrievalToolOutput } from '../../../src/strategies/retrieval-tool.js';
import { scriptedModel, textResult } from '../../helpers/mock-model.js';

const output = 'export const answer = 42; // src/answer.ts';
const question = 'Where is the answer defined?';

/** A history with one read, as a framework sends it to the model. */
const prompt: LanguageModelV4Prompt = [
  { role: 'user', content: [{ type: 'text', text: question }] },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'read-1', toolName: 'read_file', input: { path: 'src/answer.ts' } }],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'read-1', toolName: 'read_file', output: { type: 'text', value: output } },
    ],
  },
];

/** The retrieval tool among a call's tools, as frameworks send its schema. */
const tools = [
  { type: 'function' as const, name: 'get_back', inputSchema: z.toJSONSchema(RetrievalInputSchema) as JSONSchema7 },
];

/** A compressed model answers `prompt` with a call of the retrieval tool (`id`), as an agent framework would ask. */
async function modelCallsRetrieval(id: string, toolName = 'get_back') {
  const mock = scriptedModel([
    textResult('Getting it back.', { toolCalls: [{ id, name: toolName, input: { toolCallIds: ['read-1'] } }] }),
  ]);
  await withContextCompression(mock, { contextWindow: 128_000 }).doGenerate({ prompt, tools });
}

/** What the retrieval tool answers for call `id`, given `messages` (as a framework passes them). */
async function retrieve(id: string, messages: ModelMessage[]) {
  const tool = retrievalTool();
  const answer = (await tool.execute?.({ toolCallIds: ['read-1'] }, { toolCallId: id, messages, context: {} })) as
    | RetrievalToolOutput
    | undefined;
  return answer?.results[0]?.output;
}

const firstUserMessage: ModelMessage[] = [{ role: 'user', content: question }];

describe('the prompt a compressed model answered with a call of the retrieval tool', () => {
  it('is the history of a tool that was given only the first user message (as Mastra gives it)', async () => {
    await modelCallsRetrieval('call-a');
    expect(await retrieve('call-a', firstUserMessage)).toBe(output);
  });

  it('is read once: a later run that reuses the call id finds nothing', async () => {
    await modelCallsRetrieval('call-b');
    expect(await retrieve('call-b', firstUserMessage)).toBe(output);
    expect(await retrieve('call-b', firstUserMessage)).toBeUndefined();
  });

  it('is never read for a conversation whose user messages it does not hold', async () => {
    await modelCallsRetrieval('call-c');
    expect(await retrieve('call-c', [{ role: 'user', content: 'Another conversation.' }])).toBeUndefined();
  });

  it('is kept only for calls of this package tools', async () => {
    await modelCallsRetrieval('call-d', 'read_file');
    expect(await retrieve('call-d', firstUserMessage)).toBeUndefined();
  });
});

describe("the retrieval tool's toModelOutput", () => {
  it('renders the same text whether it is given { output, ... } (AI SDK 6 and later) or the output (AI SDK 5, Mastra)', async () => {
    const tool = retrievalTool();
    const messages = prompt as ModelMessage[];
    const answer = (await tool.execute?.(
      { toolCallIds: ['read-1'] },
      { toolCallId: 'x', messages, context: {} },
    )) as RetrievalToolOutput;
    const modern = await tool.toModelOutput?.({ output: answer, toolCallId: 'x', input: { toolCallIds: ['read-1'] } });
    const legacy = await (tool.toModelOutput as unknown as (output: RetrievalToolOutput) => unknown)(answer);
    expect(modern).toEqual({ type: 'text', value: expect.stringContaining(`\n${output}\n</tool_result>`) });
    expect(legacy).toEqual(modern);
  });
});
