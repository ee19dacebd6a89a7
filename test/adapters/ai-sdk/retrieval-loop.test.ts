import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type CompressEvent,
  redactionTool,
  retrievalTool,
  withContextCompression,
} from '../../../adapters/ai-sdk/index.js';
import { fileContent, lookAlikeModule, READS, resultText } from '../../helpers/file-reads.js';
import { textResult } from '../../helpers/mock-model.js';

const readFile = tool({
  description: 'Reads a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => fileContent(path),
});

describe('the retrieval tool in a multi-step AI SDK tool loop', () => {
  it('gives back a masked result verbatim at the end of the prompt; everything before stays as it was', async () => {
    const steps = [
      ...Array.from({ length: READS }, (_, step) =>
        textResult(`Reading file ${step}.`, {
          toolCalls: [{ id: `read-${step}`, name: 'read_file', input: { path: `src/file${step}.ts` } }],
        }),
      ),
      textResult('I need file 0 again, exactly.', {
        toolCalls: [{ id: 'recall-1', name: 'get_back', input: { toolCallIds: ['read-0'] } }],
      }),
      textResult('Done.'),
    ];
    const mock = new MockLanguageModelV4({ doGenerate: async () => steps.shift() ?? textResult('Done.') });
    const events: CompressEvent[] = [];
    const model = withContextCompression(mock, {
      contextWindow: 8_000,
      reserveOutputTokens: 500,
      masking: { keepRecent: 2, clearAtLeast: 500 },
      onCompress: (event) => events.push(event),
    });
    const result = await generateText({
      model,
      prompt: 'Find where value7 is defined.',
      // registered under a name of the caller's choice: compression recognizes it by its schema
      tools: { read_file: readFile, get_back: retrievalTool() },
      stopWhen: isStepCount(READS + 3),
    });
    expect(result.text).toBe('Done.');
    const prompts = mock.doGenerateCalls.map((call) => call.prompt);
    expect(prompts).toHaveLength(READS + 2);
    const beforeRecall = prompts[READS] as LanguageModelV4Prompt;
    const afterRecall = prompts[READS + 1] as LanguageModelV4Prompt;

    // the placeholder the model saw named the retrieval tool (by its registered name) and the call id
    const placeholder = resultText(beforeRecall, 'read-0') ?? '';
    expect(events.some((event) => event.toolResultsMasked.count > 0)).toBe(true);
    expect(placeholder).toMatch(/^\[Result of read_file\(.*\) cleared to save context/);
    expect(placeholder).toContain('get_back gives it back verbatim (call id "read-0")');
    // the system prompt tells the model about the tool
    expect(JSON.stringify(beforeRecall[0])).toContain('get_back gives back verbatim');

    // the recalled result arrives at the end, verbatim; the earlier prompt is unchanged (the cache holds)
    const recalled = resultText(afterRecall, 'recall-1') ?? '';
    expect(recalled).toContain(
      `<tool_result id="read-0" tool="read_file">\n${fileContent('src/file0.ts')}\n</tool_result>`,
    );
    expect(afterRecall.slice(0, beforeRecall.length)).toEqual(beforeRecall);
    expect(resultText(afterRecall, 'read-0')).toBe(placeholder);
  });

  it('finds by a query the result of the path or identifier the model names, after a fold hid them', async () => {
    // look-alike modules: each imports from others, so their words are all shared
    const moduleText = (index: number) => lookAlikeModule(index, 12, 30);
    const readModule = tool({
      description: 'Reads a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => moduleText(Number(/module_(\d+)/.exec(path)?.[1])),
    });
    const steps = [
      ...Array.from({ length: 12 }, (_, step) =>
        textResult(`Reading module ${step + 1}.`, {
          toolCalls: [{ id: `read-${step + 1}`, name: 'read_file', input: { path: `src/module_${step + 1}.ts` } }],
        }),
      ),
      textResult('I need module 2 again.', {
        toolCalls: [{ id: 'get-1', name: 'get_back', input: { toolCallIds: [], query: 'src/module_2.ts' } }],
      }),
      textResult('And the function lumen_amber_3_5.', {
        toolCalls: [{ id: 'get-2', name: 'get_back', input: { toolCallIds: [], query: 'lumen_amber_3_5' } }],
      }),
      textResult('Done.'),
    ];
    const mock = new MockLanguageModelV4({ doGenerate: async () => steps.shift() ?? textResult('Done.') });
    const events: CompressEvent[] = [];
    const model = withContextCompression(mock, { contextWindow: 8_000, onCompress: (event) => events.push(event) });
    await generateText({
      model,
      prompt: 'Review the modules.',
      tools: { read_file: readModule, get_back: retrievalTool() },
      stopWhen: isStepCount(16),
    });
    expect(events.some((event) => event.messagesFolded > 0)).toBe(true);
    // the answer as the model read it in the call after the request
    const answer = (id: string) =>
      mock.doGenerateCalls.map((call) => resultText(call.prompt, id)).find((text) => text !== undefined) ?? '';
    const firstResult = (id: string) => /<tool_result id="([^"]+)"/.exec(answer(id))?.[1];
    expect(firstResult('get-1')).toBe('read-2');
    expect(firstResult('get-2')).toBe('read-3');
  });

  it('replays a redaction tool registered under another name', async () => {
    const reason = 'Used the constants of file 0 already.';
    const steps = [
      textResult('Reading.', { toolCalls: [{ id: 'read-0', name: 'read_file', input: { path: 'src/file0.ts' } }] }),
      textResult('Dropping it.', {
        toolCalls: [{ id: 'drop-1', name: 'forget_results', input: { toolCallIds: ['read-0'], reason } }],
      }),
      textResult('Done.'),
    ];
    const mock = new MockLanguageModelV4({ doGenerate: async () => steps.shift() ?? textResult('Done.') });
    await generateText({
      model: withContextCompression(mock, { contextWindow: 200_000 }),
      prompt: 'Go.',
      tools: { read_file: readFile, forget_results: redactionTool() },
      stopWhen: isStepCount(4),
    });
    const last = mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt;
    expect(resultText(last, 'read-0')).toBe(
      `[Result of read_file({"path":"src/file0.ts"}) redacted at the assistant's request: ${reason}]`,
    );
  });
});

