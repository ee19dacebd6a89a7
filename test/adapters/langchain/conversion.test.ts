import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromTranscript } from '../../../adapters/langchain/from-transcript.js';
import { toolDefinitions, toTranscript } from '../../../adapters/langchain/to-transcript.js';
import { TranscriptConverter } from '../../../adapters/langchain/transcript-converter.js';
import { imageTokens } from '../../../src/counting/image-tokens.js';
import { UNKNOWN_FILE_COUNTING } from '../../../src/counting/provider-family.js';
import { type Message, messageText, type Part } from '../../../src/transcript/transcript.js';

/** Parts without their `original`, for comparing values. */
const bare = (parts: readonly Part[]) => parts.map(({ original: _original, ...rest }) => rest);

/** Asserts that two lists hold the very same objects, in order. */
function expectSameObjects(actual: readonly unknown[], expected: readonly unknown[]): void {
  expect(actual).toHaveLength(expected.length);
  for (const [index, item] of actual.entries()) expect(item).toBe(expected[index]);
}

const awareness: Message = { role: 'system', parts: [{ type: 'text', text: 'AWARE' }], synthetic: 'awareness' };

describe('toTranscript', () => {
  it('maps roles and puts only leading system messages into the system prompt', () => {
    const later = new SystemMessage('Switch to French.');
    const transcript = toTranscript([
      new SystemMessage('You are terse.'),
      new SystemMessage('Never guess.'),
      new HumanMessage('Hi'),
      new AIMessage('Hello'),
      later,
      new HumanMessage('Bonjour'),
    ]);
    expect(transcript.system.map((message) => message.role)).toEqual(['system', 'system']);
    expect(transcript.system.map(messageText)).toEqual(['You are terse.', 'Never guess.']);
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'system', 'user']);
    expect(transcript.messages[2]?.original).toBe(later);
  });

  it('gives tool calls once, even when Anthropic-style content repeats them as tool_use blocks', () => {
    const calls = [
      { id: 'c1', name: 'read', args: { path: 'a' } },
      { id: 'c2', name: 'grep', args: { q: 'x' } },
    ];
    const uses = calls.map(({ id, name, args }) => ({ type: 'tool_use', id, name, input: args }));
    const message = new AIMessage({ content: [{ type: 'text', text: 'Let me look.' }, ...uses], tool_calls: calls });
    const [converted] = toTranscript([message]).messages;
    expect(bare(converted?.parts ?? [])).toEqual([
      { type: 'text', text: 'Let me look.' },
      ...calls.map((call) => ({ type: 'tool-call', ...call })),
    ]);
    expect(converted?.parts[1]?.original).toBe(message.tool_calls?.[0]);
  });

  it('reads text and reasoning blocks and additional_kwargs.reasoning_content', () => {
    const message = new AIMessage({
      content: [
        { type: 'thinking', thinking: 'The user wants a sum.', signature: 'sig' },
        { type: 'reasoning', reasoning: 'Add them up.' },
        { type: 'text', text: 'It is 4.' },
      ],
      additional_kwargs: { reasoning_content: 'Deep thought.' },
    });
    const [converted] = toTranscript([message]).messages;
    expect(bare(converted?.parts ?? [])).toEqual([
      { type: 'reasoning', text: 'Deep thought.' },
      { type: 'reasoning', text: 'The user wants a sum.' },
      { type: 'reasoning', text: 'Add them up.' },
      { type: 'text', text: 'It is 4.' },
    ]);
    expect(converted?.parts[1]?.original).toBe((message.content as unknown[])[0]);
  });

  it('turns images into file parts with stable fingerprints', () => {
    const content = [
      { type: 'text', text: 'What is in these?' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image', url: 'https://example.com/b.png' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ];
    const first = toTranscript([new HumanMessage({ content })]).messages[0];
    const again = toTranscript([new HumanMessage({ content: structuredClone(content) })]).messages[0];
    const files = (first?.parts ?? []).filter((part) => part.type === 'file');
    expect(first?.parts[0]).toMatchObject({ type: 'text', text: 'What is in these?' });
    expect(files.map((part) => part.fingerprint)).toEqual([
      'url:https://example.com/a.png',
      expect.stringMatching(/^data:34:/),
      'url:https://example.com/b.png',
      expect.stringMatching(/^data:12:/),
    ]);
    expect(new Set(files.map((part) => part.fingerprint)).size).toBe(4);
    expect(files.map((part) => part.mediaType)).toEqual(['image/*', 'image/*', 'image/*', 'image/png']);
    // sizes unknown (URLs, an 8-byte PNG signature) and no model: counted as the largest provider count of 2048x2048
    expect(files.map((part) => part.tokens)).toEqual(files.map(() => imageTokens(undefined, UNKNOWN_FILE_COUNTING)));
    // the same bytes in another message object give the same fingerprints
    expect(bare(again?.parts ?? [])).toEqual(bare(first?.parts ?? []));
  });

  it('reads tool messages: role, call id, name, error status, array content; consecutive ones as one message', () => {
    const first = new ToolMessage({ content: 'file a', tool_call_id: 'c1' });
    const second = new ToolMessage({
      content: [
        { type: 'text', text: '2 failed' },
        { type: 'text', text: 'see log' },
      ],
      tool_call_id: 'c2',
      name: 'pytest',
      status: 'error',
    });
    const ai = new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read_file', args: {} }] });
    const transcript = toTranscript([new HumanMessage('Go'), ai, first, second]);
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    const results = transcript.messages[2]?.parts ?? [];
    // the name of c1 comes from the AIMessage's tool call
    expect(bare(results)).toEqual([
      { type: 'tool-result', callId: 'c1', name: 'read_file', output: 'file a', isError: false },
      { type: 'tool-result', callId: 'c2', name: 'pytest', output: '2 failed\nsee log', isError: true },
    ]);
    expect(results[0]?.original).toBe(first);
    expect(results[1]?.original).toBe(second);
  });

  it('looks a tool name up again when the same ToolMessage later follows its AIMessage', () => {
    const ai = new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read_file', args: {} }] });
    const result = new ToolMessage({ content: 'A', tool_call_id: 'c1' });
    // e.g. a trimmed history that starts at the result: no name to find
    expect(toTranscript([result]).messages[0]?.parts[0]).toMatchObject({ name: '' });
    expect(toTranscript([ai, result]).messages[1]?.parts[0]).toMatchObject({ name: 'read_file' });
  });
});

