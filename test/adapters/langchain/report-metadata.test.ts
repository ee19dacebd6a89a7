import { InMemoryCache } from '@langchain/core/caches';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
} from '@langchain/core/messages';
import type { ChatGeneration } from '@langchain/core/outputs';
import { RunnableLambda } from '@langchain/core/runnables';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import {
  type CompressionReport,
  contextCompressionMiddleware,
  withContextCompression,
} from '../../../adapters/langchain/index.js';
import { RecordingChatModel, StreamingRecordingChatModel } from '../../helpers/langchain.js';

/** A support chat of `turns` user/assistant pairs, then a question: about 2,100 tokens at 30 turns. */
function chat(turns: number): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage('You are a billing support agent.')];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(new HumanMessage(`Turn ${turn}: invoice INV-${1000 + turn}. ${'More detail. '.repeat(10)}`));
    messages.push(new AIMessage(`Answer ${turn}: ${'Here is what I found. '.repeat(6)}`));
  }
  messages.push(new HumanMessage('And the last one?'));
  return messages;
}

const options = { contextWindow: 2_000, reserveOutputTokens: 200 };

/** Records the custom events and the chat model runs a call's handlers hear. */
class Listener extends BaseCallbackHandler {
  name = 'listener';
  readonly events: { name: string; data: CompressionReport; runId: string }[] = [];
  readonly modelRuns: string[] = [];
  override async handleCustomEvent(name: string, data: unknown, runId: string) {
    this.events.push({ name, data: data as CompressionReport, runId });
  }
  override async handleChatModelStart(_llm: unknown, _messages: unknown, runId: string) {
    this.modelRuns.push(runId);
  }
}

const reportOf = (message: BaseMessage | undefined) =>
  (message?.response_metadata as Record<string, unknown> | undefined)?.['context-compression'] as
    | CompressionReport
    | undefined;
const json = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("the call's report in LangChain: response_metadata and a custom callback event", () => {
  it('is on an invoked answer that folded, and dispatched as an event of the model run', async () => {
    const model = withContextCompression(new RecordingChatModel({ model: 'gpt-4o' }), options);
    const listener = new Listener();
    const answer = await model.invoke(chat(30), { callbacks: [listener] });
    const report = reportOf(answer);
    expect(report).toMatchObject({ stateInPrompt: true, change: { trigger: 'budget' } });
    expect(report?.change?.messagesFolded).toBeGreaterThan(0);
    expect(report?.promptTokens).toBeLessThan(report?.historyTokens as number);
    expect(listener.events).toHaveLength(1);
    expect(listener.events[0]).toMatchObject({ name: 'context-compression', runId: listener.modelRuns[0] });
    expect(json(listener.events[0]?.data)).toEqual(json(report));
  });

  it('is on a call that changed nothing, without a change', async () => {
    const model = withContextCompression(new RecordingChatModel({ model: 'gpt-4o' }), options);
    const answer = await model.invoke([new HumanMessage('Hello?')]);
    expect(json(reportOf(answer))).toEqual({
      historyTokens: expect.any(Number),
      promptTokens: expect.any(Number),
      cacheablePrefixTokens: 0,
      messagesOutOfPrompt: 0,
      stateInPrompt: false,
    });
  });

  it('is on the chunks of a stream (the first), so on the message they add up to', async () => {
    const model = withContextCompression(new StreamingRecordingChatModel({ model: 'gpt-4o' }), options);
    const listener = new Listener();
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await model.stream(chat(30), { callbacks: [listener] }))
      whole = whole ? whole.concat(chunk) : chunk;
    expect(whole?.text).toBe('streamed reply');
    expect(reportOf(whole)).toMatchObject({ stateInPrompt: true, change: { trigger: 'budget' } });
    expect(listener.events.map(({ name, runId }) => [name, runId])).toEqual([
      ['context-compression', listener.modelRuns[0]],
    ]);
  });

  it('is an on_custom_event of streamEvents (v2)', async () => {
    const model = withContextCompression(new StreamingRecordingChatModel({ model: 'gpt-4o' }), options);
    const custom: unknown[] = [];
    for await (const event of model.streamEvents(chat(30), { version: 'v2' }))
      if (event.event === 'on_custom_event') custom.push(event);
    expect(custom).toEqual([
      expect.objectContaining({ name: 'context-compression', data: expect.objectContaining({ stateInPrompt: true }) }),
    ]);
  });

  it('is on each answer of a batch, each with its own report', async () => {
    const model = withContextCompression(new RecordingChatModel({ model: 'gpt-4o' }), options);
    const listener = new Listener();
    const [long, short] = await model.batch([chat(30), [new HumanMessage('Hi')]], { callbacks: [listener] });
    expect(reportOf(long)?.change?.trigger).toBe('budget');
    expect(reportOf(short)).toMatchObject({ messagesOutOfPrompt: 0 });
    expect(reportOf(short)).not.toHaveProperty('change');
    expect(listener.events).toHaveLength(2);
  });

  it('is on the answers of a createAgent loop (the middleware) and heard by its callback handler', async () => {
    let model = fakeModel();
    for (let step = 0; step < 3; step++)
      model = model.respond(new AIMessage(`Answer ${step}: ${'Here is what I found. '.repeat(6)}`));
    const agent = createAgent({ model, middleware: [contextCompressionMiddleware(options)] });
    const listener = new Listener();
    const result = await agent.invoke({ messages: chat(30) }, { callbacks: [listener] });
    const answer = result.messages.at(-1);
    expect(reportOf(answer)).toMatchObject({ stateInPrompt: true, change: { trigger: 'budget' } });
    expect(listener.events).toHaveLength(1);
    expect(json(listener.events[0]?.data)).toEqual(json(reportOf(answer)));
  });
});