describe('a step that leaves the retrieval tool out', () => {
  it('keeps the system prompt and the placeholders as the steps with the tool had them', async () => {
    const steps = [
      ...Array.from({ length: READS }, (_, step) =>
        textResult(`Reading file ${step}.`, {
          toolCalls: [{ id: `read-${step}`, name: 'read_file', input: { path: `src/file${step}.ts` } }],
        }),
      ),
      textResult('Done.'),
    ];
    const mock = new MockLanguageModelV4({ doGenerate: async () => steps.shift() ?? textResult('Done.') });
    await generateText({
      model: withContextCompression(mock, {
        contextWindow: 8_000,
        reserveOutputTokens: 500,
        masking: { keepRecent: 2, clearAtLeast: 500 },
      }),
      prompt: 'Find where value7 is defined.',
      tools: { read_file: readFile, get_back: retrievalTool() },
      // the last step offers only read_file (as `prepareStep` or `activeTools` may)
      prepareStep: ({ stepNumber }) => (stepNumber === READS ? { activeTools: ['read_file'] } : {}),
      stopWhen: isStepCount(READS + 2),
    });
    const [before, after] = mock.doGenerateCalls.slice(-2).map((call) => call.prompt) as [
      LanguageModelV4Prompt,
      LanguageModelV4Prompt,
    ];
    expect(mock.doGenerateCalls.at(-1)?.tools?.map((tool) => tool.name)).toEqual(['read_file']);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(resultText(after, 'read-0')).toContain('get_back gives it back verbatim');
  });
});

describe('tool calls folded into the state', () => {
  /** Runs a loop of reads that folds, then a recall of read-0 by the id the state lists; returns the prompts. */
  async function foldingLoop(withRecall: boolean) {
    const steps = [
      ...Array.from({ length: READS }, (_, step) =>
        textResult(`Reading file ${step}.`, {
          toolCalls: [{ id: `read-${step}`, name: 'read_file', input: { path: `src/file${step}.ts` } }],
        }),
      ),
      textResult('The state lists read-0: getting it back.', {
        toolCalls: [{ id: 'recall-1', name: 'get_back', input: { toolCallIds: ['read-0'] } }],
      }),
      textResult('Done.'),
    ];
    const mock = new MockLanguageModelV4({ doGenerate: async () => steps.shift() ?? textResult('Done.') });
    const events: CompressEvent[] = [];
    await generateText({
      model: withContextCompression(mock, {
        // a window where the reads are small enough for the state's full share: it lists every folded call
        contextWindow: 7_000,
        reserveOutputTokens: 500,
        masking: false,
        onCompress: (event) => events.push(event),
      }),
      prompt: 'Find where value7 is defined.',
      tools: withRecall ? { read_file: readFile, get_back: retrievalTool() } : { read_file: readFile },
      stopWhen: isStepCount(withRecall ? READS + 2 : READS + 1),
    });
    return { prompts: mock.doGenerateCalls.map((call) => call.prompt), events };
  }
  const stateText = (prompt: LanguageModelV4Prompt) => {
    const message = prompt.find(
      (each) => each.role === 'user' && JSON.stringify(each.content).includes('<session_state>'),
    );
    return message ? JSON.stringify(message.content) : '';
  };

  it('are listed by id in the state, and the model recalls one of them by that id', async () => {
    const { prompts, events } = await foldingLoop(true);
    expect(events.some((event) => event.messagesFolded > 0)).toBe(true);
    const beforeRecall = prompts[READS] as LanguageModelV4Prompt;
    const afterRecall = prompts[READS + 1] as LanguageModelV4Prompt;
    // read-0 left the prompt with the fold; the state names it, with its tool and arguments
    expect(resultText(beforeRecall, 'read-0')).toBeUndefined();
    const state = stateText(beforeRecall);
    expect(state).toContain('toolCalls');
    expect(state).toContain('read-0 read_file({\\\\\\"path\\\\\\":\\\\\\"src/file0.ts\\\\\\"})');
    // the retrieval tool's own calls are not listed
    expect(state).not.toContain('get_back(');
    const recalled = resultText(afterRecall, 'recall-1') ?? '';
    expect(recalled).toContain(
      `<tool_result id="read-0" tool="read_file">\n${fileContent('src/file0.ts')}\n</tool_result>`,
    );
    expect(afterRecall.slice(0, beforeRecall.length)).toEqual(beforeRecall);
  });

  it('are not listed when the call has no retrieval tool (the list would be of no use)', async () => {
    const { prompts, events } = await foldingLoop(false);
    expect(events.some((event) => event.messagesFolded > 0)).toBe(true);
    const state = stateText(prompts.at(-1) as LanguageModelV4Prompt);
    expect(state).toContain('<session_state>');
    expect(state).not.toContain('toolCalls');
  });
});
