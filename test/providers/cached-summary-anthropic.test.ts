import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompressEvent, withContextCompression as withAiSdkCompression } from '../../adapters/ai-sdk/index.js';
import { withContextCompression } from '../../adapters/langchain/index.js';
import { type ProviderRequest, type ProviderServer, startProviderServer } from './provider-server.js';

/**
 * A fold's summary by the agent's own Claude model, through `@ai-sdk/anthropic` and `@langchain/anthropic` against a
 * local server whose prompt cache follows Anthropic's rules (tools, system, then messages; a prefix is read only up to
 * a `cache_control` mark written before): the summary request repeats the request before it, tools and system and
 * messages, so the provider reads that prefix from its cache, and only the messages since and the instruction are new.
 */
type Block = Record<string, unknown>;
type Body = {
  system?: string | Block[];
  tools?: Block[];
  messages: Array<{ role: string; content: string | Block[] }>;
};

const STATE = {
  logos: ['The deploy of service-3 failed on a timeout.'],
  pathos: [],
  abstract: [],
  salience: [],
  conversationSummary: 'The assistant read the deploy logs service by service.',
};
const WINDOW = 12_000;

const blocksOf = (content: string | Block[] | undefined): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
const lastText = (body: Body) => {
  const last = body.messages.at(-1);
  return last?.role === 'user'
    ? blocksOf(last.content)
        .map((block) => String(block.text ?? ''))
        .join('')
    : '';
};
const isSummaryRequest = (request: ProviderRequest) => lastText(request.body as Body).startsWith('[Memory update');
/** A block as the cache compares it: without its mark. */
const plain = ({ cache_control: _mark, ...rest }: Block) => rest;
/** The messages' blocks in order, each with its role: what the cache keys (consecutive user turns are merged). */
const plainBlocks = (body: Body) =>
  body.messages.flatMap((message) =>
    blocksOf(message.content).map((block) => `${message.role}:${JSON.stringify(plain(block))}`),
  );

let server: ProviderServer;
let step = 0;
beforeAll(async () => {
  server = await startProviderServer({
    window: 200_000,
    // a summary request is answered with the state; an agent step reads the next log; a chat turn gets a long answer
    reply: (request) => {
      const body = request.body as Body;
      if (isSummaryRequest(request)) return { text: JSON.stringify(STATE) };
      if ((body.tools ?? []).length > 0 && step < 28)
        return { toolCalls: [{ name: 'read_log', args: { service: `service-${step++}` } }] };
      return { text: `Noted. ${'The deploy needs a longer timeout and a retry. '.repeat(25)}` };
    },
  });
});
afterAll(() => server.close());

/** Every summary request with the request before it, checked to continue it as Anthropic's cache reads it. */
function expectContinued(requests: readonly ProviderRequest[]) {
  const summaries = requests.filter(isSummaryRequest);
  expect(summaries.length).toBeGreaterThan(0);
  for (const summary of summaries) {
    const before = requests[requests.indexOf(summary) - 1] as ProviderRequest;
    const [next, previous] = [summary.body as Body, before.body as Body];
    expect(isSummaryRequest(before)).toBe(false);
    // the same tools and system, the previous messages first
    expect((next.tools ?? []).map(plain)).toEqual((previous.tools ?? []).map(plain));
    expect(blocksOf(next.system).map(plain)).toEqual(blocksOf(previous.system).map(plain));
    expect(plainBlocks(next).slice(0, plainBlocks(previous).length)).toEqual(plainBlocks(previous));
    // the provider read the previous request from its cache: most of the summary's input
    expect(summary.cache?.read).toBeGreaterThan(0);
    expect(summary.cache?.read ?? 0).toBeGreaterThanOrEqual(0.7 * summary.inputTokens);
  }
  return summaries;
}

describe('a summary continuing the cached prompt, against the Anthropic API', () => {
  it('@ai-sdk/anthropic: a tool loop whose folds are summarized by its own model read from the cache', async () => {
    step = 0;
    const base = createAnthropic({ baseURL: server.baseURL('anthropic'), apiKey: 'test' })('claude-sonnet-4-5');
    const events: CompressEvent[] = [];
    const model = withAiSdkCompression(base, {
      contextWindow: WINDOW,
      reserveOutputTokens: 1_000,
      // the folds are what is tested: older reads are not masked first
      masking: false,
      summarizer: base,
      summarizeAhead: false,
      onCompress: (event) => events.push(event),
    });
    const from = server.requests.length;
    await generateText({
      model,
      maxOutputTokens: 1_000,
      system: 'You are a deploy assistant. Read the logs of every service, then say what failed.',
      prompt: 'Why did the deploys fail?',
      tools: {
        read_log: tool({
          description: 'Reads the deploy log of a service',
          inputSchema: jsonSchema<{ service: string }>({
            type: 'object',
            properties: { service: { type: 'string' } },
            required: ['service'],
          }),
          execute: async ({ service }) =>
            Array.from(
              { length: 50 },
              (_, line) => `${service} line ${line}: waiting for health check on node-${line % 7}`,
            ).join('\n'),
        }),
      },
      stopWhen: stepCountIs(30),
      maxRetries: 0,
    });
    const summaries = expectContinued(server.requests.slice(from));
    const fold = events.find((event) => event.messagesFolded > 0);
    expect(fold?.summarizerUsage?.cacheReadTokens).toBe(summaries[0]?.cache?.read);
  });

  it('@langchain/anthropic: a chat whose folds are summarized by its own model read from the cache', async () => {
    const base = new ChatAnthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'test',
      maxRetries: 0,
      maxTokens: 1_000,
      clientOptions: { baseURL: server.baseURL('anthropic', 'langchain') },
    });
    const model = withContextCompression(base, {
      contextWindow: WINDOW,
      summarizer: base,
      summarizeAhead: false,
      recall: false,
    });
    const from = server.requests.length;
    const history: BaseMessage[] = [new SystemMessage('You are a deploy assistant.')];
    for (let turn = 0; turn < 24; turn++) {
      history.push(new HumanMessage(`Turn ${turn}: why did service-${turn} fail? ${'Logs attached. '.repeat(30)}`));
      const answer = await model.invoke(history);
      history.push(new AIMessage(answer.text));
    }
    expectContinued(server.requests.slice(from));
  });
});
