import { describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import { chooseRecall } from '../../src/recall/choose-recall.js';
import type { RecallChunk } from '../../src/recall/recall-chunks.js';
import type { RecallHit } from '../../src/recall/recall-fusion.js';
import type { RecallQuery } from '../../src/recall/recall-ranking.js';
import { renderRecallEntry } from '../../src/recall/render-recall.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, pointAt } from '../helpers/call-facts.js';
import { deepFreeze, meter, text } from '../helpers/fixtures.js';

/**
 * chooseRecall with a hand-made ranking: the hits are given, best first, so each test decides what matches; the
 * ranking only drops the chunks the call asks it to leave out (`keep`), as the real one does.
 */

const chunk = (message: number, body: string, index = 0): RecallChunk => ({
  id: `${message}:${index}`,
  message,
  text: body,
  from: 'user',
});
const hit = (message: number, body: string, score: number, index = 0): RecallHit => ({
  chunk: chunk(message, body, index),
  score,
});

/** A ranking that returns `hits` (minus those `keep` leaves out) and remembers what it was asked. */
function ranking(hits: readonly RecallHit[]) {
  return vi.fn(async (query: RecallQuery) => hits.filter((candidate) => query.keep(candidate.chunk)));
}

const ids = (choice: { at: number; items: string[] } | undefined) => choice?.items;

/** A chat: the first two turns fold (covered 4), the third stays, then the latest user message. */
function chat(latest: string): Message[] {
  return [
    text('user', 'Which port does the staging database listen on? I keep forgetting.'), // 0
    text('assistant', 'The staging database listens on port 5433.'), // 1
    text('user', 'And what about the cache cluster?'), // 2
    text('assistant', 'The cache cluster runs Redis 7 on three nodes.'), // 3
    text('user', 'Let us plan the migration for next week.'), // 4
    text('assistant', 'Sure, the migration can start on Monday.'), // 5
    text('user', latest), // 6
  ];
}

const PORT = hit(1, 'The staging database listens on port 5433.', 0.9);
const QUESTION = hit(0, 'Which port does the staging database listen on? I keep forgetting.', 0.5);
const CACHE = hit(3, 'The cache cluster runs Redis 7 on three nodes.', 0.1);
const MIGRATION = hit(5, 'Sure, the migration can start on Monday.', 0.8);

function choose(
  facts: CallFacts,
  point: CompressionPoint,
  rank: ReturnType<typeof ranking>,
  { pinned = -1, budgetTokens = 1_000, redacted = new Set<number>() } = {},
) {
  return chooseRecall({ facts, point, pinned, rank, budgetTokens, meter, redacted });
}

/** Price of a chunk in the block: its rendered entry and the 10 tokens of JSON around it. */
const price = (candidate: RecallHit) => meter.countText(renderRecallEntry(candidate.chunk)) + 10;

describe('chooseRecall: when nothing is chosen', () => {
  it('chooses nothing without a user message', async () => {
    const facts = callFacts([text('assistant', 'Hello, how can I help?')]);
    const rank = ranking([PORT]);
    expect(await choose(facts, pointAt(facts), rank)).toBeUndefined();
    expect(rank).not.toHaveBeenCalled();
  });

  it('chooses nothing when nothing left the prompt', async () => {
    const facts = callFacts(chat('Which port was it again?'));
    const rank = ranking([PORT]);
    expect(await choose(facts, pointAt(facts), rank)).toBeUndefined();
    expect(rank).not.toHaveBeenCalled();
  });

  it('chooses nothing when the latest user message is folded itself', async () => {
    const facts = callFacts(chat('Which port was it again?').slice(0, 6));
    expect(await choose(facts, pointAt(facts, { coveredCount: 5 }), ranking([PORT]))).toBeUndefined();
  });

  it('chooses nothing again for a user message that has its choice already', async () => {
    const facts = callFacts(chat('Which port was it again?'));
    const point = pointAt(facts, { coveredCount: 4, recalls: new Map([[6, []]]) });
    const rank = ranking([PORT]);
    expect(await choose(facts, point, rank)).toBeUndefined();
    expect(rank).not.toHaveBeenCalled();
  });

  it('chooses an empty block when nothing before the message is in view: quoting it back would undo the fold', async () => {
    const facts = callFacts(chat('Which port was it again?'));
    const rank = ranking([PORT]);
    expect(await choose(facts, pointAt(facts, { coveredCount: 6 }), rank)).toEqual({ at: 6, items: [] });
    expect(rank).not.toHaveBeenCalled();
  });
});

describe('chooseRecall: a question in a chat', () => {
  it('takes its best hidden matches, in conversation order, for the latest user message', async () => {
    const facts = callFacts(chat('Which port did the staging database use again?'));
    const rank = ranking([PORT, MIGRATION, QUESTION, CACHE]);
    expect(await choose(facts, pointAt(facts, { coveredCount: 4 }), rank)).toEqual({
      at: 6,
      items: ['0:0', '1:0', '3:0'],
    });
    const query = rank.mock.calls[0]?.[0];
    expect(query).toMatchObject({
      through: 6,
      query: 'Which port did the staging database use again?',
      connect: true,
      conversation: facts.conversationKey,
    });
  });

  it('orders chunks of one message by their number, not as text', async () => {
    const facts = callFacts(chat('Which port did the staging database use again?'));
    const rank = ranking([hit(1, 'port 5433 on staging', 0.9, 10), hit(1, 'moved there last spring', 0.8, 2)]);
    expect(ids(await choose(facts, pointAt(facts, { coveredCount: 4 }), rank))).toEqual(['1:2', '1:10']);
  });

  it('stays within the budget, taking a smaller match after one that does not fit', async () => {
    const facts = callFacts(chat('Which port did the staging database use again?'));
    const long = hit(
      1,
      `The staging database listens on port 5433. ${'It was moved there last spring. '.repeat(20)}`,
      0.9,
    );
    const rank = ranking([long, CACHE]);
    const point = pointAt(facts, { coveredCount: 4 });
    expect(ids(await choose(facts, point, rank, { budgetTokens: price(CACHE) }))).toEqual(['3:0']);
    expect(ids(await choose(facts, point, rank, { budgetTokens: price(CACHE) - 1 }))).toEqual([]);
    expect(ids(await choose(facts, point, rank, { budgetTokens: price(long) + price(CACHE) }))).toEqual(['1:0', '3:0']);
  });

  it('looks at no more than 60 hidden hits', async () => {
    const facts = callFacts(chat('Which port did the staging database use again?'));
    const many = Array.from({ length: 70 }, (_, index) => hit(1, `note ${index} about zebras`, 1 - index / 100, index));
    const chosen = ids(await choose(facts, pointAt(facts, { coveredCount: 4 }), ranking(many), { budgetTokens: 1e6 }));
    expect(chosen).toHaveLength(60);
    expect(chosen?.at(-1)).toBe('1:59');
  });
});

describe('chooseRecall: any other message', () => {
  it('takes only what matches better than anything the model still sees', async () => {
    const facts = callFacts(chat('Remind me of the staging database port.'));
    const rank = ranking([PORT, MIGRATION, QUESTION, CACHE]);
    expect(await choose(facts, pointAt(facts, { coveredCount: 4 }), rank)).toEqual({ at: 6, items: ['1:0'] });
    expect(rank.mock.calls[0]?.[0].connect).toBe(false);
  });

  it('takes nothing when what is in view matches best: a remark on what the model sees', async () => {
    const facts = callFacts(chat('Monday works for the migration.'));
    const rank = ranking([hit(5, 'Sure, the migration can start on Monday.', 0.95), PORT, QUESTION]);
    expect(await choose(facts, pointAt(facts, { coveredCount: 4 }), rank)).toEqual({ at: 6, items: [] });
  });
});

describe('chooseRecall: what is never quoted', () => {
  const facts = callFacts(chat('Which port did the staging database use again?'));

  it('never quotes the pinned user message', async () => {
    const rank = ranking([QUESTION, PORT]);
    expect(ids(await choose(facts, pointAt(facts, { coveredCount: 4 }), rank, { pinned: 0 }))).toEqual(['1:0']);
  });

  it('never quotes a chunk that a block in view quotes already, but may quote one of a folded block', async () => {
    const rank = ranking([PORT, CACHE]);
    const inView = pointAt(facts, { coveredCount: 4, recalls: new Map([[4, ['1:0']]]) });
    expect(ids(await choose(facts, inView, rank))).toEqual(['3:0']);
    const folded = pointAt(facts, { coveredCount: 4, recalls: new Map([[2, ['1:0']]]) });
    expect(ids(await choose(facts, folded, rank))).toEqual(['1:0', '3:0']);
  });

  it('never quotes a message holding a redacted result: the ranking is told to leave it out', async () => {
    const rank = ranking([PORT, CACHE]);
    expect(ids(await choose(facts, pointAt(facts, { coveredCount: 4 }), rank, { redacted: new Set([1]) }))).toEqual([
      '3:0',
    ]);
    const keep = rank.mock.calls[0]?.[0].keep;
    expect(keep?.(PORT.chunk)).toBe(false);
    expect(keep?.(CACHE.chunk)).toBe(true);
  });

  it('never quotes a chunk that only repeats the message', async () => {
    const echo = hit(0, 'Which port did the staging database use?', 0.95);
    const rank = ranking([echo, PORT]);
    expect(ids(await choose(facts, pointAt(facts, { coveredCount: 4 }), rank))).toEqual(['1:0']);
  });
});

describe('chooseRecall: masked tool results', () => {
  const callOf = (id: string, path: string): Message => ({
    role: 'assistant',
    parts: [{ type: 'tool-call', id, name: 'read_file', args: { path } }],
  });
  const resultOf = (id: string, output: string): Message => ({
    role: 'tool',
    parts: [{ type: 'tool-result', callId: id, name: 'read_file', output }],
  });
  const AGENT = [
    text('user', 'Fix the flaky login test.'), // 0
    callOf('read-0', 'src/login.ts'), // 1
    resultOf('read-0', 'export const LOGIN_RETRIES = 3; export function login() {}'), // 2
    callOf('read-1', 'src/session.ts'), // 3
    resultOf('read-1', 'export const SESSION_TIMEOUT = 30;'), // 4
    text('assistant', 'The session timeout is too short.'), // 5
    text('user', 'Why not use the same retry constant as the login code?'), // 6
  ];
  const LOGIN = {
    chunk: { id: '2:0', message: 2, text: 'export const LOGIN_RETRIES = 3;', from: 'tool read_file' },
    score: 0.9,
  };
  const SESSION = {
    chunk: { id: '4:0', message: 4, text: 'export const SESSION_TIMEOUT = 30;', from: 'tool read_file' },
    score: 0.5,
  };

  it('quotes a masked result that matches better than what is in view, even with nothing folded', async () => {
    const facts = callFacts(AGENT);
    const rank = ranking([LOGIN, SESSION]);
    expect(await choose(facts, pointAt(facts, { masked: new Set(['read-0']) }), rank)).toEqual({
      at: 6,
      items: ['2:0'],
    });
    // a message where the assistant works with tools is never a question between people
    expect(rank.mock.calls[0]?.[0].connect).toBe(false);
  });

  it('does not count a redacted result as masked', async () => {
    const facts: CallFacts = { ...callFacts(AGENT), redactions: new Map([['read-0', 'Not needed any more.']]) };
    const rank = ranking([LOGIN, SESSION]);
    expect(await choose(facts, pointAt(facts, { masked: new Set(['read-0']) }), rank)).toBeUndefined();
  });

  it('chooses for the latest user message even when tool steps follow it, and ignores masks after it', async () => {
    const facts = callFacts([...AGENT, callOf('read-2', 'src/retry.ts'), resultOf('read-2', 'export {};')]);
    const rank = ranking([LOGIN, SESSION]);
    expect(await choose(facts, pointAt(facts, { masked: new Set(['read-2']) }), rank)).toBeUndefined();
    expect(await choose(facts, pointAt(facts, { masked: new Set(['read-0', 'read-2']) }), rank)).toEqual({
      at: 6,
      items: ['2:0'],
    });
  });

  it('chooses an empty block when everything between the fold and the message is masked', async () => {
    const facts = callFacts([
      text('user', 'Read it.'),
      callOf('read-0', 'a.ts'),
      resultOf('read-0', 'x'),
      AGENT[6] as Message,
    ]);
    // covered 2: only the masked result at 2 stands between the fold and the user message at 3
    const point = pointAt(facts, { coveredCount: 2, masked: new Set(['read-0']) });
    expect(await choose(facts, point, ranking([LOGIN]))).toEqual({ at: 3, items: [] });
  });
});

describe('chooseRecall inputs', () => {
  it('does not mutate its inputs', async () => {
    const facts = callFacts(chat('Which port did the staging database use again?'));
    const hits = deepFreeze([PORT, MIGRATION, QUESTION, CACHE].map((candidate) => ({ ...candidate })));
    const recalls = new Map([[4, ['9:0']]]);
    const point = pointAt(facts, { coveredCount: 4, recalls });
    const redacted = new Set([7]);
    const rank = vi.fn(async () => hits as RecallHit[]);
    expect(ids(await chooseRecall({ facts, point, pinned: -1, rank, budgetTokens: 1_000, meter, redacted }))).toEqual([
      '0:0',
      '1:0',
      '3:0',
    ]);
    expect(hits.map((candidate) => candidate.chunk.id)).toEqual(['1:0', '5:0', '0:0', '3:0']);
    expect([...recalls]).toEqual([[4, ['9:0']]]);
    expect([...redacted]).toEqual([7]);
    expect(facts.messages).toHaveLength(7);
  });
});
