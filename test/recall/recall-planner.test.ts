import { describe, expect, it } from 'vitest';
import { RecallPlanner } from '../../src/recall/recall-planner.js';
import { DEFAULT_RECALL_ACKNOWLEDGEMENT } from '../../src/recall/render-recall.js';
import { callFacts, pointAt, projectAt } from '../helpers/call-facts.js';
import { chat, meter, text } from '../helpers/fixtures.js';

/** The recall stage's two plans on hand-built calls, each with its own part of the call's report. */

const recall = () => new RecallPlanner(meter, DEFAULT_RECALL_ACKNOWLEDGEMENT, { onEmbedderError: () => {} });
const state = { logos: ['The user has a cat.'], pathos: [], abstract: [], conversationSummary: 'A chat about home.' };

describe('RecallPlanner.review', () => {
  // 11 messages: the block made for the user message at 8 quotes three earlier messages (~170 tokens); the turn after
  // it (messages 8 and 9) is fewer tokens, and the latest user message (10) is the last: a new chat turn
  const facts = callFacts(chat(11));
  const withBlock = pointAt(facts, { recalls: new Map([[8, ['0:0', '2:0', '4:0']]]) });

  it('takes out a block the turn after it outweighs no longer, and reports it as its own', () => {
    const plan = recall().review(facts, withBlock, projectAt(facts, withBlock), false);
    expect(plan?.point.recalls.get(8)).toEqual([]);
    expect(plan?.report?.recalled).toEqual({ chunks: 0, tokens: 0, blocksDropped: 1, piecesRedacted: 0 });
    expect(plan?.report?.decisions?.map((decision) => decision.trigger)).toEqual(['recall']);
    expect(withBlock.recalls.get(8)).toHaveLength(3);
  });

  it('keeps a block while a later call of the same turn runs (the latest user message is not the last)', () => {
    const loop = callFacts([...chat(11), text('assistant', 'Working on it.')]);
    const point = pointAt(loop, { recalls: new Map([[8, ['0:0', '2:0', '4:0']]]) });
    expect(recall().review(loop, point, projectAt(loop, point), false)).toBeUndefined();
  });

  it('drops a block with its turn folded by this call, without a decision of its own (the fold reports it)', () => {
    const folded = pointAt(facts, { coveredCount: 9, state, recalls: withBlock.recalls });
    const plan = recall().review(facts, folded, projectAt(facts, folded), true);
    expect(plan?.point.recalls.size).toBe(0);
    expect(plan?.report?.decisions).toEqual([]);
  });

  it('reports a block whose message an earlier drop left out, and records it empty so it does not come back', () => {
    // a tool step of the turn: the latest user message (8) is left out by a drop carried from an earlier call
    const loop = callFacts([...chat(9), text('assistant', 'Working on it.'), text('user', 'ok')]);
    const carried = pointAt(loop, { coveredCount: 9, state, recalls: new Map([[8, ['0:0', '2:0', '4:0']]]) });
    const plan = recall().review(loop, carried, projectAt(loop, carried), false);
    expect(plan?.point.recalls.get(8)).toEqual([]);
    expect(plan?.report?.recalled?.blocksDropped).toBe(1);
    expect(plan?.report?.decisions?.map((decision) => decision.trigger)).toEqual(['recall']);
  });
});

describe('RecallPlanner.choose', () => {
  const facts = callFacts([
    text('user', 'My cat is named Miso and she is orange.'),
    text('assistant', 'Miso sounds lovely.'),
    text('user', 'I also planted tomatoes in the garden.'),
    text('assistant', 'Good luck with the tomatoes.'),
    text('user', 'Thanks for the tips.'),
    text('assistant', 'You are welcome.'),
    text('user', 'What is the name of my cat?'),
  ]);
  const folded = pointAt(facts, { coveredCount: 4, state });

  it('quotes the folded message that answers the latest question before it, and reports the block', async () => {
    const projection = projectAt(facts, folded);
    const plan = await recall().choose(facts, folded, projection, projection.layout.total(4, 0));
    expect(plan?.point.recalls.get(6)).toContain('0:0');
    expect(plan?.report?.decisions?.[0]?.trigger).toBe('recall');
    expect(plan?.report?.recalled?.chunks).toBe(plan?.point.recalls.get(6)?.length);
    expect(plan?.report?.recalled?.tokens).toBeGreaterThan(0);
  });

  it('chooses nothing when nothing left the prompt, or the latest user message has its choice', async () => {
    const start = pointAt(facts);
    expect(await recall().choose(facts, start, projectAt(facts, start), 0)).toBeUndefined();
    const chosen = pointAt(facts, { coveredCount: 4, state, recalls: new Map([[6, ['0:0']]]) });
    expect(await recall().choose(facts, chosen, projectAt(facts, chosen), 0)).toBeUndefined();
  });
});
