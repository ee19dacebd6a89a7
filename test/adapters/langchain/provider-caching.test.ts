import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { generateText, type ModelMessage, streamText } from 'ai';
import { createAgent } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  compressionReport as compressionReportOfAiSdk,
  withContextCompression as withAiSdkCompression,
} from '../../../adapters/ai-sdk/index.js';
import {
  type CompressionReport,
  compressionReport,
  contextCompressionMiddleware,
  withContextCompression,
} from '../../../adapters/langchain/index.js';
import { type ProviderServer, startProviderServer } from '../../providers/provider-server.js';

/**
 * Anthropic caches a prompt only up to the `cache_control` marks it is sent. Through `@langchain/anthropic` against a
 * local server that takes the API's requests, a compressed LangChain prompt gets the marks the AI SDK adapter places
 * (the end of the system prompt, of the state pair, before the recall pair, the end), at the same places of the same
 * request, and consecutive calls of a conversation share the prefix up to them.
 */
type Block = Record<string, unknown> & { content?: unknown };
type Body = {
  system?: string | Block[];
  messages: Array<{ role: string; content: string | Block[] }>;
  tools?: Block[];
};

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer({ window: 200_000 });
});
afterAll(() => server.close());

const SYSTEM = 'You are a deployment assistant.';
const WINDOW = 8_000;

/** A long chat: 40 turns about deployments, long enough to fold at an 8k window. */
const chat = (turns = 40): Array<{ role: 'user' | 'assistant'; text: string }> =>
  Array.from({ length: turns }, (_, turn) => [
    { role: 'user' as const, text: `Turn ${turn}: why did the deploy of service-${turn} fail? ${'Logs. '.repeat(30)}` },
    { role: 'assistant' as const, text: `Service-${turn} timed out. ${'Raise the timeout. '.repeat(20)}` },
  ]).flat();

const bodiesSince = (from: number) => server.requests.slice(from).map((request) => request.body as Body);

/** The blocks of a content as Anthropic reads it: a string is the one text block it stands for. */
const blocksOf = (content: string | Block[] | undefined): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);

const marked = (block: Block) =>
  block.cache_control != null || (Array.isArray(block.content) && (block.content as Block[]).some(marked));

/** Where the body's cache_control marks are: 'system:i', 'message:i', 'tool:i'. */
function breakpoints(body: Body): string[] {
  const found: string[] = [];
  for (const [index, block] of blocksOf(body.system).entries()) if (marked(block)) found.push(`system:${index}`);
  for (const [index, message] of body.messages.entries())
    for (const block of blocksOf(message.content)) if (marked(block)) found.push(`message:${index}`);
  for (const [index, definition] of (body.tools ?? []).entries()) if (marked(definition)) found.push(`tool:${index}`);
  return found;
}

/** A block as the cache reads it: without its mark, a tool result's content as blocks. */
function plain(block: Block): Block {
  const { cache_control: _mark, ...rest } = block;
  if (rest.type === 'tool_result' && rest.content !== undefined)
    return { ...rest, content: blocksOf(rest.content as string | Block[]).map(plain) };
  return rest;
}

/** The request as the cache reads it, block by block: system blocks, then each message's blocks with its role. */
const cacheBlocks = (body: Body): string[] => [
  ...blocksOf(body.system).map((block) => JSON.stringify(plain(block))),
  ...body.messages.flatMap((message) =>
    blocksOf(message.content).map((block) => `${message.role}:${JSON.stringify(plain(block))}`),
  ),
];

const chatAnthropic = (options: Partial<ConstructorParameters<typeof ChatAnthropic>[0]> = {}) =>
  new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'test',
    maxRetries: 0,
    clientOptions: { baseURL: server.baseURL('anthropic', 'langchain') },
    ...options,
  });

const langchainMessages = (turns: ReturnType<typeof chat>, system = SYSTEM): BaseMessage[] => [
  new SystemMessage(system),
  ...turns.map((turn) => (turn.role === 'user' ? new HumanMessage(turn.text) : new AIMessage(turn.text))),
];

