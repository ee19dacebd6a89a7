import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { ConfigurableModel } from 'langchain/chat_models/universal';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  InvalidOptionError,
  UnknownContextWindowError,
  withContextCompression,
} from '../../../adapters/langchain/index.js';
import { tiktokenCounter } from '../../../src/counting/tiktoken-counter.js';
import { RecordingChatModel, StreamingRecordingChatModel } from '../../helpers/langchain.js';

const counter = tiktokenCounter();

/** A support chat of `turns` user/assistant pairs, then a question. */
function chat(turns: number, words = 60): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage('You are a billing support agent.')];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(
      new HumanMessage(`Turn ${turn}: invoice INV-${1000 + turn}. ${'More detail about it. '.repeat(words / 4)}`),
    );
    messages.push(new AIMessage(`Answer ${turn}: ${'Here is what I found. '.repeat(words / 4)}`));
  }
  messages.push(new HumanMessage('And the last one?'));
  return messages;
}

const text = (messages: readonly BaseMessage[]) => messages.map((message) => message.text).join('\n');
const hasState = (messages: readonly BaseMessage[]) => messages.some((m) => m.text.startsWith('<session_state>'));

/** A wrapped model that only folds, in a window of 2.2x the history's tokens, counting its compressions. */
function foldingOnly(inner: RecordingChatModel, historyTokens: number) {
  let count = 0;
  const model = withContextCompression(inner, {
    contextWindow: Math.round(historyTokens * 2.2),
    reserveOutputTokens: 100,
    masking: false,
    triggers: { semantic: false, staleness: false },
    onCompress: () => count++,
  });
  return { model, compressions: () => count };
}

