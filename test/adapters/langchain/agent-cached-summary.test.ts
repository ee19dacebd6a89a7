import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { RunnableLambda } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { type AgentMiddleware, createAgent, createMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CompressEvent, contextCompressionMiddleware } from '../../../adapters/langchain/index.js';
import { RecordingChatModel } from '../../helpers/langchain.js';

/** A fold's summary in a `createAgent` loop by the agent's own model, as a continuation of its cached request. */

const STATE = {
  logos: ['The parser bug is in src/file3.ts.'],
  pathos: [],
  abstract: [],
  salience: [],
  conversationSummary: 'The agent read the parser files one by one.',
};
const STEPS = 30;
const text = (message: BaseMessage | undefined) => (typeof message?.content === 'string' ? message.content : '');
const isSummaryRequest = (messages: readonly BaseMessage[]) => text(messages.at(-1)).startsWith('[Memory update');

const readFile = tool(
  async ({ path }) =>
    `// ${path}\n${Array.from({ length: 150 }, (_, line) => `const v${line} = parse(input${line}, '${path}');`).join('\n')}`,
  { name: 'read_file', description: 'Reads a file', schema: z.object({ path: z.string() }) },
);

/** Reads a file per step, then answers; a summary request gets the state; its usage says whether it caches. */
class AgentModel extends RecordingChatModel {
  readonly boundTools: unknown[] = [];

  constructor(private readonly caching: boolean) {
    super({ model: 'agent-model' });
  }

  private steps = 0;
  /** Summary requests made apart from the agent's calls (through `withStructuredOutput`). */
  separate = 0;

  // biome-ignore lint/suspicious/noExplicitAny: the overloads of withStructuredOutput are not needed by this fake
  override withStructuredOutput(): any {
    return RunnableLambda.from(async () => {
      this.separate++;
      return STATE;
    });
  }

  // biome-ignore lint/suspicious/noExplicitAny: the call options are read for the tools bound alone
  override async _generate(messages: BaseMessage[], options?: any): Promise<ChatResult> {
    this.calls.push(messages);
    const tools = (options as { tools?: unknown[] } | undefined)?.tools;
    this.boundTools.push(tools);
    const input = Math.round(JSON.stringify(messages.map((message) => message.content)).length / 4);
    const usage_metadata = {
      input_tokens: input,
      output_tokens: 20,
      total_tokens: input + 20,
      ...(this.caching && { input_token_details: { cache_read: Math.round(input / 2) } }),
    };
    const step = isSummaryRequest(messages) ? -1 : this.steps++;
    const message = isSummaryRequest(messages)
      ? new AIMessage({ content: JSON.stringify(STATE), usage_metadata })
      : step < STEPS
        ? new AIMessage({
            content: `Step ${step}: reading the next file.`,
            tool_calls: [{ name: 'read_file', args: { path: `src/file${step}.ts` }, id: `call-${step}` }],
            usage_metadata,
          })
        : new AIMessage({ content: 'Done.', usage_metadata });
    return { generations: [{ text: text(message), message }] };
  }
}

async function run(caching: boolean, forceTool = false) {
  const model = new AgentModel(caching);
  const events: CompressEvent[] = [];
  const compression = contextCompressionMiddleware({
    contextWindow: 10_000,
    reserveOutputTokens: 500,
    summarizer: model,
    summarizeAhead: false,
    onCompress: (event) => events.push(event),
  });
  // a middleware outside ours that forces a tool call on every model call
  const forcing = createMiddleware({
    name: 'ForceTool',
    wrapModelCall: (request, handler) => handler({ ...request, toolChoice: 'required' }),
  });
  const middleware: AgentMiddleware[] = forceTool ? [forcing, compression] : [compression];
  const agent = createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You are a coding agent. Read files, then fix the bug.',
    middleware,
  });
  const result = await agent.invoke({ messages: [new HumanMessage('Fix the parser bug.')] }, { recursionLimit: 100 });
  return { model, events, result };
}

const dict = (messages: readonly BaseMessage[]) => messages.map((message) => JSON.stringify(message.toDict()));

describe('a summary by the agent model itself (createAgent middleware)', () => {
  it('continues the previous request message for message and tool for tool, the instruction last', async () => {
    const { model, events, result } = await run(true);
    const summaries = model.calls.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(0);
    expect(model.separate).toBe(0);
    for (const summary of summaries) {
      const index = model.calls.indexOf(summary);
      const before = model.calls[index - 1] as BaseMessage[];
      expect(isSummaryRequest(before)).toBe(false);
      expect(dict(summary.slice(0, before.length))).toEqual(dict(before));
      expect(text(summary.at(-1))).toMatch(/The messages to fold are every message of this conversation above/);
      // the same tools, bound as the agent binds them
      expect(JSON.stringify(model.boundTools[index])).toBe(JSON.stringify(model.boundTools[index - 1]));
      expect(model.boundTools[index]).toBeDefined();
    }
    const folded = events.find((event) => event.messagesFolded > 0);
    expect(folded?.summarizerUsage).toMatchObject({ model: 'agent-model' });
    // the state made from the continued request reaches the agent's later calls; the agent's history stays whole
    const last = model.calls.filter((call) => !isSummaryRequest(call)).at(-1) ?? [];
    expect(JSON.stringify(last.map((message) => message.content))).toContain('The parser bug is in src/file3.ts.');
    expect(result.messages).toHaveLength(1 + STEPS * 2 + 1);
    expect(result.messages.some((message) => text(message).startsWith('[Memory update'))).toBe(false);
  });

  it('makes a separate request when the agent forces a tool call (a continued request would answer with one)', async () => {
    const { model, events } = await run(true, true);
    expect(model.calls.filter(isSummaryRequest)).toHaveLength(0);
    expect(model.separate).toBeGreaterThan(0);
    expect(events.filter((event) => event.messagesFolded > 0)).toHaveLength(model.separate);
  });

  it('makes a separate request when the provider showed no prompt cache', async () => {
    const { model, events } = await run(false);
    expect(model.calls.filter(isSummaryRequest)).toHaveLength(0);
    expect(model.separate).toBeGreaterThan(0);
    expect(events.filter((event) => event.messagesFolded > 0)).toHaveLength(model.separate);
  });
});
