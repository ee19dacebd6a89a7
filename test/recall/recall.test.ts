import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { HumanMessage } from '@langchain/core/messages';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import { compressMessages } from '../../adapters/langchain/index.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError } from '../../src/errors.js';
import { memoryStateStore } from '../../src/persistence/state-store.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';
import { BUDGET, chat, chatModelMessages, meter, SYSTEM, setup, text } from '../helpers/fixtures.js';
import { echoModel } from '../helpers/mock-model.js';

const FACT = 'My dog Biscuit is a beagle who swims in Lake Tahoe every summer.';

/** An early fact, a long chat that folds it away, then a user message. */
const history = (last: string): Message[] => [
  text('user', FACT),
  text('assistant', 'A swimming beagle, how fun!'),
  ...chat(60),
  text('user', last),
];

const recallBlocks = (messages: readonly Message[]) => messages.filter((message) => message.synthetic === 'recall');

/** Three steps of a tool loop whose results outweigh a recall block. */
const mapsLoop = (): Message[] =>
  [0, 1, 2].flatMap((i): Message[] => [
    { role: 'assistant', parts: [{ type: 'tool-call', id: `m${i}`, name: 'maps', args: { q: `lake ${i}` } }] },
    {
      role: 'tool',
      parts: [{ type: 'tool-result', callId: `m${i}`, name: 'maps', output: `shoreline ${i} `.repeat(40) }],
    },
  ]);

