import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createReactAgent, ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { retrievalTool, withContextCompression } from '../../../adapters/langchain/index.js';

const fileContent = (path: string) =>
  `// ${path}\n${Array.from({ length: 50 }, (_, line) => `const value${line} = ${line * 7}; // ${path}`).join('\n')}`;

const readFile = tool(async ({ path }) => fileContent(path), {
  name: 'read_file',
  description: 'Reads a file',
  schema: z.object({ path: z.string() }),
});

const resultOf = (messages: readonly BaseMessage[], id: string) =>
  messages.find((message) => (message as { tool_call_id?: string }).tool_call_id === id)?.text;

const READS = 8;

/** A fake model that reads READS files, then asks the retrieval tool for the first one's result, then is done. */
function readsThenRecall() {
  let model = fakeModel();
  for (let step = 0; step < READS; step++) {
    model = model.respond(
      new AIMessage({
        content: `Reading file ${step}.`,
        tool_calls: [{ name: 'read_file', args: { path: `src/file${step}.ts` }, id: `call-${step}` }],
      }),
    );
  }
  return model
    .respond(
      new AIMessage({
        content: 'I need file 0 again, exactly.',
        tool_calls: [{ name: 'retrieve_tool_results', args: { toolCallIds: ['call-0'] }, id: 'recall-1' }],
      }),
    )
    .respond(new AIMessage('Done.'));
}

describe('the retrieval tool in a LangGraph prebuilt createReactAgent', () => {
  // v1 runs the tool calls of a step in one node, v2 sends each to the tool node on its own
  it.each(['v1', 'v2'] as const)(
    'gives back a masked result verbatim at the end of the prompt (%s)',
    async (version) => {
      const model = readsThenRecall();
      const agent = createReactAgent({
        llm: withContextCompression(model, {
          contextWindow: 8_000,
          reserveOutputTokens: 500,
          masking: { keepRecent: 2, clearAtLeast: 500 },
        }),
        tools: [readFile, retrievalTool()],
        prompt: 'You are a coding agent.',
        version,
      });
      const result = await agent.invoke({ messages: [new HumanMessage('Find where value7 is defined.')] });
      expect(result.messages.at(-1)?.text).toBe('Done.');
      expect(model.calls).toHaveLength(READS + 2);
      const before = model.calls[READS]?.messages ?? [];
      const after = model.calls[READS + 1]?.messages ?? [];
      // fakeModel keeps the tools bindTools gave it on itself, not in its call options: they are recognized all the same
      expect(resultOf(before, 'call-0')).toMatch(
        /cleared to save context.*retrieve_tool_results gives it back verbatim \(call id "call-0"\)/s,
      );
      expect(resultOf(after, 'recall-1')).toBe(
        `Retrieved 1 tool result (call-0) verbatim.\n<tool_result id="call-0" tool="read_file">\n${fileContent('src/file0.ts')}\n</tool_result>`,
      );
      expect(after.slice(0, before.length).map((message) => JSON.stringify(message.toDict()))).toEqual(
        before.map((message) => JSON.stringify(message.toDict())),
      );
    },
  );
});

describe('the retrieval tool in a StateGraph of your own with a ToolNode', () => {
  it('reads the graph state’s messages and gives back a masked result verbatim', async () => {
    const model = readsThenRecall();
    const llm = withContextCompression(model, {
      contextWindow: 8_000,
      reserveOutputTokens: 500,
      masking: { keepRecent: 2, clearAtLeast: 500 },
    });
    const tools = [readFile, retrievalTool()];
    const bound = llm.bindTools(tools);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await bound.invoke(state.messages)] }))
      .addNode('tools', new ToolNode(tools))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', (state) =>
        ((state.messages.at(-1) as AIMessage).tool_calls?.length ?? 0) > 0 ? 'tools' : END,
      )
      .addEdge('tools', 'agent')
      .compile();
    const result = await graph.invoke(
      { messages: [new HumanMessage('Find where value7 is defined.')] },
      { recursionLimit: 50 },
    );
    expect(result.messages.at(-1)?.text).toBe('Done.');
    const after = model.calls[READS + 1]?.messages ?? [];
    expect(resultOf(after, 'recall-1')).toBe(
      `Retrieved 1 tool result (call-0) verbatim.\n<tool_result id="call-0" tool="read_file">\n${fileContent('src/file0.ts')}\n</tool_result>`,
    );
  });
});
