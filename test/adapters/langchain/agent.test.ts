import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  contextCompressionMiddleware,
  redactionTool,
  UnknownContextWindowError,
  withContextCompression,
} from '../../../adapters/langchain/index.js';
import { toTranscript } from '../../../adapters/langchain/to-transcript.js';
import { findPairingProblems } from '../../../src/advanced.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../../src/index.js';

const SYSTEM_PROMPT = 'You are a coding agent. Read files, then fix the bug.';

const readFile = tool(
  async ({ path }) =>
    `// ${path}\n${Array.from({ length: 60 }, (_, line) => `const value${line} = ${line}; // ${path}`).join('\n')}`,
  { name: 'read_file', description: 'Reads a file', schema: z.object({ path: z.string() }) },
);

/** A scripted model: `steps` tool calls reading one file each, then a final answer. */
function scriptedModel(
  steps: number,
  extra: (step: number) => { name: string; args: Record<string, unknown>; id: string }[] = () => [],
) {
  let model = fakeModel();
  for (let step = 0; step < steps; step++)
    model = model.respond(
      new AIMessage({
        content: `Step ${step}: reading the next file.`,
        tool_calls: [{ name: 'read_file', args: { path: `src/file${step}.ts` }, id: `call-${step}` }, ...extra(step)],
      }),
    );
  return model.respond(new AIMessage('Done: the bug is fixed.'));
}

/** An agent over `model` with the read_file tool and compression at a 6k window. */
function compressedAgent(model: ReturnType<typeof scriptedModel>) {
  return createAgent({
    model,
    tools: [readFile],
    systemPrompt: SYSTEM_PROMPT,
    middleware: [contextCompressionMiddleware({ contextWindow: 6_000, reserveOutputTokens: 500 })],
  });
}

const hasState = (messages: readonly BaseMessage[]) => messages.some((m) => m.text.includes('<session_state>'));

