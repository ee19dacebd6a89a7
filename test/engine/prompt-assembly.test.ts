import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import { ConversationMemory } from '../../src/engine/conversation-memory.js';
import { PromptAssembly } from '../../src/engine/prompt-assembly.js';
import { blockIdentity } from '../../src/engine/sent-prompts.js';
import { DEFAULT_STATE_ACKNOWLEDGEMENT } from '../../src/options/prompts.js';
import { RecallPlanner } from '../../src/recall/recall-planner.js';
import { DEFAULT_RECALL_ACKNOWLEDGEMENT } from '../../src/recall/render-recall.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';
import { callFacts, pointAt } from '../helpers/call-facts.js';
import { expectSameObjects, meter, text } from '../helpers/fixtures.js';

/** PromptAssembly on hand-built histories and points: what it sends, in which order, as which objects, and its counts. */

const callOf = (id: string): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', id, name: 'read_file', args: { path: `src/${id}.ts` } }],
});
const resultOf = (id: string, output: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name: 'read_file', output }],
});
/** About 400 tokens of a file, each line different. */
const fileText = (name: string) =>
  Array.from({ length: 50 }, (_, line) => `${name} line ${line}: export const value${line} = ${line};`).join('\n');

/** A chat turn, then a tool loop of two reads and a closing answer, then a new user message. */
const HISTORY: readonly Message[] = [
  text('user', 'What does the cache module export? List every constant.'), // 0
  text('assistant', 'It exports a bounded cache and its default size.'), // 1
  text('user', 'Fix the failing test in src/app.ts.'), // 2
  callOf('read-a'), // 3
  resultOf('read-a', fileText('a')), // 4
  callOf('read-b'), // 5
  resultOf('read-b', fileText('b')), // 6
  text('assistant', 'The test now passes.'), // 7
  text('user', 'Thanks. Now what did the cache module export again?'), // 8
];

const STATE: SessionState = {
  logos: ['The cache module exports boundedCache and DEFAULT_SIZE.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'The user asked about the cache module, then asked for a fix of a failing test.',
};

/** The facts of a call whose caller's messages are other objects than the engine's (as after an earlier call). */
function factsOf(messages: readonly Message[] = HISTORY): CallFacts {
  const facts = callFacts(messages);
  const input = messages.map(
    (message, index): Message => ({
      ...message,
      original: { caller: index },
      parts: message.parts.map((part, at) => ({ ...part, original: { caller: index, part: at } })),
    }),
  );
  return { ...facts, input };
}

function assemblyOf(keepRecent = 0) {
  const memory = new ConversationMemory(meter);
  const recall = new RecallPlanner(meter, DEFAULT_RECALL_ACKNOWLEDGEMENT, { onEmbedderError: () => {} });
  const assembly = new PromptAssembly(
    meter,
    { keepRecent, acknowledgement: DEFAULT_STATE_ACKNOWLEDGEMENT },
    memory,
    recall,
  );
  return { assembly, memory, recall };
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('PromptAssembly without a state', () => {
  it('sends the history as it came: the caller’s own message objects, measured on the engine’s', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts);
    const { messages, measures } = assembly.assemble(facts, point, assembly.project(facts, point));
    expectSameObjects(messages, facts.input);
    expect(messages[0]).not.toBe(facts.messages[0]);
    expect(measures.map((measure) => measure.hash)).toEqual(facts.messages.map((message) => meter.hash(message)));
  });

  it('counts the fixed part and every message, and no state', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts);
    const projection = assembly.project(facts, point);
    const messageTokens = sum(facts.messages.map((message) => meter.measure(message).tokens));
    expect(assembly.total(projection, point)).toBe(facts.fixedTokens + messageTokens);
  });

  it('counts a missing state as 0 tokens', () => {
    expect(assemblyOf().assembly.stateTokens(undefined)).toBe(0);
  });
});

