import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contextCompressionMiddleware, retrievalTool } from '../../../adapters/langchain/index.js';

const fileContent = (path: string) =>
  `// ${path}\n${Array.from({ length: 50 }, (_, line) => `const value${line} = ${line * 7}; // ${path}`).join('\n')}`;

const readFile = tool(async ({ path }) => fileContent(path), {
  name: 'read_file',
  description: 'Reads a file',
  schema: z.object({ path: z.string() }),
});

const resultOf = (messages: readonly BaseMessage[], id: string) =>
  messages.find((message) => (message as { tool_call_id?: string }).tool_call_id === id)?.text;

/** A fake model that reads `reads` files, then asks `fetch_hidden` for the first one's result, then is done. */
function readsThenRecall(reads: number, recallText: string) {
  let model = fakeModel();
  for (let step = 0; step < reads; step++) {
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
        content: recallText,
        tool_calls: [{ name: 'fetch_hidden', args: { toolCallIds: ['call-0'] }, id: 'recall-1' }],
      }),
    )
    .respond(new AIMessage('Done.'));
}

describe('the retrieval tool in a createAgent loop', () => {
  it('gives back a masked result verbatim at the end of the prompt; everything before stays as it was', async () => {
    const reads = 8;
    const model = readsThenRecall(reads, 'I need file 0 again, exactly.');
    const agent = createAgent({
      model,
      tools: [readFile, retrievalTool({ name: 'fetch_hidden' })],
      systemPrompt: 'You are a coding agent.',
      middleware: [
        contextCompressionMiddleware({
          contextWindow: 8_000,
          reserveOutputTokens: 500,
          masking: { keepRecent: 2, clearAtLeast: 500 },
        }),
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('Find where value7 is defined.')] });
    expect(result.messages.at(-1)?.text).toBe('Done.');
    const before = model.calls[reads]?.messages ?? [];
    const after = model.calls[reads + 1]?.messages ?? [];
    const placeholder = resultOf(before, 'call-0') ?? '';
    expect(placeholder).toMatch(/cleared to save context/);
    expect(placeholder).toContain('fetch_hidden gives it back verbatim (call id "call-0")');
    const recalled = resultOf(after, 'recall-1') ?? '';
    expect(recalled).toContain(
      `<tool_result id="call-0" tool="read_file">\n${fileContent('src/file0.ts')}\n</tool_result>`,
    );
    expect(after.slice(0, before.length).map((message) => JSON.stringify(message.toDict()))).toEqual(
      before.map((message) => JSON.stringify(message.toDict())),
    );
  });

  it('lists the calls a fold took out in the state, and the model recalls one by the id it finds there', async () => {
    const reads = 8;
    const model = readsThenRecall(reads, 'The state lists call-0.');
    const agent = createAgent({
      model,
      tools: [readFile, retrievalTool({ name: 'fetch_hidden' })],
      middleware: [contextCompressionMiddleware({ contextWindow: 6_000, reserveOutputTokens: 500, masking: false })],
    });
    await agent.invoke({ messages: [new HumanMessage('Find where value7 is defined.')] });
    const before = model.calls[reads]?.messages ?? [];
    const after = model.calls[reads + 1]?.messages ?? [];
    // call-0 was folded: its result is out of the prompt, and the state names the call
    expect(resultOf(before, 'call-0')).toBeUndefined();
    const state = before.find((message) => message.text.includes('<session_state>'))?.text ?? '';
    expect(state).toContain('"toolCalls"');
    expect(state).toContain('call-0 read_file({\\"path\\":\\"src/file0.ts\\"})');
    expect(resultOf(after, 'recall-1')).toContain(fileContent('src/file0.ts'));
  });

  it('outside createAgent, reads the conversation from the source it is given', async () => {
    const history: BaseMessage[] = [
      new HumanMessage('Go.'),
      new AIMessage({ content: '', tool_calls: [{ name: 'read_file', args: { path: 'a.ts' }, id: 'c1' }] }),
      new ToolMessage({ content: fileContent('a.ts'), tool_call_id: 'c1' }),
    ];
    const recall = retrievalTool({ messages: () => history });
    expect(await recall.invoke({ toolCallIds: ['c1'] })).toContain(fileContent('a.ts'));
    expect(await retrievalTool().invoke({ toolCallIds: ['c1'] })).toMatch(/cannot see the conversation/);
  });
});