describe('contextCompressionMiddleware in a createAgent tool loop', () => {
  it('compresses what the model sees, keeps the agent state whole and the system message byte-identical', async () => {
    const model = scriptedModel(20);
    const agent = compressedAgent(model);
    const result = await agent.invoke(
      { messages: [new HumanMessage('Fix the bug in the value parser.')] },
      { recursionLimit: 100 },
    );
    // the checkpointed history is complete: the task, 20 calls with 20 results, and the answer
    expect(result.messages).toHaveLength(1 + 20 * 2 + 1);
    expect(result.messages.at(-1)?.text).toBe('Done: the bug is fixed.');
    expect(model.calls).toHaveLength(21);
    const last = model.calls.at(-1)?.messages ?? [];
    expect(last.length).toBeLessThan(result.messages.length);
    expect(hasState(last)).toBe(true);
    for (const { messages } of model.calls) {
      // the system message is the agent's own, unchanged; the awareness block travels with the state
      expect(messages[0]?.getType()).toBe('system');
      expect(messages[0]?.text).toBe(SYSTEM_PROMPT);
      expect(JSON.stringify(messages[0]?.content)).toBe(JSON.stringify(model.calls[0]?.messages[0]?.content));
      expect(messages.filter((message) => message.getType() === 'system')).toHaveLength(1);
      if (hasState(messages)) expect(messages[1]?.text.startsWith(DEFAULT_AWARENESS_BLOCK)).toBe(true);
      expect(findPairingProblems(toTranscript(messages).messages)).toEqual([]);
    }
  });

  it('runs a wrapped model as the agent model too', async () => {
    const inner = scriptedModel(20);
    const agent = createAgent({
      model: withContextCompression(inner, { contextWindow: 6_000, reserveOutputTokens: 500 }),
      tools: [readFile],
      systemPrompt: SYSTEM_PROMPT,
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Fix the bug in the value parser.')] },
      { recursionLimit: 100 },
    );
    expect(result.messages).toHaveLength(42);
    expect(hasState(inner.calls.at(-1)?.messages ?? [])).toBe(true);
  });

  it('replays redactions the model asked for with the LangChain redaction tool', async () => {
    // at step 3 the model redacts the result of call-0; later prompts show its reason instead of the file
    const model = scriptedModel(6, (step) =>
      step === 3
        ? [
            {
              name: 'redact_tool_results',
              args: { toolCallIds: ['call-0', 'nope'], reason: 'file0 was read and used.' },
              id: 'redact-1',
            },
          ]
        : [],
    );
    const agent = createAgent({
      model,
      tools: [readFile, redactionTool()],
      systemPrompt: SYSTEM_PROMPT,
      middleware: [contextCompressionMiddleware({ contextWindow: 200_000 })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('Fix the bug.')] });
    const answer = result.messages.find((message) => message.getType() === 'tool' && message.text.includes('accepted'));
    expect(JSON.parse(answer?.text ?? '{}')).toMatchObject({
      accepted: ['call-0'],
      rejected: [{ toolCallId: 'nope' }],
    });
    const resultOf = (messages: readonly BaseMessage[], id: string) =>
      messages.find((message) => (message as { tool_call_id?: string }).tool_call_id === id)?.text ?? '';
    expect(resultOf(model.calls[3]?.messages ?? [], 'call-0')).toContain('src/file0.ts');
    const after = resultOf(model.calls[4]?.messages ?? [], 'call-0');
    expect(after).toContain('file0 was read and used.');
    expect(after).not.toContain('const value1 =');
    // the agent's own state still holds the full result
    expect(resultOf(result.messages, 'call-0')).toContain('const value1 =');
  });

  it('a second run on a checkpointed thread finds the stored state instead of summarizing again', async () => {
    let summaries = 0;
    const model = scriptedModel(20).respond(new AIMessage('And the follow-up is answered.'));
    const agent = createAgent({
      model,
      tools: [readFile],
      systemPrompt: SYSTEM_PROMPT,
      checkpointer: new MemorySaver(),
      middleware: [
        contextCompressionMiddleware({
          contextWindow: 6_000,
          reserveOutputTokens: 500,
          summarizer: async ({ messages, previous }) => {
            summaries++;
            return {
              logos: [...(previous?.logos ?? []), `read ${messages.length} messages`],
              pathos: [],
              abstract: [],
              conversationSummary: 'Reading files.',
            };
          },
        }),
      ],
    });
    const thread = { configurable: { thread_id: 'thread-1' }, recursionLimit: 100 };
    await agent.invoke({ messages: [new HumanMessage('Fix the bug.')] }, thread);
    const afterFirst = summaries;
    const second = await agent.invoke({ messages: [new HumanMessage('Now explain the fix.')] }, thread);
    expect(afterFirst).toBeGreaterThan(0);
    // the checkpointed history is whole, and the follow-up's prompt reuses the stored state: no new fold was needed
    expect(second.messages).toHaveLength(42 + 2);
    expect(summaries).toBe(afterFirst);
    expect(hasState(model.calls.at(-1)?.messages ?? [])).toBe(true);
  });

  it('per-run options reach the middleware: disable sends the full history', async () => {
    const model = scriptedModel(20);
    const agent = compressedAgent(model);
    await agent.invoke(
      { messages: [new HumanMessage('Fix the bug.')] },
      { recursionLimit: 100, configurable: { 'context-compression': { disable: true } } },
    );
    expect(model.calls.at(-1)?.messages).toHaveLength(1 + 1 + 20 * 2);
  });
});

describe('contextCompressionMiddleware with a model whose context window is unknown', () => {
  const input = { messages: [new HumanMessage('Fix the bug.')] };

  it('fails at the first model call, before the model runs, naming its own contextWindow option', async () => {
    const model = scriptedModel(1);
    const agent = createAgent({ model, tools: [readFile], middleware: [contextCompressionMiddleware()] });
    const error = await agent.invoke(input).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    // langchain wraps what a middleware throws in its MiddlewareError, with the same message
    expect(UnknownContextWindowError.isInstance(error?.cause)).toBe(true);
    expect(error?.message).toBe(
      `The context window of model "${model._llmType()}" is not known. Pass it as the \`contextWindow\` option, e.g. contextCompressionMiddleware({ contextWindow: 128_000 }).`,
    );
    expect(model.callCount).toBe(0);
  });

  it('fails so even on a run with compression disabled: the agent is misconfigured either way', async () => {
    const model = scriptedModel(1);
    const agent = createAgent({ model, tools: [readFile], middleware: [contextCompressionMiddleware()] });
    const disabled = { configurable: { 'context-compression': { disable: true } } };
    await expect(agent.invoke(input, disabled)).rejects.toThrow('contextCompressionMiddleware({ contextWindow:');
  });

  it('runs with `contextWindow` given', async () => {
    const model = scriptedModel(3);
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [contextCompressionMiddleware({ contextWindow: 32_000 })],
    });
    const result = await agent.invoke(input, { recursionLimit: 20 });
    expect(result.messages.at(-1)?.text).toBe('Done: the bug is fixed.');
    expect(model.callCount).toBe(4);
  });
});
