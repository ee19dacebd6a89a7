import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { ToolsInput } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { redactionTool, retrievalTool, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { fileContent, fileReads, READS, resultText } from '../../helpers/file-reads.js';
import { scriptedModel, textResult } from '../../helpers/mock-model.js';
import { unsupportedNode } from '../../helpers/node-engines.js';

const skip = unsupportedNode('@mastra/core');
if (skip) console.log(`Mastra tests skipped: ${skip}`);

const reads = fileReads();

const readFile = tool({
  description: 'Reads a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => fileContent(path),
});

/** Runs a Mastra agent on a compressed mock model that answers `steps` in turn; returns the prompts it was sent. */
async function runAgent(steps: Parameters<typeof scriptedModel>[0], tools: ToolsInput, how: 'generate' | 'stream') {
  const { Agent } = await import('@mastra/core/agent');
  const mock = scriptedModel(steps);
  const model = withContextCompression(mock, {
    contextWindow: 8_000,
    reserveOutputTokens: 500,
    masking: { keepRecent: 2, clearAtLeast: 500 },
  });
  // Mastra 1.x declares the model and tool types of an earlier ai 7 release; both run as they are
  const agent = new Agent({
    id: 'coder',
    name: 'coder',
    instructions: 'You are a coding agent.',
    model: model as MastraModelConfig,
    tools: { read_file: readFile, ...tools } as ToolsInput,
  });
  const options = { maxSteps: steps.length + 2 };
  const prompt = 'Find where value7 is defined.';
  if (how === 'generate') await agent.generate(prompt, options);
  else await (await agent.stream(prompt, options)).consumeStream();
  // each way of calling the agent reaches the model its own way (the streamed answer is read part by part)
  expect(how === 'generate' ? mock.doStreamCalls : mock.doGenerateCalls).toHaveLength(0);
  return [...mock.doGenerateCalls, ...mock.doStreamCalls].map((call) => call.prompt);
}

describe.skipIf(skip !== undefined)('the retrieval tool in a Mastra agent', () => {
  it.each(['generate', 'stream'] as const)(
    'gives back a masked result verbatim (%s): Mastra calls toModelOutput the AI SDK 5 way and gives tools only the input messages',
    async (how) => {
      const recall = textResult('I need file 0 again, exactly.', {
        toolCalls: [{ id: 'recall-1', name: 'get_back', input: { toolCallIds: ['read-0'] } }],
      });
      const prompts = await runAgent([...reads, recall], { get_back: retrievalTool() } as ToolsInput, how);
      expect(prompts).toHaveLength(READS + 2);
      const before = prompts[READS] as LanguageModelV4Prompt;
      const after = prompts[READS + 1] as LanguageModelV4Prompt;
      expect(resultText(before, 'read-0')).toMatch(/cleared to save context.*get_back gives it back verbatim/s);
      expect(resultText(after, 'recall-1')).toBe(
        `Retrieved 1 tool result (read-0) verbatim.\n<tool_result id="read-0" tool="read_file">\n${fileContent('src/file0.ts')}\n</tool_result>`,
      );
      // the answer came at the end: the prompt before it is unchanged
      expect(after.slice(0, before.length)).toEqual(before);
    },
  );

  it('lets the redaction tool check ids against the whole run, not the input messages alone', async () => {
    const reason = 'Used the constants of file 0 already.';
    const redact = textResult('Dropping file 0.', {
      toolCalls: [{ id: 'drop-1', name: 'forget', input: { toolCallIds: ['read-0'], reason } }],
    });
    const prompts = await runAgent(
      [...reads.slice(0, 2), redact],
      { forget: redactionTool() } as ToolsInput,
      'generate',
    );
    const last = prompts.at(-1) as LanguageModelV4Prompt;
    expect(resultText(last, 'drop-1')).toContain('"accepted":["read-0"]');
    expect(resultText(last, 'read-0')).toBe(
      `[Result of read_file({"path":"src/file0.ts"}) redacted at the assistant's request: ${reason}]`,
    );
  });
});