describe('PromptAssembly with a state', () => {
  it('sends the state pair first, then the messages from the fold point on as the caller’s', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts, { coveredCount: 2, state: STATE });
    const { messages } = assembly.assemble(facts, point, assembly.project(facts, point));
    expect(messages.map((message) => message.synthetic)).toEqual([
      'session-state',
      'acknowledgement',
      ...HISTORY.slice(2).map(() => undefined),
    ]);
    expect(messageText(messages[0] as Message)).toContain('boundedCache and DEFAULT_SIZE');
    expect(messageText(messages[1] as Message)).toBe(DEFAULT_STATE_ACKNOWLEDGEMENT);
    expectSameObjects(messages.slice(2), facts.input.slice(2));
  });

  it('counts the state pair’s tokens in the total', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const folded = pointAt(facts, { coveredCount: 2, state: STATE });
    const bare = pointAt(facts, { coveredCount: 2 });
    const projection = assembly.project(facts, folded);
    const { messages } = assembly.assemble(facts, folded, projection);
    const pairTokens = sum(messages.slice(0, 2).map((message) => meter.measure(message).tokens));
    expect(assembly.stateTokens(STATE)).toBe(pairTokens);
    expect(pairTokens).toBeGreaterThan(0);
    expect(assembly.total(projection, folded)).toBe(assembly.total(projection, bare) + pairTokens);
    const keptTokens = sum(facts.messages.slice(2).map((message) => meter.measure(message).tokens));
    expect(assembly.total(projection, folded)).toBe(facts.fixedTokens + pairTokens + keptTokens);
  });

  it('renders the state pair once per state object', () => {
    const { assembly, memory } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts, { coveredCount: 2, state: STATE });
    const projection = assembly.project(facts, point);
    const first = assembly.messages(facts, point, projection);
    const second = assembly.messages(facts, point, projection);
    expect(second[0]?.sent).toBe(first[0]?.sent);
    expect(second[1]?.sent).toBe(first[1]?.sent);
    expect(memory.statePairs.get(STATE)?.[0]).toBe(first[0]?.message);
    // an equal state of its own is another object, rendered anew
    const copy = { ...STATE };
    const other = assembly.messages(facts, { ...point, state: copy }, projection);
    expect(other[0]?.sent).not.toBe(first[0]?.sent);
    expect(other[0]?.sent).toEqual(first[0]?.sent);
  });

  it('pins the user message of a turn the fold point splits, as the caller’s, after the state pair', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    // messages 0-4 folded: the kept part starts inside the turn of message 2
    const point = pointAt(facts, { coveredCount: 5, state: STATE });
    const projection = assembly.project(facts, point);
    const { messages } = assembly.assemble(facts, point, projection);
    expect(messages).toHaveLength(2 + 1 + HISTORY.length - 5);
    expect(messages[2]).toBe(facts.input[2]);
    expectSameObjects(messages.slice(3), facts.input.slice(5));
    const pinnedTokens = meter.measure(facts.messages[2] as Message).tokens;
    const keptTokens = sum(facts.messages.slice(5).map((message) => meter.measure(message).tokens));
    expect(assembly.total(projection, point)).toBe(
      facts.fixedTokens + assembly.stateTokens(STATE) + pinnedTokens + keptTokens,
    );
  });

  it('pins nothing when the fold point is at a user message', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts, { coveredCount: 8, state: STATE });
    const { messages } = assembly.assemble(facts, point, assembly.project(facts, point));
    expect(messages).toHaveLength(3);
    expect(messages[2]).toBe(facts.input[8]);
  });
});

