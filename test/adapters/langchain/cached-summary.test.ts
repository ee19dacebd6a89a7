import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { describe, expect, it } from 'vitest';
import { type CompressEvent, withContextCompression } from '../../../adapters/langchain/index.js';
import { RecordingChatModel } from '../../helpers/langchain.js';

/** A fold's summary by the wrapped LangChain model itself, as a continuation of its cached prompt. */

const STATE = {
  logos: ['The user asked about the release plan.'],
  pathos: [],
  abstract: [],
  salience: [],
  conversationSummary: 'A long talk about the release.',
};
const text = (message: BaseMessage | undefined) => (typeof message?.content === 'string' ? message.content : '');
const isSummaryRequest = (messages: readonly BaseMessage[]) => text(messages.at(-1)).startsWith('[Memory update');

/** Answers a summary request with the state, every other call with a long reply; its usage says it caches. */
class CachingModel extends RecordingChatModel {
  constructor(private readonly caching: boolean) {
    super({ model: 'release-model' });
  }

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const content = isSummaryRequest(messages)
      ? JSON.stringify(STATE)
      : `Here is more on the plan. ${'The release needs review and sign-off. '.repeat(60)}`;
    const input = JSON.stringify(messages.map((message) => message.content)).length / 4;
    const message = new AIMessage({
      content,
      usage_metadata: {
        input_tokens: Math.round(input),
        output_tokens: 50,
        total_tokens: Math.round(input) + 50,
        ...(this.caching && { input_token_details: { cache_read: Math.round(input / 2) } }),
      },
    });
    return { generations: [{ text: content, message }] };
  }
}

/** The caching model, streaming its reply in two chunks, the usage on the last (as OpenAI and Anthropic stream it). */
class StreamingCachingModel extends CachingModel {
  override async *_streamResponseChunks(messages: BaseMessage[]): AsyncGenerator<ChatGenerationChunk> {
    const { generations } = await this._generate(messages);
    const message = generations[0]?.message as AIMessage;
    const text = message.text;
    const half = Math.floor(text.length / 2);
    yield new ChatGenerationChunk({ text: text.slice(0, half), message: new AIMessageChunk(text.slice(0, half)) });
    yield new ChatGenerationChunk({
      text: text.slice(half),
      message: new AIMessageChunk({ content: text.slice(half), usage_metadata: message.usage_metadata }),
    });
  }
}

async function chat(caching: boolean, streamed = false) {
  const model = streamed ? new StreamingCachingModel(caching) : new CachingModel(caching);
  const events: CompressEvent[] = [];
  const wrapped = withContextCompression(model, {
    contextWindow: 12_000,
    summarizer: model,
    summarizeAhead: false,
    onCompress: (event) => events.push(event),
  });
  const history: BaseMessage[] = [];
  for (let turn = 0; turn < 16; turn++) {
    history.push(new HumanMessage(`Question ${turn}: ${'What about the release timeline and the risks? '.repeat(20)}`));
    if (!streamed) {
      history.push(await wrapped.invoke(history));
      continue;
    }
    let answer: AIMessageChunk | undefined;
    for await (const chunk of await wrapped.stream(history)) answer = answer ? answer.concat(chunk) : chunk;
    history.push(new AIMessage({ content: answer?.text ?? '' }));
  }
  return { calls: model.calls, events };
}

/** The summary requests among the calls, each checked to begin with the request before it, message for message. */
function expectContinued(calls: readonly BaseMessage[][]): BaseMessage[][] {
  const summaries = calls.filter(isSummaryRequest);
  expect(summaries.length).toBeGreaterThan(0);
  for (const summary of summaries) {
    const before = calls[calls.indexOf(summary) - 1] as BaseMessage[];
    expect(summary.slice(0, before.length).map((message) => JSON.stringify(message.toDict()))).toEqual(
      before.map((message) => JSON.stringify(message.toDict())),
    );
  }
  return summaries;
}

describe('a summary by the wrapped model itself (LangChain)', () => {
  it('continues the previous request message for message, with the instruction as the last message', async () => {
    const { calls, events } = await chat(true);
    for (const summary of expectContinued(calls)) {
      expect(text(summary.at(-1))).toMatch(/The messages to fold are every message of this conversation above/);
    }
    expect(events.find((event) => event.messagesFolded > 0)?.summarizerUsage).toMatchObject({ model: 'release-model' });
    const last = calls.filter((call) => !isSummaryRequest(call)).at(-1);
    expect(JSON.stringify(last?.map((message) => message.content))).toContain('The user asked about the release plan.');
  });

  it('continues a request that was streamed, from the usage its chunks reported', async () => {
    const { calls, events } = await chat(true, true);
    expectContinued(calls);
    expect(events.find((event) => event.messagesFolded > 0)?.summarizerUsage).toMatchObject({ model: 'release-model' });
  });

  it('makes a separate request when the provider showed no prompt cache', async () => {
    const { calls } = await chat(false);
    expect(calls.filter(isSummaryRequest)).toHaveLength(0);
  });
});
