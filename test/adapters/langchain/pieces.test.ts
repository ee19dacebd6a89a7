import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ModelProfile } from '@langchain/core/language_models/profile';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnableLambda } from '@langchain/core/runnables';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { readCallOptions } from '../../../adapters/langchain/call-options.js';
import { chatModelSummarizer } from '../../../adapters/langchain/chat-model-summarizer.js';
import { compressMessages } from '../../../adapters/langchain/compress-messages.js';
import { explainCompression } from '../../../adapters/langchain/explain-compression.js';
import { modelInfo, reportedInputTokens } from '../../../adapters/langchain/model-info.js';
import { redactionTool } from '../../../adapters/langchain/redaction-tool.js';
import { toTranscript } from '../../../adapters/langchain/to-transcript.js';
import { withContextCompression } from '../../../adapters/langchain/with-context-compression.js';
import { approximateCounter } from '../../../src/counting/token-counter.js';
import { type CompressionErrorEvent, InvalidOptionError, type SessionState } from '../../../src/index.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../../src/options/prompts.js';

class TinyChat extends BaseChatModel {
  window: number | undefined;
  constructor(window?: number) {
    super({});
    this.window = window;
  }
  _llmType() {
    return 'tiny';
  }
  override get profile(): ModelProfile {
    return { maxInputTokens: this.window };
  }
  async _generate(): Promise<ChatResult> {
    return { generations: [{ text: 'ok', message: new AIMessage('ok') }] };
  }
}

const counter = approximateCounter();
const small = { contextWindow: 4_000, reserveOutputTokens: 500, tokenCounter: counter };
const state: SessionState = {
  logos: ['Order ORD-4242 ships to Lisbon', 'The customer id is C-77'],
  pathos: ['Prefers short answers'],
  abstract: [],
  conversationSummary: 'The user tracks orders.',
};
const chat = (turns: number): BaseMessage[] =>
  Array.from({ length: turns }, (_, index) =>
    index % 2 === 0
      ? new HumanMessage(`Question ${index}: where is order ORD-${1000 + index}? ${'details '.repeat(40)}`)
      : new AIMessage(`Answer ${index}: it is on its way. ${'details '.repeat(40)}`),
  );
const textOf = (message: BaseMessage | undefined) => (typeof message?.content === 'string' ? message.content : '');

describe('modelInfo and reportedInputTokens', () => {
  it('reads the name, the key and the profile window', () => {
    const named = Object.assign(new TinyChat(200_000), { model: 'tiny-1' });
    const files = (modelId: string) => ({ family: 'unknown', modelId });
    expect(modelInfo(named)).toEqual({
      modelId: 'tiny-1',
      modelKey: 'tiny:tiny-1',
      contextWindow: 200_000,
      files: files('tiny-1'),
      cachesAtBreakpoints: false,
    });
    const legacy = Object.assign(new TinyChat(), { modelName: 'legacy' });
    expect(modelInfo(legacy)).toEqual({
      modelId: 'legacy',
      modelKey: 'tiny:legacy',
      contextWindow: undefined,
      files: files('legacy'),
      cachesAtBreakpoints: false,
    });
    expect(modelInfo(new TinyChat(0.5))).toEqual({
      modelId: 'tiny',
      modelKey: 'tiny:tiny',
      contextWindow: undefined,
      files: files('tiny'),
      cachesAtBreakpoints: false,
    });
    expect(modelInfo(fakeModel())).toMatchObject({ modelId: 'fake-model-builder', contextWindow: undefined });
  });

  it('reads input tokens from usage_metadata, adding cache reads only when reported beside them', () => {
    const usage = (input: number, details: Record<string, number> = {}) =>
      new AIMessage({
        content: 'ok',
        usage_metadata: {
          input_tokens: input,
          output_tokens: 5,
          total_tokens: input + 5,
          input_token_details: details,
        },
      });
    expect(reportedInputTokens(undefined)).toBeUndefined();
    expect(reportedInputTokens(new AIMessage('no usage'))).toBeUndefined();
    expect(reportedInputTokens(usage(1_200))).toBe(1_200);
    // LangChain's convention: cache reads are inside input_tokens
    expect(reportedInputTokens(usage(1_200, { cache_read: 1_000 }))).toBe(1_200);
    // a provider that reports them beside input_tokens
    expect(reportedInputTokens(usage(200, { cache_read: 1_000 }))).toBe(1_200);
    expect(reportedInputTokens(usage(100, { cache_read: 300, cache_creation: 200 }))).toBe(600);
  });
});

