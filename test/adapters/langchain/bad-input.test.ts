import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { InvalidPromptError, withContextCompression } from '../../../adapters/langchain/index.js';
import { toTranscript } from '../../../adapters/langchain/to-transcript.js';
import { approximateCounter } from '../../../src/counting/token-counter.js';
import { RecordingChatModel } from '../../helpers/langchain.js';

const options = { contextWindow: 8_000, tokenCounter: approximateCounter() };

/** Sends messages through a wrapped recording model; returns what the model received. */
async function send(messages: BaseMessage[]): Promise<BaseMessage[]> {
  const base = new RecordingChatModel({ model: 'gpt-4o' });
  await withContextCompression(base, options).invoke(messages);
  return base.calls[0] ?? [];
}

const withNullContent = <T extends BaseMessage>(message: T): T => {
  (message as { content: unknown }).content = null;
  return message;
};

function toolTurn(args: Record<string, unknown>): BaseMessage[] {
  return [
    new HumanMessage('Look up Berlin.'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'lookup', args }] }),
    new ToolMessage({ content: 'Berlin: 3.7 million people.', tool_call_id: 'c1' }),
    new HumanMessage('Thanks.'),
  ];
}

describe('LangChain messages a JavaScript caller got wrong', () => {
  it.each<[string, () => BaseMessage[]]>([
    [
      'an AIMessage with content null',
      () => [new HumanMessage('hi'), withNullContent(new AIMessage('x')), new HumanMessage('go')],
    ],
    [
      'a ToolMessage with content null',
      () => {
        const [question, call, result, thanks] = toolTurn({});
        return [question, call, withNullContent(result as ToolMessage), thanks] as BaseMessage[];
      },
    ],
    [
      'tool call args with a cycle',
      () => {
        const args: Record<string, unknown> = { city: 'Berlin' };
        args.self = args;
        return toolTurn(args);
      },
    ],
    ['tool call args with a BigInt', () => toolTurn({ population: 3_700_000n })],
  ])('%s: read tolerantly, the caller’s messages sent as they are', async (_name, build) => {
    const messages = build();
    const sent = await send(messages);
    // nothing to change: the caller's very objects, without the awareness block
    expect(sent).toHaveLength(messages.length);
    for (const [index, message] of messages.entries()) expect(sent[index]).toBe(message);
  });

  it('a content block that is not an object is an InvalidPromptError naming the index and the block', async () => {
    const messages = [
      new HumanMessage('hi'),
      new HumanMessage({ content: [{ type: 'text', text: 'a' }, null] as never }),
    ];
    const error = await send(messages).then(
      () => undefined,
      (caught: unknown) => caught as InvalidPromptError,
    );
    expect(InvalidPromptError.isInstance(error)).toBe(true);
    expect(error?.messageIndex).toBe(1);
    expect(error?.message).toBe(
      'Invalid message at index 1: `content[1]` must be a content block object with a type (got null)',
    );
  });

  it('a null or plain-object message given to toTranscript is an InvalidPromptError', () => {
    for (const bad of [null, { role: 'user', content: 'hi' }]) {
      let caught: unknown;
      try {
        toTranscript([new HumanMessage('hi'), bad as never]);
      } catch (error) {
        caught = error;
      }
      expect(InvalidPromptError.isInstance(caught)).toBe(true);
      expect((caught as InvalidPromptError).messageIndex).toBe(1);
      expect((caught as Error).message).toMatch(/^Invalid message at index 1: must be a LangChain message \(got /);
    }
  });
});

describe('LangChain file fingerprints cover the whole content', () => {
  const MEGABYTE = 1024 * 1024;
  const fingerprint = (data: unknown) => {
    const message = new HumanMessage({ content: [{ type: 'image', mimeType: 'image/png', data }] as never });
    const part = toTranscript([message]).messages[0]?.parts[0];
    return part?.type === 'file' ? part.fingerprint : undefined;
  };

  it('bytes and base64 strings differing in one byte give different fingerprints', () => {
    const first = new Uint8Array(MEGABYTE).map((_, index) => index & 0xff);
    const second = first.slice();
    second[1] = 0;
    expect(fingerprint(first)).toMatch(/^bytes:1048576:/);
    expect(fingerprint(first)).not.toBe(fingerprint(second));
    expect(fingerprint(first.buffer)).not.toBe(fingerprint(second.buffer));
    expect(fingerprint(first)).toBe(fingerprint(first.slice()));
    const base64 = 'A'.repeat(MEGABYTE);
    expect(fingerprint(base64)).not.toBe(fingerprint(`${base64.slice(0, 1)}B${base64.slice(2)}`));
  });
});