describe('fromTranscript', () => {
  const system = new SystemMessage({ content: 'You are terse.', id: 'sys-1', additional_kwargs: { cache: true } });
  const messages: BaseMessage[] = [
    system,
    new HumanMessage({ content: 'Read a', id: 'h1', additional_kwargs: { x: 1 } }),
    new AIMessage({
      content: 'Reading.',
      id: 'a1',
      tool_calls: [{ id: 'c1', name: 'read', args: { path: 'a' } }],
      response_metadata: { model: 'gpt-4o' },
    }),
    new ToolMessage({ content: 'A', tool_call_id: 'c1', name: 'read', id: 't1', artifact: { bytes: 1 } }),
    new HumanMessage('Thanks'),
  ];

  it('returns the very same objects for untouched messages', () => {
    const transcript = toTranscript(messages);
    const back = fromTranscript(transcript.system, transcript.messages);
    expectSameObjects(back, messages);
    expect(back[3]).toMatchObject({ id: 't1', artifact: { bytes: 1 } });
    expect(back[2]?.response_metadata).toEqual({ model: 'gpt-4o' });
  });

  it('appends the awareness block to a string system message (placement system)', () => {
    const transcript = toTranscript(messages);
    const back = fromTranscript([...transcript.system, awareness], transcript.messages, 'system');
    expect(back[0]).not.toBe(system);
    expect(SystemMessage.isInstance(back[0])).toBe(true);
    expect(back[0]).toMatchObject({
      content: 'You are terse.\n\nAWARE',
      id: 'sys-1',
      additional_kwargs: { cache: true },
    });
    expect(system.content).toBe('You are terse.');
    expectSameObjects(back.slice(1), messages.slice(1));
    // with several leading system messages, the last one takes the block
    const first = new SystemMessage('One.');
    const two = toTranscript([first, new SystemMessage('Two.'), new HumanMessage('Hi')]);
    const both = fromTranscript([...two.system, awareness], two.messages);
    expect(both.map((message) => message.content)).toEqual(['One.', 'Two.\n\nAWARE', 'Hi']);
    expect(both[0]).toBe(first);
  });

  it('adds a text block to array system content, or makes a system message', () => {
    const blocks = [{ type: 'text' as const, text: 'Cached part.', cache_control: { type: 'ephemeral' } }];
    const transcript = toTranscript([new SystemMessage({ content: blocks }), new HumanMessage('Hi')]);
    const back = fromTranscript([...transcript.system, awareness], transcript.messages, 'system');
    expect(back[0]?.content).toEqual([...blocks, { type: 'text', text: 'AWARE' }]);
    expect(blocks).toHaveLength(1);
    // no system message: the block becomes one
    const human = new HumanMessage('Hi');
    const alone = fromTranscript([awareness], toTranscript([human]).messages, 'system');
    expect(SystemMessage.isInstance(alone[0])).toBe(true);
    expect(alone[0]?.content).toBe('AWARE');
    expectSameObjects(alone.slice(1), [human]);
  });

  it('puts the block at the head of the session state message (placement state)', () => {
    const transcript = toTranscript(messages);
    const state: Message = {
      role: 'user',
      parts: [{ type: 'text', text: '<session_state>' }],
      synthetic: 'session-state',
    };
    const ack: Message = { role: 'assistant', parts: [{ type: 'text', text: 'Noted.' }], synthetic: 'acknowledgement' };
    const kept = transcript.messages.slice(2);
    const back = fromTranscript([...transcript.system, awareness], [state, ack, ...kept], 'state');
    expect(back[0]).toBe(system);
    expect(HumanMessage.isInstance(back[1])).toBe(true);
    expect(back[1]?.content).toBe('AWARE\n\n<session_state>');
    expect(AIMessage.isInstance(back[2])).toBe(true);
    expect(back[2]?.content).toBe('Noted.');
    expectSameObjects(back.slice(3), messages.slice(3));
    // before there is a state, placement state sends no block at all
    expectSameObjects(fromTranscript([...transcript.system, awareness], transcript.messages, 'state'), messages);
  });

  it('rebuilds an edited tool message with its id, call id, name, status and artifact', () => {
    const fields = {
      tool_call_id: 'c9',
      name: 'bash',
      id: 'tool-9',
      status: 'error' as const,
      artifact: { exitCode: 1 },
      additional_kwargs: { extra: 'kept' },
    };
    const original = new ToolMessage({ ...fields, content: 'a very long log' });
    const edited: Message = {
      role: 'tool',
      edited: true,
      parts: [
        {
          type: 'tool-result',
          callId: 'c9',
          name: 'bash',
          output: 'masked: log of 4000 lines',
          isError: true,
          edited: true,
          edit: 'masked',
          original,
        },
      ],
      original: [original],
    };
    const back = fromTranscript([], [edited]);
    expect(back).toHaveLength(1);
    expect(back[0]).not.toBe(original);
    expect(ToolMessage.isInstance(back[0])).toBe(true);
    expect(back[0]).toMatchObject({ ...fields, content: 'masked: log of 4000 lines' });
    expect(original.content).toBe('a very long log');
  });

  it('rebuilds only the edited result of a step and keeps the others as they were', () => {
    const calls = [
      { id: 'c1', name: 'read', args: { path: 'a' } },
      { id: 'c2', name: 'read', args: { path: 'b' } },
    ];
    const ai = new AIMessage({ content: '', tool_calls: calls });
    const long = new ToolMessage({ content: 'x'.repeat(50), tool_call_id: 'c1', id: 'm1', status: 'success' });
    const short = new ToolMessage({ content: 'B', tool_call_id: 'c2', name: 'read', id: 'm2' });
    const transcript = toTranscript([ai, long, short]);
    const step = transcript.messages[1] as Message;
    const edited: Message = {
      ...step,
      edited: true,
      parts: step.parts.map((part) =>
        part.type === 'tool-result' && part.callId === 'c1' ? { ...part, output: 'xx…', edited: true } : part,
      ),
    };
    const back = fromTranscript(transcript.system, [transcript.messages[0] as Message, edited]);
    expect(back).toHaveLength(3);
    expect(back[0]).toBe(ai);
    expect(back[2]).toBe(short);
    expect(back[1]).not.toBe(long);
    // the name comes from the AIMessage's tool call, since the ToolMessage had none
    expect(back[1]).toMatchObject({ content: 'xx…', status: 'success', tool_call_id: 'c1', id: 'm1', name: 'read' });
  });
});