describe('readCallOptions', () => {
  it("reads configurable['context-compression'] and nothing else", () => {
    const defaults = { namespace: '', disable: false, force: false };
    expect(readCallOptions(undefined)).toEqual(defaults);
    expect(readCallOptions({ configurable: { thread_id: 't1' } })).toEqual(defaults);
    const options = { disable: true, force: false, namespace: 'user-1' };
    expect(readCallOptions({ configurable: { 'context-compression': options } })).toEqual(options);
  });

  it('rejects unknown keys and wrong types, naming the option', () => {
    const read = (options: unknown) => () => readCallOptions({ configurable: { 'context-compression': options } });
    expect(read({ disabled: true })).toThrow(InvalidOptionError);
    expect(read({ disabled: true })).toThrow(/disabled/);
    expect(read({ disable: 'yes' })).toThrow(
      expect.objectContaining({ name: 'InvalidOptionError', option: "configurable['context-compression'].disable" }),
    );
  });
});

describe('chatModelSummarizer', () => {
  const input = () => ({
    messages: toTranscript(chat(4)).messages,
    previous: undefined,
    abortSignal: new AbortController().signal,
  });

  it('returns the state the model gives through structured output', async () => {
    const summarizer = chatModelSummarizer(fakeModel().structuredResponse(state));
    expect(summarizer.name).toBe('model:fake-model-builder');
    const result = await summarizer.summarize(input());
    expect(result).toEqual(state);
  });

  it('sends the transcript, the abort signal and disable: true to the model', async () => {
    const calls: { input: BaseMessage[]; config: Record<string, unknown> }[] = [];
    const spy = {
      _llmType: () => 'spy',
      withStructuredOutput: () =>
        RunnableLambda.from(async (input: BaseMessage[], config) => {
          calls.push({ input, config: config as Record<string, unknown> });
          return state;
        }),
    } as unknown as BaseChatModel;
    await chatModelSummarizer(spy, { instructions: 'Summarize.' }).summarize(input());
    expect(calls).toHaveLength(1);
    const [system, human] = calls[0]?.input ?? [];
    expect(SystemMessage.isInstance(system) && system.content).toBe('Summarize.');
    expect(textOf(human)).toContain('ORD-1002');
    expect(calls[0]?.config.configurable).toMatchObject({ 'context-compression': { disable: true } });
    expect(calls[0]?.config.signal).toBeInstanceOf(AbortSignal);
  });

  it('throws on output the SessionState schema rejects', async () => {
    const summarizer = chatModelSummarizer(fakeModel().structuredResponse({ logos: 'not a list' }));
    await expect(summarizer.summarize(input())).rejects.toThrow();
    expect(() => chatModelSummarizer({} as BaseChatModel)).toThrow(TypeError);
  });

  it('folds a long conversation with a chat model as summarizer of withContextCompression', async () => {
    const main = fakeModel().respond(new AIMessage('done'));
    const summarizerModel = fakeModel().structuredResponse(state);
    const model = withContextCompression(main, { ...small, summarizer: summarizerModel });
    await model.invoke(chat(31));
    const sent = main.calls[0]?.messages ?? [];
    const stateMessage = sent.find((message) => textOf(message).startsWith('<session_state>'));
    expect(HumanMessage.isInstance(stateMessage)).toBe(true);
    expect(textOf(stateMessage)).toContain('Order ORD-4242 ships to Lisbon');
    expect(textOf(stateMessage)).toContain('The customer id is C-77');
    expect(sent.length).toBeLessThan(31);
  });

  it('keeps the call going when the summarizer model gives an invalid state', async () => {
    const main = fakeModel().respond(new AIMessage('done'));
    const errors: CompressionErrorEvent[] = [];
    const model = withContextCompression(main, {
      ...small,
      summarizer: fakeModel().structuredResponse({ logos: 42 }),
      onError: (event) => errors.push(event),
    });
    const answer = await model.invoke(chat(31));
    expect(answer.content).toBe('done');
    expect(main.callCount).toBe(1);
    expect(errors.map((event) => event.error.name)).toContain('SummarizerError');
  });
});