describe('withContextCompression (LangChain chat model)', () => {
  it('is the same model: class, name, type and profile; the caller keeps its messages', async () => {
    const inner = new RecordingChatModel({ model: 'gpt-4o' });
    const model = withContextCompression(inner, { contextWindow: 4_000 });
    expect(model).toBeInstanceOf(RecordingChatModel);
    expect(model.getName()).toBe(inner.getName());
    expect(model._llmType()).toBe('recording');
    expect(model.profile).toEqual(inner.profile);
    const history = chat(30);
    const copy = [...history];
    await model.invoke(history);
    expect(history).toEqual(copy);
    const sent = inner.calls[0] ?? [];
    expect(sent.length).toBeLessThan(history.length);
    expect(hasState(sent)).toBe(true);
    // the system prompt comes first, once, with the awareness block appended
    expect(sent[0]?.getType()).toBe('system');
    expect(sent[0]?.text.startsWith('You are a billing support agent.\n\n## Earlier turns')).toBe(true);
    expect(sent.filter((message) => message.getType() === 'system')).toHaveLength(1);
  });

  it('fails at once on a model whose window is unknown, and on a second wrap', () => {
    expect(() => withContextCompression(new RecordingChatModel({ model: 'no-such-model' }))).toThrow(
      UnknownContextWindowError,
    );
    const wrapped = withContextCompression(new RecordingChatModel(), { contextWindow: 8_000 });
    expect(() => withContextCompression(wrapped, { contextWindow: 8_000 })).toThrow(InvalidOptionError);
    expect(() => withContextCompression({} as never)).toThrow(InvalidOptionError);
  });

  it('takes the window from the model profile', async () => {
    class Profiled extends RecordingChatModel {
      override get profile() {
        return { maxInputTokens: 4_000 };
      }
    }
    const inner = new Profiled({ model: 'no-such-model' });
    await withContextCompression(inner).invoke(chat(30));
    expect(hasState(inner.calls[0] ?? [])).toBe(true);
  });

  it('callbacks and traces see the compressed messages', async () => {
    const seen: BaseMessage[][][] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleChatModelStart(_llm, messages) {
        seen.push(messages);
      },
    });
    const inner = new RecordingChatModel();
    const model = withContextCompression(inner, { contextWindow: 4_000 });
    await model.invoke(chat(30), { callbacks: [handler] });
    expect(seen[0]?.[0]?.length).toBe(inner.calls[0]?.length);
    expect(hasState(seen[0]?.[0] ?? [])).toBe(true);
  });

  it('streams compressed, and streaming without native support falls back to one compressed call', async () => {
    const inner = new StreamingRecordingChatModel();
    const model = withContextCompression(inner, { contextWindow: 4_000 });
    let reply = '';
    for await (const chunk of await model.stream(chat(30))) reply += chunk.text;
    expect(reply).toBe('streamed reply');
    expect(inner.calls).toHaveLength(1);
    expect(hasState(inner.calls[0] ?? [])).toBe(true);

    const plain = new RecordingChatModel();
    const wrapped = withContextCompression(plain, { contextWindow: 4_000 });
    for await (const _chunk of await wrapped.stream(chat(30))) {
      // drain
    }
    expect(plain.calls).toHaveLength(1);
    expect(hasState(plain.calls[0] ?? [])).toBe(true);
  });

  it('streamEvents compresses, with the event protocol and with v2 callbacks events', async () => {
    const inner = new StreamingRecordingChatModel();
    const model = withContextCompression(inner, { contextWindow: 4_000 });
    const history = chat(30);
    let events = 0;
    for await (const _event of model.streamEvents(history)) events++;
    let callbackEvents = 0;
    for await (const _event of model.streamEvents(history, { version: 'v2' })) callbackEvents++;
    expect(events).toBeGreaterThan(0);
    expect(callbackEvents).toBeGreaterThan(0);
    expect(inner.calls).toHaveLength(2);
    for (const sent of inner.calls) {
      expect(sent.length).toBeLessThan(history.length);
      expect(hasState(sent)).toBe(true);
    }
  });

  it('batch compresses each conversation', async () => {
    const inner = new RecordingChatModel();
    const model = withContextCompression(inner, { contextWindow: 4_000 });
    await model.batch([chat(30), chat(2)]);
    expect(inner.calls).toHaveLength(2);
    const [long, short] = [...inner.calls].sort((a, b) => b.length - a.length);
    expect(hasState(long ?? [])).toBe(false === hasState(short ?? []));
    expect(short).toHaveLength(chat(2).length);
  });

  it('keeps compressing after bindTools, also when bindTools returns a new model (fakeModel)', async () => {
    const fake = fakeModel().respond(new AIMessage('one')).respond(new AIMessage('two'));
    const model = withContextCompression(fake, { contextWindow: 4_000 });
    const tool = { name: 'lookup', description: 'Looks up an invoice', schema: z.object({ id: z.string() }) };
    const bound = model.bindTools?.([tool]);
    const answer = await bound?.invoke(chat(30));
    expect(answer?.text).toBe('one');
    expect(hasState(fake.calls[0]?.messages ?? [])).toBe(true);

    const inner = new RecordingChatModel();
    await withContextCompression(inner, { contextWindow: 4_000 }).bindTools?.([tool]).invoke(chat(30));
    expect(hasState(inner.calls[0] ?? [])).toBe(true);
  });

  it('keeps compressing through withStructuredOutput', async () => {
    const inner = new RecordingChatModel({
      reply: () => new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'answer', args: { total: 42 } }] }),
    });
    const model = withContextCompression(inner, { contextWindow: 4_000 });
    const structured = model.withStructuredOutput(z.object({ total: z.number() }), { name: 'answer' });
    expect(await structured.invoke(chat(30))).toEqual({ total: 42 });
    expect(hasState(inner.calls[0] ?? [])).toBe(true);
  });

  it('compresses an initChatModel model, which hands every call to a model it makes per call', async () => {
    const inner = new RecordingChatModel({ model: 'gpt-4o' });
    // no provider package here: every ConfigurableModel (bindTools makes new ones) gets the recording model
    const made = vi.spyOn(ConfigurableModel.prototype, '_getModelInstance').mockResolvedValue(inner);
    const configurable = new ConfigurableModel({ defaultConfig: { model: 'openai:gpt-4o' }, configurableFields: [] });
    const model = withContextCompression(configurable, { contextWindow: 4_000 });
    await model.invoke(chat(30));
    const tool = { name: 'lookup', description: 'Looks up an invoice', schema: z.object({ id: z.string() }) };
    await model.bindTools([tool]).invoke(chat(30));
    let streamed = 0;
    for await (const _chunk of await model.stream(chat(30))) streamed++;
    expect(streamed).toBeGreaterThan(0);
    expect(inner.calls).toHaveLength(3);
    for (const sent of inner.calls) expect(hasState(sent)).toBe(true);
    // the window comes from the configured model id when none is given
    expect(() =>
      withContextCompression(new ConfigurableModel({ defaultConfig: { model: 'openai:gpt-4o' } })),
    ).not.toThrow();
    made.mockRestore();
  });

  it('per-call options: disable sends the messages untouched, force folds now', async () => {
    const inner = new RecordingChatModel();
    const model = withContextCompression(inner, { contextWindow: 16_000 });
    const history = chat(30);
    await model.invoke(history, { configurable: { 'context-compression': { disable: true } } });
    expect(inner.calls[0]).toEqual(history);
    await model.invoke(chat(3), { configurable: { 'context-compression': { force: true } } });
    expect(hasState(inner.calls[1] ?? [])).toBe(true);
    await expect(model.invoke(history, { configurable: { 'context-compression': { bogus: 1 } } })).rejects.toThrow(
      InvalidOptionError,
    );
  });

  it('learns from usage_metadata: a model that reports twice our count gets compressed sooner', async () => {
    const history = chat(12);
    const historyTokens = counter.count(text(history));
    const run = async (factor: number) => {
      const inner = new RecordingChatModel({
        inputTokens: (messages) => Math.round(counter.count(text(messages)) * factor),
      });
      const { model, compressions } = foldingOnly(inner, historyTokens);
      await model.invoke(history);
      await model.invoke([...history, new AIMessage('Sure.'), new HumanMessage('One more thing?')]);
      return compressions();
    };
    expect(await run(1)).toBe(0);
    expect(await run(2)).toBeGreaterThan(0);
  });

  it('learns from the usage of a stream too', async () => {
    const history = chat(12);
    const historyTokens = counter.count(text(history));
    const inner = new StreamingRecordingChatModel({
      inputTokens: (messages) => Math.round(counter.count(text(messages)) * 2),
    });
    const { model, compressions } = foldingOnly(inner, historyTokens);
    for await (const _chunk of await model.stream(history)) {
      // drain
    }
    expect(compressions()).toBe(0);
    for await (const _chunk of await model.stream([...history, new AIMessage('Sure.'), new HumanMessage('More?')])) {
      // drain
    }
    expect(compressions()).toBeGreaterThan(0);
  });
});
