import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_REDACTION_TOOL_NAME, redactionTool, withContextCompression } from '../../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../../adapters/ai-sdk/to-transcript.js';
import { findPairingProblems } from '../../../src/advanced.js';
import { textResult } from '../../helpers/mock-model.js';

const fileContent = (path: string) => `// ${path}\n${'export const answer = 42; // a line of code\n'.repeat(60)}`;

function resultText(prompt: LanguageModelV4Prompt, toolCallId: string): string | undefined {
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolCallId === toolCallId && part.output.type === 'text')
        return part.output.value;
      if (part.type === 'tool-result' && part.toolCallId === toolCallId) return JSON.stringify(part.output);
    }
  }
  return undefined;
}

describe('the redaction tool in a multi-step AI SDK tool loop', () => {
  it('redacts what the model flagged from the next step on, keeps the calls, and tells the model what it rejected', async () => {
    const reason = 'I copied the constants I need from src/a.ts; its full text is no longer needed.';
    const steps = [
      textResult('Reading both files.', {
        toolCalls: [
          { id: 'read-a', name: 'read_file', input: { path: 'src/a.ts' } },
          { id: 'read-b', name: 'read_file', input: { path: 'src/b.ts' } },
        ],
      }),
      textResult('Reading c, and dropping a.', {
        toolCalls: [
          { id: 'read-c', name: 'read_file', input: { path: 'src/c.ts' } },
          {
            id: 'redact-1',
            name: DEFAULT_REDACTION_TOOL_NAME,
            input: { toolCallIds: ['read-a', 'read-c', 'nope'], reason },
          },
        ],
      }),
      textResult('Done.'),
    ];
    const mock = new MockLanguageModelV4({ doGenerate: async () => steps.shift() ?? textResult('Done.') });
    const model = withContextCompression(mock, { contextWindow: 200_000 });
    const result = await generateText({
      model,
      prompt: 'Find the answer constant.',
      tools: {
        read_file: tool({
          description: 'Reads a file',
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => fileContent(path),
        }),
        [DEFAULT_REDACTION_TOOL_NAME]: redactionTool(),
      },
      stopWhen: isStepCount(5),
    });
    expect(result.text).toBe('Done.');
    expect(mock.doGenerateCalls).toHaveLength(3);

    // the tool answered with what it accepted and what it rejected, and why
    const answer = resultText(mock.doGenerateCalls[2]?.prompt as LanguageModelV4Prompt, 'redact-1') ?? '';
    expect(answer).toContain('read-a');
    expect(answer).toMatch(/read-c.*no earlier tool call has this id/);
    expect(answer).toMatch(/nope.*no earlier tool call/);

    const third = mock.doGenerateCalls[2]?.prompt as LanguageModelV4Prompt;
    expect(resultText(third, 'read-a')).toBe(
      `[Result of read_file({"path":"src/a.ts"}) redacted at the assistant's request: ${reason}]`,
    );
    expect(resultText(third, 'read-b')).toBe(fileContent('src/b.ts'));
    expect(resultText(third, 'read-c')).toBe(fileContent('src/c.ts'));
    expect(JSON.stringify(third)).toContain('"toolCallId":"read-a","toolName":"read_file","input":{"path":"src/a.ts"}');
    expect(findPairingProblems(toTranscript(third, undefined).messages)).toEqual([]);
    // the step that issued the directive still saw the original content
    expect(resultText(mock.doGenerateCalls[1]?.prompt as LanguageModelV4Prompt, 'read-a')).toBe(
      fileContent('src/a.ts'),
    );
  });

  it('rejects bad directives with clear messages', async () => {
    const execute = redactionTool().execute as NonNullable<ReturnType<typeof redactionTool>['execute']>;
    const messages = [
      { role: 'user' as const, content: 'Go.' },
      {
        role: 'assistant' as const,
        content: [{ type: 'tool-call' as const, toolCallId: 'c1', toolName: 'read_file', input: { path: 'a' } }],
      },
      {
        role: 'tool' as const,
        content: [
          {
            type: 'tool-result' as const,
            toolCallId: 'c1',
            toolName: 'read_file',
            output: { type: 'text' as const, value: 'x' },
          },
        ],
      },
    ];
    const run = (input: unknown) =>
      execute(input as never, { toolCallId: 'r', messages, context: {} } as never) as unknown as Promise<{
        message: string;
        accepted: string[];
      }>;
    expect((await run({ toolCallIds: ['c1'], reason: 'Used already.' })).accepted).toEqual(['c1']);
    expect((await run({ toolCallIds: ['zzz'], reason: 'Used already.' })).message).toMatch(
      /zzz \(no earlier tool call/,
    );
    expect((await run({ toolCallIds: ['c1'], reason: '' })).message).toMatch(/1 to 500 characters \(got 0\)/);
    expect((await run({ toolCallIds: ['c1'], reason: 'x'.repeat(10_000) })).message).toMatch(/got 10000/);
    expect((await run({ toolCallIds: [], reason: 'Used.' })).message).toMatch(/Name 1 to 100 tool call ids/);
  });
});