describe('redactionTool', () => {
  const messages: BaseMessage[] = [
    new HumanMessage('Check the config and the secrets.'),
    new AIMessage({
      content: '',
      tool_calls: [
        { id: 'c1', name: 'read_file', args: { path: 'config.json' } },
        { id: 'c2', name: 'vault', args: { key: 'db' } },
      ],
    }),
    new ToolMessage({ content: '{"port": 8080}', tool_call_id: 'c1' }),
    new ToolMessage({ content: 'secret', tool_call_id: 'c2' }),
    new AIMessage({
      content: '',
      tool_calls: [
        { id: 'c3', name: 'read_file', args: { path: 'b' } },
        { id: 'r1', name: 'redact_tool_results', args: { toolCallIds: ['c1'], reason: 'Used.' } },
      ],
    }),
  ];
  const input = { toolCallIds: ['c1', 'c2', 'c3', 'nope'], reason: 'Already used these.' };

  it('checks the ids against the conversation of the runtime state', async () => {
    const redact = redactionTool({ excludeTools: ['vault'] });
    expect(redact.name).toBe('redact_tool_results');
    const output = JSON.parse(await redact.invoke(input, { state: { messages } } as never));
    expect(output.accepted).toEqual(['c1']);
    expect(output.rejected).toEqual([
      { toolCallId: 'c2', reason: 'results of vault are protected' },
      { toolCallId: 'c3', reason: 'this tool call has no result yet' },
      { toolCallId: 'nope', reason: expect.stringMatching(/no earlier tool call has this id/) },
    ]);
    expect(output.message).toMatch(/^Redacted 1 tool result \(c1\)\. Rejected: /);
  });

  it('answers a tool call, as createAgent makes it, with a ToolMessage', async () => {
    const call = { id: 'r1', name: 'redact_tool_results', args: { toolCallIds: ['c1'], reason: 'Used.' } };
    const answer: unknown = await redactionTool().invoke({ ...call, type: 'tool_call' }, {
      state: { messages },
    } as never);
    expect(ToolMessage.isInstance(answer)).toBe(true);
    const message = answer as ToolMessage;
    expect(message.tool_call_id).toBe('r1');
    expect(JSON.parse(String(message.content))).toMatchObject({ accepted: ['c1'], rejected: [] });
  });

  it('accepts the ids unchecked without a conversation', async () => {
    const redact = redactionTool({ name: 'forget', excludeTools: ['vault'] });
    expect(redact.name).toBe('forget');
    const output = JSON.parse(await redact.invoke(input));
    expect(output.accepted).toEqual(['c1', 'c2', 'c3', 'nope']);
    expect(output.rejected).toEqual([]);
    expect(typeof output.message).toBe('string');
  });
});

describe('explainCompression', () => {
  it('explains a long tool conversation without any model', async () => {
    const messages: BaseMessage[] = [new SystemMessage('You fix bugs.'), new HumanMessage('Fix src/tax.ts.')];
    for (let index = 0; index < 8; index++) {
      messages.push(
        new AIMessage({
          content: '',
          tool_calls: [{ id: `c${index}`, name: 'read_file', args: { path: `src/file${index}.ts` } }],
        }),
        new ToolMessage({ content: `export const x${index} = 1;\n`.repeat(120), tool_call_id: `c${index}` }),
      );
    }
    const log = await explainCompression(messages, small);
    expect(log.length).toBeGreaterThan(0);
    for (const entry of log) {
      expect(entry.details).not.toBe('');
      expect(entry.confidence).toBeGreaterThan(0);
      // system messages are the system prompt, not counted as history
      expect(entry.atMessage).toBeLessThanOrEqual(messages.length - 1);
    }
  });
});

describe('compressMessages', () => {
  it('needs a contextWindow or a model id', () => {
    expect(() => compressMessages()).toThrow(InvalidOptionError);
    expect(() => compressMessages()).toThrow(/contextWindow/);
    expect(() => compressMessages({ model: '' })).toThrow(/`model`/);
    expect(() => compressMessages({ model: 'gpt-4o' })).not.toThrow();
  });

  it('names its own contextWindow option for a model id not in the table', () => {
    expect(() => compressMessages({ model: 'in-house-7b' })).toThrow(
      'The context window of model "in-house-7b" is not known. Pass it as the `contextWindow` option, e.g. compressMessages({ contextWindow: 128_000 }).',
    );
  });

  it('takes a prompt value from a ChatPromptTemplate', async () => {
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'You are {tone}.'],
      ['human', '{question}'],
    ]);
    const value = await prompt.invoke({ tone: 'terse', question: 'Where is ORD-1?' });
    const out = await compressMessages(small).invoke(value);
    expect(out).toHaveLength(2);
    expect(SystemMessage.isInstance(out[0])).toBe(true);
    // nothing changed: the system prompt as it came, without the awareness block
    expect(out[0]?.content).toBe('You are terse.');
    expect(out[1]?.content).toBe('Where is ORD-1?');
    const chained = await prompt.pipe(compressMessages(small)).invoke({ tone: 'terse', question: 'Where is ORD-1?' });
    expect(chained.map((message) => message.content)).toEqual(out.map((message) => message.content));
  });

  it('takes a message array, folds a long one, and passes it through when disabled', async () => {
    const step = compressMessages(small);
    const human = new HumanMessage('Hi');
    const short = await step.invoke([human]);
    expect(short).toEqual([human]);
    expect(short[0]).toBe(human);
    const long = chat(31);
    const folded = await step.invoke(long);
    expect(folded.length).toBeLessThan(long.length);
    // a changed prompt carries the awareness block, as a system message of its own when the caller sent none
    expect(folded[0]?.content).toBe(DEFAULT_AWARENESS_BLOCK);
    expect(folded.some((message) => textOf(message).startsWith('<session_state>'))).toBe(true);
    const untouched = await step.invoke(long, { configurable: { 'context-compression': { disable: true } } });
    expect(untouched).toHaveLength(long.length);
    for (const [index, message] of untouched.entries()) expect(message).toBe(long[index]);
    await expect(step.invoke(long, { configurable: { 'context-compression': { off: true } } })).rejects.toThrow(
      InvalidOptionError,
    );
  });
});