describe('toolDefinitions', () => {
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

  it('reads OpenAI-style definitions', () => {
    const definitions = toolDefinitions([
      { type: 'function', function: { name: 'weather', description: 'Weather of a city', parameters: schema } },
    ]);
    expect(definitions).toEqual([{ name: 'weather', description: 'Weather of a city', inputSchema: schema }]);
    expect(toolDefinitions(undefined)).toEqual([]);
  });

  it('reads LangChain tools with a zod schema', () => {
    const weather = tool(async ({ city }) => `Sunny in ${city}`, {
      name: 'weather',
      description: 'Weather of a city',
      schema: z.object({ city: z.string().describe('The city') }),
    });
    const definitions = toolDefinitions([weather]);
    expect(definitions).toEqual([
      {
        name: 'weather',
        description: 'Weather of a city',
        inputSchema: expect.objectContaining({
          type: 'object',
          properties: { city: { type: 'string', description: 'The city' } },
          required: ['city'],
        }),
      },
    ]);
    expect(toTranscript([], [weather]).tools).toEqual(definitions);
  });
});

describe('TranscriptConverter', () => {
  it('gives the same transcript objects for the same message objects from call to call; toTranscript does not remember', () => {
    const ai = new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read_file', args: {} }] });
    const messages = [
      new HumanMessage('Go'),
      ai,
      new ToolMessage({ content: 'A', tool_call_id: 'c1', name: 'read_file' }),
    ];
    const converter = new TranscriptConverter();
    const first = converter.toTranscript(messages).messages;
    const again = converter.toTranscript([...messages, new HumanMessage('Next')]).messages;
    expect(again.slice(0, 3)).toEqual(first);
    for (const [index, message] of first.entries()) expect(again[index]).toBe(message);
    const fresh = toTranscript(messages).messages;
    expect(fresh).toEqual(first);
    expect(fresh[0]).not.toBe(first[0]);
  });
});