describe('ChatAnthropic: cache breakpoints where the prompt stays the same', () => {
  it('marks the places the AI SDK adapter marks, in a request the cache reads as the same', async () => {
    const history = chat().slice(0, -1);
    const from = server.requests.length;
    const aiSdk = withAiSdkCompression(
      createAnthropic({ baseURL: server.baseURL('anthropic'), apiKey: 'test' })('claude-sonnet-4-5'),
      { contextWindow: WINDOW },
    );
    const messages: ModelMessage[] = history.map((turn) => ({ role: turn.role, content: turn.text }));
    await generateText({ model: aiSdk, system: SYSTEM, messages, maxRetries: 0 });
    const langchain = withContextCompression(chatAnthropic(), { contextWindow: WINDOW });
    const answer = await langchain.invoke(langchainMessages(history));
    expect((answer.response_metadata['context-compression'] as CompressionReport).stateInPrompt).toBe(true);
    const [fromAiSdk, fromLangChain] = bodiesSince(from) as [Body, Body];
    const marks = breakpoints(fromLangChain);
    // the system prompt's end, the state pair's acknowledgement, the end: and before a recall pair when there is one
    expect(marks).toEqual(
      expect.arrayContaining(['system:0', 'message:1', `message:${fromLangChain.messages.length - 1}`]),
    );
    expect(marks.length).toBeLessThanOrEqual(4);
    // the AI SDK sends the awareness block as a system block of its own, LangChain within the one system message:
    // both mark the system prompt's last block
    const lastSystem = (body: Body) => (mark: string) =>
      mark === `system:${blocksOf(body.system).length - 1}` ? 'system:end' : mark;
    expect(marks.map(lastSystem(fromLangChain))).toEqual(breakpoints(fromAiSdk).map(lastSystem(fromAiSdk)));
    const messagesOnly = (body: Body) => cacheBlocks({ ...body, system: [] });
    expect(messagesOnly(fromLangChain)).toEqual(messagesOnly(fromAiSdk));
  });

  it('consecutive calls: the next request begins with all of the previous one, its mark moved to the new end', async () => {
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW, recall: false });
    const history = langchainMessages(chat().slice(0, -1));
    const from = server.requests.length;
    await model.invoke(history);
    await model.invoke([...history, new AIMessage('ok'), new HumanMessage('Thanks, go on.')]);
    const [first, second] = bodiesSince(from) as [Body, Body];
    const before = cacheBlocks(first);
    expect(cacheBlocks(second).slice(0, before.length)).toEqual(before);
    expect(breakpoints(second).at(-1)).toBe(`message:${second.messages.length - 1}`);
    // the marks that stayed (system, state pair) are where they were
    expect(breakpoints(second).slice(0, -1)).toEqual(breakpoints(first).slice(0, -1));
  });

  it('a tool loop: the last tool result is marked inside its content, and the next step reads all before it', async () => {
    const readFile = langchainTool(async ({ path }: { path: string }) => `contents of ${path}`, {
      name: 'readFile',
      description: 'Reads a file',
      schema: z.object({ path: z.string() }),
    });
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW }).bindTools([readFile]);
    const steps: BaseMessage[] = [new SystemMessage(SYSTEM), new HumanMessage('Review the repository.')];
    for (let step = 0; step < 30; step++) {
      steps.push(
        new AIMessage({
          content: '',
          tool_calls: [{ id: `call_${step}`, name: 'readFile', args: { path: `f${step}` } }],
        }),
        new ToolMessage({ content: `file ${step}: ${'const value = 1;\n'.repeat(40)}`, tool_call_id: `call_${step}` }),
      );
    }
    const from = server.requests.length;
    await model.invoke(steps);
    await model.invoke([
      ...steps,
      new AIMessage({ content: '', tool_calls: [{ id: 'call_x', name: 'readFile', args: { path: 'x' } }] }),
      new ToolMessage({ content: 'file x', tool_call_id: 'call_x' }),
    ]);
    const [first, second] = bodiesSince(from) as [Body, Body];
    const last = first.messages.at(-1);
    const result = blocksOf(last?.content).at(-1) as Block;
    expect(result.type).toBe('tool_result');
    expect((result.content as Block[]).at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    const before = cacheBlocks(first);
    expect(cacheBlocks(second).slice(0, before.length)).toEqual(before);
    // a tool call message marked as the end of a prompt keeps its call: the tool_use block carries the mark
    expect(breakpoints(second).length).toBeLessThanOrEqual(4);
  });

  it("never more than 4 with the caller's own, which stay where the caller put them", async () => {
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW });
    const history = langchainMessages(chat());
    const ownMark = (text: string) => [{ type: 'text', text, cache_control: { type: 'ephemeral' } }];
    const lastTwo = history
      .slice(-2)
      .map((message) =>
        AIMessage.isInstance(message)
          ? new AIMessage({ content: ownMark(message.text) })
          : new HumanMessage({ content: ownMark(message.text) }),
      );
    const from = server.requests.length;
    await model.invoke([...history.slice(0, -2), ...lastTwo]);
    const [body] = bodiesSince(from) as [Body];
    const marks = breakpoints(body);
    expect(marks.length).toBe(4);
    const count = body.messages.length;
    expect(marks).toEqual(expect.arrayContaining([`message:${count - 2}`, `message:${count - 1}`]));
  });

  it("a call that asks for Anthropic's automatic caching: its end is left to it", async () => {
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW });
    const from = server.requests.length;
    await model.invoke(langchainMessages(chat()), { cache_control: { type: 'ephemeral' } } as never);
    const [body] = bodiesSince(from) as [Body & { cache_control?: unknown }];
    expect(body.cache_control).toEqual({ type: 'ephemeral' });
    expect(breakpoints(body)).not.toContain(`message:${body.messages.length - 1}`);
    expect(breakpoints(body).length).toBeLessThanOrEqual(3);
  });

  it('none with cacheBreakpoints: false, and none for a prompt of another provider', async () => {
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW, cacheBreakpoints: false });
    const from = server.requests.length;
    await model.invoke(langchainMessages(chat()));
    expect(JSON.stringify(bodiesSince(from))).not.toContain('cache_control');
  });

  it('the caller keeps its objects: the messages passed in are not changed', async () => {
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW });
    const history = langchainMessages(chat());
    const copies = history.map((message) => JSON.stringify(message.content));
    await model.invoke(history);
    expect(history.map((message) => JSON.stringify(message.content))).toEqual(copies);
  });

  it('createAgent: the system prompt passed on as it is, the state pair and the end marked', async () => {
    const agent = createAgent({
      model: chatAnthropic(),
      tools: [],
      systemPrompt: SYSTEM,
      middleware: [contextCompressionMiddleware({ contextWindow: WINDOW })],
    });
    const from = server.requests.length;
    await agent.invoke({
      messages: chat()
        .slice(0, -1)
        .map((turn) => (turn.role === 'user' ? new HumanMessage(turn.text) : new AIMessage(turn.text))),
    });
    const [body] = bodiesSince(from) as [Body];
    const marks = breakpoints(body);
    expect(blocksOf(body.system)).toEqual([{ type: 'text', text: SYSTEM }]);
    expect(marks).toEqual(expect.arrayContaining(['message:1', `message:${body.messages.length - 1}`]));
    expect(marks.some((mark) => mark.startsWith('system'))).toBe(false);
  });
});