describe('recall of what left the prompt', () => {
  it('quotes a folded message a question asks about, verbatim, just before the question', async () => {
    const { run, events } = setup();
    const out = await run(history('Which lake does Biscuit swim in?'));
    expect(out.messages.some((message) => messageText(message) === FACT)).toBe(false); // folded
    const [block] = recallBlocks(out.messages);
    expect(block).toBeDefined();
    expect(messageText(block as Message)).toContain(JSON.stringify(FACT).slice(1, -1));
    // [recall block] [acknowledgement] [the question], roles alternating
    expect(out.messages.at(-3)).toBe(block);
    expect(out.messages.at(-2)).toMatchObject({ role: 'assistant', synthetic: 'acknowledgement' });
    expect(messageText(out.messages.at(-1) as Message)).toBe('Which lake does Biscuit swim in?');
    const event = events.at(-1);
    expect(event?.recalled.chunks).toBeGreaterThan(0);
    expect(event?.recalled.tokens).toBe(
      meter.measure(block as Message).tokens + meter.measure(out.messages.at(-2) as Message).tokens,
    );
    expect(event?.decisions.some((decision) => decision.trigger === 'recall')).toBe(true);
  });

  it('stays within its budget share, twice it for a question in a chat while the prompt has room', async () => {
    const facts = Array.from({ length: 40 }, (_, i) => [
      text('user', `Biscuit the beagle fact ${i}: he ate ${i} biscuits at the Tahoe cabin.`),
      text('assistant', 'Noted.'),
    ]).flat();
    const blockFor = async (last: string) => {
      const { run, events } = setup({ recall: { budgetShare: 0.05 } });
      const out = await run([...facts, ...chat(60), text('user', last)]);
      const [block] = recallBlocks(out.messages);
      expect(block).toBeDefined();
      expect(events.at(-1)?.recalled.chunks).toBeGreaterThan(1);
      return meter.measure(block as Message).tokens;
    };
    // a question: up to twice the share, within the room below the threshold (the tags and acknowledgement on top)
    const asked = await blockFor('What did Biscuit eat at the Tahoe cabin?');
    expect(asked).toBeGreaterThan(0.05 * BUDGET);
    expect(asked).toBeLessThanOrEqual(0.1 * BUDGET);
    // a remark that names what left the prompt: the share
    expect(await blockFor('Biscuit ate biscuits at the Tahoe cabin, as I told you.')).toBeLessThanOrEqual(
      0.05 * BUDGET,
    );
  });

  it('sends the same prompt on a retry and keeps the block through the steps of its turn', async () => {
    const { run, events } = setup();
    const messages = history('Which lake does Biscuit swim in?');
    const first = await run(messages);
    const count = events.length;
    const retry = await run(messages);
    expect(JSON.stringify(retry.messages)).toBe(JSON.stringify(first.messages));
    expect(events).toHaveLength(count);
    const step = await run([
      ...messages,
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'w1', name: 'weather', args: { place: 'Lake Tahoe' } }],
      },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'w1', name: 'weather', output: 'sunny, 24 C' }] },
    ]);
    expect(JSON.stringify(step.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
  });

  it('takes a chat turn block out when the next user message comes, and says so', async () => {
    const { run, events } = setup();
    const messages = history('Which lake does Biscuit swim in?');
    await run(messages);
    const next = await run([...messages, text('assistant', 'Lake Tahoe.'), text('user', 'Message 99: word word word')]);
    expect(recallBlocks(next.messages)).toEqual([]);
    const details = events.at(-1)?.decisions.map((decision) => decision.details) ?? [];
    expect(details.some((detail) => detail.includes('left the prompt'))).toBe(true);
    expect(events.at(-1)?.recalled.blocksDropped).toBe(1);
    // a retry of that call finds the decision made: the same prompt, nothing reported again
    const count = events.length;
    const retry = await run([
      ...messages,
      text('assistant', 'Lake Tahoe.'),
      text('user', 'Message 99: word word word'),
    ]);
    expect(JSON.stringify(retry.messages)).toBe(JSON.stringify(next.messages));
    expect(events).toHaveLength(count);
  });

  it('keeps a block when the messages after it outweigh it (rewriting them would cost more)', async () => {
    const { run, events } = setup({ masking: false });
    const messages = history('Which lake does Biscuit swim in?');
    const first = await run(messages);
    const [block] = recallBlocks(first.messages);
    expect(block).toBeDefined();
    const next = await run([...messages, ...mapsLoop(), text('assistant', 'Lake Tahoe.'), text('user', 'Thanks!')]);
    expect(recallBlocks(next.messages)).toEqual([block]);
    expect(events.at(-1)?.recalled.blocksDropped ?? 0).toBe(0);
  });

  it('keeps a kept block through the steps of the next turn, and when two user messages come at once', async () => {
    for (const between of [[], [text('assistant', 'Noted.'), text('user', 'One more thing: it is sunny.')]]) {
      const { run, events } = setup({ masking: false });
      const messages = history('Which lake does Biscuit swim in?');
      const first = await run(messages);
      const [block] = recallBlocks(first.messages);
      expect(block).toBeDefined();
      const turn = [...messages, ...mapsLoop(), text('assistant', 'Lake Tahoe.'), ...between, text('user', 'Thanks!')];
      const next = await run(turn);
      expect(recallBlocks(next.messages)).toEqual([block]);
      const count = events.length;
      // the next step of that turn: the block stays, the prompt only grows at its end, nothing to report
      const step = await run([
        ...turn,
        { role: 'assistant', parts: [{ type: 'tool-call', id: 'w1', name: 'weather', args: { place: 'Tahoe' } }] },
        { role: 'tool', parts: [{ type: 'tool-result', callId: 'w1', name: 'weather', output: 'sunny, 24 C' }] },
      ]);
      expect(JSON.stringify(step.messages.slice(0, next.messages.length))).toBe(JSON.stringify(next.messages));
      expect(events).toHaveLength(count);
    }
  });

  it('keeps the block through the steps of its turn when a failed summary dropped what it quotes', async () => {
    const { run, errors } = setup({
      summarizer: async () => {
        throw new Error('summarizer down');
      },
    });
    // a message in view that matches the question too: once the steps bring tool results, a choice made again would
    // be held to it (and quote nothing)
    const messages = [
      ...history('Which lake does Biscuit swim in?').slice(0, -1),
      text('assistant', 'Biscuit swims in the lake, you said.'),
      text('user', 'Which lake does Biscuit swim in?'),
    ];
    const first = await run(messages);
    expect(errors.map((event) => event.fallback)).toContain('dropped-oldest-turns');
    const [block] = recallBlocks(first.messages);
    expect(block).toBeDefined();
    let steps = messages;
    for (let i = 0; i < 3; i++) {
      steps = [
        ...steps,
        { role: 'assistant', parts: [{ type: 'tool-call', id: `w${i}`, name: 'weather', args: { day: i } }] },
        {
          role: 'tool',
          parts: [{ type: 'tool-result', callId: `w${i}`, name: 'weather', output: `day ${i}: sunny` }],
        },
      ];
      const step = await run(steps);
      expect(JSON.stringify(step.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
    }
  });

  it('recalls nothing for a remark about what is in view, and nothing when nothing left the prompt', async () => {
    const { run } = setup();
    expect(recallBlocks((await run(history('Message 58: word word word word'))).messages)).toEqual([]);
    const short = await run([text('user', FACT), text('assistant', 'Fun!'), text('user', 'Where does Biscuit swim?')]);
    expect(recallBlocks(short.messages)).toEqual([]);
  });

  it('recalls for a remark that names something that left the prompt', async () => {
    const { run } = setup();
    const out = await run(history('Biscuit jumped into Lake Tahoe again today.'));
    expect(recallBlocks(out.messages)).toHaveLength(1);
  });

  it('takes a piece out of its block once the model redacts the result it quotes', async () => {
    const { run } = setup({ masking: false });
    const call = (id: string, name: string, args: unknown): Message => ({
      role: 'assistant',
      parts: [{ type: 'tool-call', id, name, args }],
    });
    const result = (id: string, name: string, output: string): Message => ({
      role: 'tool',
      parts: [{ type: 'tool-result', callId: id, name, output }],
    });
    const messages: Message[] = [
      text('user', 'Read the deployment config.'),
      call('cfg', 'read', { path: 'deploy.toml' }),
      result('cfg', 'read', 'port = 8443\ntoken = tahoe-secret-771'),
      text('assistant', 'Read it.'),
      ...chat(60),
      text('user', 'Which port and token does deploy.toml set?'),
    ];
    const first = await run(messages);
    expect(recallBlocks(first.messages).map(messageText).join()).toContain('tahoe-secret-771');
    const redact = [
      call('r1', DEFAULT_REDACTION_TOOL_NAME, { toolCallIds: ['cfg'], reason: 'It holds a secret.' }),
      result('r1', DEFAULT_REDACTION_TOOL_NAME, 'Redacted.'),
    ];
    const after = await run([...messages, ...redact]);
    expect(JSON.stringify(after.messages)).not.toContain('tahoe-secret-771');
  });

  it('is off with `recall: false`', async () => {
    const { run } = setup({ recall: false });
    expect(recallBlocks((await run(history('Which lake does Biscuit swim in?'))).messages)).toEqual([]);
  });

  it('is the same block for another engine instance sharing the store', async () => {
    const store = memoryStateStore();
    const first = setup({ store });
    const messages = history('Which lake does Biscuit swim in?');
    const out = await first.run(messages);
    const second = setup({ store });
    const again = await second.run(messages);
    expect(second.summarize).not.toHaveBeenCalled();
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(out.messages));
  });

  it('rejects a budget share outside (0, 1) and unknown keys', () => {
    for (const recall of [{ budgetShare: 0 }, { budgetShare: 1.5 }, { budgetShare: Number.NaN }, { share: 0.1 }]) {
      expect(() => new CompressionEngine({ contextWindow: 4_000, recall: recall as never })).toThrow(
        InvalidOptionError,
      );
    }
  });
});