describe('the custom event of a model whose _generate streams', () => {
  it('is dispatched once per run', async () => {
    class StreamingGenerate extends StreamingRecordingChatModel {
      // as some providers do: `_generate` streams, handing on its options and run
      override async _generate(messages: BaseMessage[], ...rest: unknown[]) {
        const stream = this._streamResponseChunks as (...args: unknown[]) => AsyncIterable<{ text: string }>;
        let text = '';
        for await (const chunk of stream.call(this, messages, ...rest)) text += chunk.text;
        return { generations: [{ text, message: new AIMessage(text) }] };
      }
    }
    const model = withContextCompression(new StreamingGenerate({ model: 'gpt-4o' }), options);
    const listener = new Listener();
    const answer = await model.invoke(chat(30), { callbacks: [listener] });
    expect(answer.text).toBe('streamed reply');
    expect(listener.events).toHaveLength(1);
    expect(reportOf(answer)?.change?.trigger).toBe('budget');
  });
});

describe('models the wrapper reports for without changing how LangChain runs them', () => {
  it('a model with its own _streamIterator but no _streamResponseChunks still runs under streamEvents', async () => {
    class IteratorOnly extends RecordingChatModel {
      override async *_streamIterator(input: BaseLanguageModelInput, options?: this['ParsedCallOptions']) {
        yield (await this.invoke(input, options)) as AIMessageChunk;
      }
    }
    const model = withContextCompression(new IteratorOnly({ model: 'gpt-4o' }), options);
    const chain = RunnableLambda.from((messages: BaseMessage[]) => model.invoke(messages));
    const custom: string[] = [];
    for await (const event of chain.streamEvents(chat(30), { version: 'v2' }))
      if (event.event === 'on_custom_event') custom.push(event.name);
    expect(custom).toEqual(['context-compression']);
  });

  it('with a cache, each answer of a batch carries its own report, and no run is told another prompt’s', async () => {
    const inner = new RecordingChatModel({ model: 'gpt-4o' });
    inner.cache = new InMemoryCache();
    const model = withContextCompression(inner, options);
    await model.invoke([new HumanMessage('Hi')]);
    const listener = new Listener();
    const { generations } = await model.generate([[new HumanMessage('Hi')], chat(30)], { callbacks: [listener] });
    const [short, long] = generations.map((generation) => reportOf((generation[0] as ChatGeneration).message));
    expect(short).not.toHaveProperty('change');
    expect(long?.change?.trigger).toBe('budget');
    for (const { data } of listener.events) expect(data.change?.trigger).toBe('budget');
  });
});