describe('PromptAssembly with a masked result', () => {
  const key = (facts: CallFacts) => facts.sites.find((site) => site.callId === 'read-a')?.key as string;

  it('sends the masked result as an edited message: a new object carrying the caller’s framework objects', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts, { masked: new Set([key(facts)]) });
    const projection = assembly.project(facts, point);
    const { messages, measures } = assembly.assemble(facts, point, projection);
    const sent = messages[4] as Message;
    expect(sent).not.toBe(facts.input[4]);
    expect(sent).not.toBe(facts.messages[4]);
    expect(messageText(sent)).not.toContain('a line 30');
    expect(sent.original).toBe(facts.input[4]?.original);
    expect(sent.parts[0]?.original).toBe(facts.input[4]?.parts[0]?.original);
    // measured on the edited message, smaller than the result
    expect(measures[4]?.hash).toBe(meter.hash(projection.view.messages[4] as Message));
    expect(measures[4]?.tokens).toBeLessThan(meter.measure(facts.messages[4] as Message).tokens);
    // the other messages go out as they came
    expectSameObjects(messages.slice(0, 4), facts.input.slice(0, 4));
    expectSameObjects(messages.slice(5), facts.input.slice(5));
  });

  it('returns the same edited object on a second call with the same caller’s message', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts, { masked: new Set([key(facts)]) });
    const first = assembly.assemble(facts, point, assembly.project(facts, point)).messages[4];
    const again = assembly.assemble(facts, point, assembly.project(facts, point)).messages[4];
    expect(again).toBe(first);
  });

  it('counts the placeholder, not the result, in the total', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const start = pointAt(facts);
    const masked = pointAt(facts, { masked: new Set([key(facts)]) });
    const before = assembly.total(assembly.project(facts, start), start);
    const after = assembly.total(assembly.project(facts, masked), masked);
    expect(after).toBeLessThan(before - 200);
  });
});

describe('PromptAssembly with recall blocks', () => {
  const items = ['0:0'];

  it('sends a recall block just before the user message it was made for, and counts it', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts, { coveredCount: 2, state: STATE, recalls: new Map([[8, items]]) });
    const plain = pointAt(facts, { coveredCount: 2, state: STATE });
    const projection = assembly.project(facts, point);
    const { messages } = assembly.assemble(facts, point, projection);
    const blockTokens = assembly.blockTokens(facts, 8, items);
    expect(blockTokens).toBeGreaterThan(0);
    expect(messages).toHaveLength(2 + (HISTORY.length - 2) + 2);
    const at = messages.indexOf(facts.input[8] as Message);
    expect(at).toBe(messages.length - 1);
    expect(messages[at - 2]?.synthetic).toBe('recall');
    expect(messageText(messages[at - 2] as Message)).toContain('What does the cache module export?');
    expect(sum(messages.slice(at - 2, at).map((message) => meter.measure(message).tokens))).toBe(blockTokens);
    expect(assembly.total(projection, point)).toBe(assembly.total(assembly.project(facts, plain), plain) + blockTokens);
  });

  it('names the blocks the prompt carries by identity, not those of folded messages or that quote nothing', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point = pointAt(facts, {
      coveredCount: 2,
      recalls: new Map<number, readonly string[]>([
        [8, items],
        [2, []],
        [0, ['1:0']],
      ]),
    });
    expect([...assembly.blocks(facts, point)]).toEqual([blockIdentity(8, facts.prefixHashes, items)]);
    expect(assembly.blocks(facts, pointAt(facts, { coveredCount: 2 })).size).toBe(0);
  });

  it('makes no block for items that name nothing in the history', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    expect(assembly.blockTokens(facts, 8, ['40:0'])).toBe(0);
    expect(assembly.blockTokens(facts, 8, [])).toBe(0);
    const point = pointAt(facts, { recalls: new Map([[8, ['40:0']]]) });
    const { messages } = assembly.assemble(facts, point, assembly.project(facts, point));
    expectSameObjects(messages, facts.input);
    expect(assembly.blocks(facts, point).size).toBe(0);
  });
});

describe('PromptAssembly.messages', () => {
  it('pairs each sent message with the engine’s object it was measured on', () => {
    const { assembly } = assemblyOf();
    const facts = factsOf();
    const point: CompressionPoint = pointAt(facts, { coveredCount: 2, state: STATE });
    const prompt = assembly.messages(facts, point, assembly.project(facts, point));
    expect(prompt[0]?.message).toBe(prompt[0]?.sent);
    expect(prompt[2]?.message).toBe(facts.messages[2]);
    expect(prompt[2]?.sent).toBe(facts.input[2]);
  });
});