describe('recall through the adapters', () => {
  it('AI SDK: the block is a user message followed by an assistant acknowledgement', async () => {
    const mock = echoModel();
    const model = withContextCompression(mock, {
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
    });
    await generateText({
      model,
      system: messageText(SYSTEM[0] as Message),
      messages: chatModelMessages(history('Which lake does Biscuit swim in?')),
    });
    const prompt = mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt;
    const roles = prompt.map((message) => message.role);
    expect(roles.slice(-3)).toEqual(['user', 'assistant', 'user']);
    const block = prompt.at(-3);
    expect(block?.role === 'user' && block.content[0]?.type === 'text' && block.content[0].text).toContain(
      '<recalled_messages>',
    );
  });

  it('LangChain: compressMessages returns the block as a HumanMessage before the question', async () => {
    const messages = history('Which lake does Biscuit swim in?').map((message) =>
      message.role === 'user'
        ? new HumanMessage(messageText(message))
        : { role: 'assistant', content: messageText(message) },
    );
    const out = await compressMessages({
      model: 'test-model',
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
    }).invoke(messages as never);
    const block = out.at(-3);
    expect(HumanMessage.isInstance(block)).toBe(true);
    expect(String(block?.content)).toContain('Lake Tahoe every summer');
  });
});

describe('recall limits', () => {
  it('never takes the prompt past the recall budget or the hard limit, even for text that escapes to more', async () => {
    const { run } = setup();
    const markup = `<table><tr><td>Tahoe & co</td></tr></table>`.repeat(40);
    const out = await run([
      text('user', `The tahoe thing looked like this: ${markup}`),
      text('assistant', 'Nice.'),
      ...chat(60),
      text('user', 'What did the tahoe thing look like?'),
    ]);
    const [block] = recallBlocks(out.messages);
    // a question in a chat: twice the 10% share at most, and never past the threshold
    expect(block).toBeDefined();
    expect(meter.measure(block as Message).tokens).toBeLessThanOrEqual(0.2 * BUDGET);
    expect(out.estimatedTokens).toBeLessThanOrEqual(0.7 * BUDGET);
  });
});
