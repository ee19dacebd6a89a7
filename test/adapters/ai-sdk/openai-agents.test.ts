import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { aisdk } from '@openai/agents-extensions/ai-sdk';
import { tool as aiTool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type CompressionReport,
  InvalidOptionError,
  openaiAgentsTool,
  redactionTool,
  retrievalTool,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { fileContent, fileReads, READS, resultText } from '../../helpers/file-reads.js';
import { scriptedModel, textResult } from '../../helpers/mock-model.js';
import { unsupportedNode } from '../../helpers/node-engines.js';

const skip = unsupportedNode('@openai/agents');
if (skip) console.log(`OpenAI Agents SDK tests skipped: ${skip}`);

// no trace exporter: these runs make no request
setTracingDisabled(true);

const reads = fileReads();

const readFile = tool({
  name: 'read_file',
  description: 'Reads a file',
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => fileContent(path),
});

/** Runs an Agents SDK agent on a compressed mock model answering `steps` in turn; returns the prompts it was sent. */
async function runAgent(
  steps: Parameters<typeof scriptedModel>[0],
  tools: ReturnType<typeof tool>[],
  { stream = false, compressed = true } = {},
) {
  const mock = scriptedModel(steps);
  const model = compressed
    ? withContextCompression(mock, {
        contextWindow: 8_000,
        reserveOutputTokens: 500,
        masking: { keepRecent: 2, clearAtLeast: 500 },
      })
    : mock;
  const agent = new Agent({
    name: 'coder',
    instructions: 'You are a coding agent.',
    model: aisdk(model),
    tools: [readFile, ...tools],
  });
  const input = 'Find where value7 is defined.';
  if (stream) {
    const result = await run(agent, input, { maxTurns: steps.length + 2, stream: true });
    await result.completed;
  } else await run(agent, input, { maxTurns: steps.length + 2 });
  expect(stream ? mock.doGenerateCalls : mock.doStreamCalls).toHaveLength(0);
  return [...mock.doGenerateCalls, ...mock.doStreamCalls].map((call) => call.prompt);
}

const recall = textResult('I need file 0 again, exactly.', {
  toolCalls: [{ id: 'recall-1', name: 'retrieve_tool_results', input: { toolCallIds: ['read-0'] } }],
});

describe.skipIf(skip !== undefined)('the retrieval tool in an OpenAI Agents SDK run (aisdk model)', () => {
  it.each([false, true])(
    'gives back a masked result verbatim, read from the prompt the compressed model answered (streamed: %s)',
    async (stream) => {
      const prompts = await runAgent([...reads, recall], [tool(openaiAgentsTool(retrievalTool()))], { stream });
      expect(prompts).toHaveLength(READS + 2);
      const before = prompts[READS] as LanguageModelV4Prompt;
      const after = prompts[READS + 1] as LanguageModelV4Prompt;
      expect(resultText(before, 'read-0')).toMatch(
        /cleared to save context.*retrieve_tool_results gives it back verbatim \(call id "read-0"\)/s,
      );
      expect(resultText(after, 'recall-1')).toBe(
        `Retrieved 1 tool result (read-0) verbatim.\n<tool_result id="read-0" tool="read_file">\n${fileContent('src/file0.ts')}\n</tool_result>`,
      );
      expect(after.slice(0, before.length)).toEqual(before);
    },
  );

  it('takes the redaction tool too, under the name given', async () => {
    const reason = 'Used the constants of file 0 already.';
    const redact = textResult('Dropping file 0.', {
      toolCalls: [{ id: 'drop-1', name: 'forget', input: { toolCallIds: ['read-0'], reason } }],
    });
    const prompts = await runAgent(
      [...reads.slice(0, 2), redact],
      [tool(openaiAgentsTool(redactionTool(), { name: 'forget' }))],
    );
    const last = prompts.at(-1) as LanguageModelV4Prompt;
    expect(resultText(last, 'drop-1')).toContain('"accepted":["read-0"]');
    expect(resultText(last, 'read-0')).toBe(
      `[Result of read_file({"path":"src/file0.ts"}) redacted at the assistant's request: ${reason}]`,
    );
  });

  it('says it cannot see the conversation when the model is not compressed', async () => {
    const prompts = await runAgent([...reads.slice(0, 2), recall], [tool(openaiAgentsTool(retrievalTool()))], {
      compressed: false,
    });
    expect(resultText(prompts.at(-1) as LanguageModelV4Prompt, 'recall-1')).toMatch(/cannot see the conversation/);
  });
});

describe.skipIf(skip !== undefined)('the report in an OpenAI Agents SDK run (aisdk model)', () => {
  const agentOn = (onCall: (report: CompressionReport) => void) =>
    new Agent({
      name: 'coder',
      instructions: 'You are a coding agent.',
      model: aisdk(withContextCompression(scriptedModel([textResult('Done.')]), { contextWindow: 8_000, onCall })),
    });

  it('is in each raw response with run(), and onCall hears it', async () => {
    const heard: CompressionReport[] = [];
    const result = await run(
      agentOn((report) => heard.push(report)),
      'Fix the failing test.',
    );
    const [response] = result.rawResponses;
    const report = response?.output[0]?.providerData?.['context-compression'];
    expect(report).toMatchObject({ promptTokens: expect.any(Number), stateInPrompt: false });
    expect(heard).toHaveLength(1);
    expect(report).toMatchObject({ promptTokens: heard[0]?.promptTokens, historyTokens: heard[0]?.historyTokens });
  });

  it('is in the finish event of the raw model stream with stream: true, not in the raw responses; onCall hears it', async () => {
    const heard: CompressionReport[] = [];
    const result = await run(
      agentOn((report) => heard.push(report)),
      'Fix the failing test.',
      { stream: true },
    );
    const reports: unknown[] = [];
    for await (const event of result.toStream()) {
      if (event.type !== 'raw_model_stream_event' || event.data.type !== 'model') continue;
      const raw = event.data.event as { type?: string; providerMetadata?: Record<string, unknown> };
      if (raw.type === 'finish') reports.push(raw.providerMetadata?.['context-compression']);
    }
    await result.completed;
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ promptTokens: expect.any(Number) });
    expect(result.rawResponses[0]?.output[0]?.providerData?.['context-compression']).toBeUndefined();
    expect(heard).toHaveLength(1);
  });
});

describe('openaiAgentsTool', () => {
  it('takes only the tools of this package', () => {
    const other = aiTool({ description: 'x', inputSchema: z.object({ path: z.string() }), execute: async () => '' });
    expect(() => openaiAgentsTool(other as unknown as ReturnType<typeof retrievalTool>)).toThrow(InvalidOptionError);
  });

  it('checks its options', () => {
    expect(openaiAgentsTool(retrievalTool()).name).toBe('retrieve_tool_results');
    expect(openaiAgentsTool(redactionTool()).name).toBe('redact_tool_results');
    expect(() => openaiAgentsTool(retrievalTool(), { name: '' })).toThrow(/Invalid option `name`/);
    expect(() => openaiAgentsTool(retrievalTool(), { nme: 'x' } as { name?: string })).toThrow(InvalidOptionError);
  });
});