describe("the provider's cache figures in the report", () => {
  it('LangChain: the next call of a conversation reads the previous prompt from the cache, and its report says so', async () => {
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW, recall: false });
    // a system prompt of its own: no earlier test's request wrote this prefix to the server's cache
    const history = langchainMessages(chat().slice(0, -1), `${SYSTEM} Cache test.`);
    const from = server.requests.length;
    const first = await model.invoke(history);
    const second = await model.invoke([...history, new AIMessage('ok'), new HumanMessage('Thanks, go on.')]);
    const [sentFirst, sentSecond] = server.requests.slice(from);
    const [one, two] = [compressionReport(first), compressionReport(second)];
    // the first call wrote its prompt; the second read all of it
    expect(one?.providerUsage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: sentFirst?.cache?.write });
    expect(one?.providerUsage?.cacheWriteTokens).toBeGreaterThan(0);
    expect(two?.providerUsage?.cacheReadTokens).toBe(sentSecond?.cache?.read);
    expect(two?.providerUsage?.cacheReadTokens).toBeGreaterThanOrEqual((sentFirst?.inputTokens ?? 0) * 0.9);
    expect(two?.providerUsage?.inputTokens).toBe(sentSecond?.inputTokens);
    // our estimate of the cacheable prefix beside it
    expect(two?.cacheablePrefixTokens).toBeGreaterThan(0);
  });

  it('LangChain, streamed: the message the chunks add up to gives the usage of its last chunk', async () => {
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW, recall: false });
    const history = langchainMessages(chat().slice(0, -1));
    await model.invoke(history);
    let whole: Awaited<ReturnType<typeof model.invoke>> | undefined;
    for await (const chunk of await model.stream([...history, new AIMessage('ok'), new HumanMessage('Go on.')]))
      whole = whole ? (whole as never as { concat: (c: unknown) => typeof whole }).concat(chunk) : chunk;
    const report = compressionReport(whole);
    expect(report?.stateInPrompt).toBe(true);
    expect(report?.providerUsage?.cacheReadTokens).toBeGreaterThan(0);
  });

  it('without breakpoints the provider caches nothing: what the report shows', async () => {
    const model = withContextCompression(chatAnthropic(), {
      contextWindow: WINDOW,
      recall: false,
      cacheBreakpoints: false,
    });
    const history = langchainMessages(chat().slice(0, -1), `${SYSTEM} No marks.`);
    await model.invoke(history);
    const second = await model.invoke([...history, new AIMessage('ok'), new HumanMessage('Thanks, go on.')]);
    expect(compressionReport(second)?.providerUsage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('AI SDK: the same figures from @ai-sdk/anthropic, on generateText, its steps and streamText', async () => {
    const model = withAiSdkCompression(
      createAnthropic({ baseURL: server.baseURL('anthropic'), apiKey: 'test' })('claude-sonnet-4-5'),
      { contextWindow: WINDOW, recall: false },
    );
    const messages: ModelMessage[] = chat()
      .slice(0, -1)
      .map((turn) => ({ role: turn.role, content: turn.text }));
    const first = await generateText({ model, system: SYSTEM, messages, maxRetries: 0 });
    const next: ModelMessage[] = [
      ...messages,
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'Go on.' },
    ];
    const streamed = streamText({ model, system: SYSTEM, messages: next, maxRetries: 0 });
    await streamed.consumeStream();
    const report = await compressionReportOfAiSdk(streamed);
    expect(compressionReportOfAiSdk(first)?.providerUsage?.cacheWriteTokens).toBeGreaterThan(0);
    expect(compressionReportOfAiSdk(first.steps[0])).toEqual(compressionReportOfAiSdk(first));
    expect(report?.providerUsage?.cacheReadTokens).toBe(server.requests.at(-1)?.cache?.read);
    expect(report?.providerUsage?.cacheReadTokens).toBeGreaterThan(0);
  });

  it('no report for a call this package did not compress', async () => {
    const plain = await chatAnthropic().invoke([new HumanMessage('Hello')]);
    expect(compressionReport(plain)).toBeUndefined();
    const model = withContextCompression(chatAnthropic(), { contextWindow: WINDOW });
    const disabled = await model.invoke([new HumanMessage('Hello')], {
      configurable: { 'context-compression': { disable: true } },
    });
    expect(compressionReport(disabled)).toBeUndefined();
    expect(compressionReportOfAiSdk({ providerMetadata: { other: { a: 1 } } })).toBeUndefined();
    expect(compressionReportOfAiSdk(undefined)).toBeUndefined();
  });
});
