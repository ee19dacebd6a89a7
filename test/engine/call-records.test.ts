import { describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import { type CompressionPoint, startingPoint } from '../../src/call/compression-point.js';
import { EMPTY_STAGE_REPORT } from '../../src/call/stage.js';
import { CallRecords } from '../../src/engine/call-records.js';
import { ConversationMemory } from '../../src/engine/conversation-memory.js';
import type { Decided } from '../../src/engine/decide.js';
import { PromptAssembly } from '../../src/engine/prompt-assembly.js';
import { StoreError } from '../../src/errors.js';
import { DEFAULT_STATE_ACKNOWLEDGEMENT } from '../../src/options/prompts.js';
import { STATE_FORMAT_VERSION, StateRecords } from '../../src/persistence/state-records.js';
import { memoryStateStore } from '../../src/persistence/state-store.js';
import { RecallPlanner } from '../../src/recall/recall-planner.js';
import { DEFAULT_RECALL_ACKNOWLEDGEMENT } from '../../src/recall/render-recall.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, pointAt } from '../helpers/call-facts.js';
import { chat, meter, readOneFile, text } from '../helpers/fixtures.js';

/** CallRecords on a memory store: the record a call starts from, the recall choices it finds, and what it leaves. */

const STATE: SessionState = {
  logos: ['The user wants short answers.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'Earlier turns were condensed.',
};

/** A state of about 1,500 tokens: many facts and a long summary. */
const LARGE_STATE: SessionState = {
  logos: Array.from({ length: 60 }, (_, index) => `Fact ${index}: the module m${index}.ts exports f${index}().`),
  pathos: [],
  abstract: [],
  conversationSummary: 'The user and the assistant went through every module. '.repeat(40),
};

const HISTORY = chat(7);

/** Call records on their own memory store, with the errors they reported. */
function recordsOf() {
  const errors: CompressionErrorEvent[] = [];
  const store = memoryStateStore();
  const stateRecords = new StateRecords(store, undefined);
  const memory = new ConversationMemory(meter);
  const recall = new RecallPlanner(meter, DEFAULT_RECALL_ACKNOWLEDGEMENT, { onEmbedderError: () => {} });
  const assembly = new PromptAssembly(
    meter,
    { keepRecent: 0, acknowledgement: DEFAULT_STATE_ACKNOWLEDGEMENT },
    memory,
    recall,
  );
  const records = new CallRecords(stateRecords, memory, assembly, meter, DEFAULT_STATE_ACKNOWLEDGEMENT, (event) =>
    errors.push(event),
  );
  return { records, stateRecords, store, memory, assembly, errors };
}

/** The facts of a call with a state cap of `maxStateTokens` tokens. */
function cappedFacts(messages: readonly Message[], maxStateTokens: number): CallFacts {
  const facts = callFacts(messages);
  return { ...facts, limits: { ...facts.limits, maxStateTokens } };
}

/** Where the stages left a call at `point` (`lasting`: the point before a forced drop). */
function decidedAt(
  { assembly }: ReturnType<typeof recordsOf>,
  facts: CallFacts,
  point: CompressionPoint,
  changes: Partial<Decided> = {},
): Decided {
  return { ...EMPTY_STAGE_REPORT, point, lasting: point, projection: assembly.project(facts, point), ...changes };
}

/** Saves what a call that started from nothing stored (`start`) and ended at `point` leaves. */
async function saveAt(
  parts: ReturnType<typeof recordsOf>,
  facts: CallFacts,
  point: CompressionPoint,
  start: CompressionPoint = startingPoint(facts, undefined),
) {
  const decided = decidedAt(parts, facts, point);
  const sent = parts.assembly.assemble(facts, point, decided.projection).measures;
  await parts.records.save(facts, { start, decided, found: undefined, stored: undefined, sent, blocks: new Set() });
  return sent;
}

describe('CallRecords.load', () => {
  it('finds nothing on an empty store', async () => {
    const { records, errors } = recordsOf();
    expect(await records.load(callFacts(HISTORY))).toEqual({ found: undefined, stored: undefined, fitted: undefined });
    expect(errors).toEqual([]);
  });

  it('finds the record a call that folded saved, for a longer history that extends it', async () => {
    const parts = recordsOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    await saveAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: STATE }));
    const { found, stored, fitted } = await parts.records.load(callFacts(HISTORY));
    expect(found).toMatchObject({ version: STATE_FORMAT_VERSION, through: 2, coveredCount: 2, state: STATE });
    expect(stored).toBe(found);
    expect(fitted).toBe(stored);
  });

  it('finds nothing for a history whose messages differ before the fold point', async () => {
    const parts = recordsOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    await saveAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: STATE }));
    const edited = callFacts([HISTORY[0] as Message, text('assistant', 'Another answer.'), ...HISTORY.slice(2)]);
    expect((await parts.records.load(edited)).found).toBeUndefined();
  });

  it('gives back a stored state larger than the call’s cap as stored and fitted to it', async () => {
    const parts = recordsOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    await saveAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: LARGE_STATE }));
    const cap = 300;
    expect(parts.assembly.stateTokens(LARGE_STATE)).toBeGreaterThan(cap);
    const { found, stored, fitted } = await parts.records.load(cappedFacts(HISTORY, cap));
    expect(found?.state).toEqual(LARGE_STATE);
    expect(stored?.state).toEqual(LARGE_STATE);
    expect(fitted?.coveredCount).toBe(2);
    expect(fitted?.state).not.toEqual(LARGE_STATE);
    expect(parts.assembly.stateTokens(fitted?.state as SessionState)).toBeLessThanOrEqual(cap);
  });

  it('reports a stored record whose fold point would part a tool call from its result, and uses none', async () => {
    const parts = recordsOf();
    const history = readOneFile();
    const facts = callFacts(history);
    await parts.stateRecords.save({
      scope: facts.scope,
      anchor: facts.anchor,
      record: {
        version: STATE_FORMAT_VERSION,
        through: 2,
        prefixHash: (facts.prefixHashes[2] as number).toString(36),
        coveredCount: 2,
        state: STATE,
        droppedCount: 0,
        masked: [],
      },
    });
    const { found, stored, fitted } = await parts.records.load(facts);
    expect(found?.coveredCount).toBe(2);
    expect(stored).toBeUndefined();
    expect(fitted).toBe(stored);
    expect(parts.errors).toHaveLength(1);
    expect(parts.errors[0]?.fallback).toBe('without-store');
    expect(StoreError.isInstance(parts.errors[0]?.error)).toBe(true);
  });
});

describe('CallRecords.save', () => {
  it('stores nothing for a call that changed nothing, but remembers what it sent', async () => {
    const parts = recordsOf();
    const facts = callFacts(HISTORY);
    const start = startingPoint(facts, undefined);
    const sent = await saveAt(parts, facts, start, start);
    expect(parts.store.size).toBe(0);
    const previous = parts.memory.sentPrompts.previous(facts.conversationKey);
    expect(previous?.history).toEqual({ length: HISTORY.length, hash: facts.prefixHashes[HISTORY.length] });
    expect(previous?.hashes).toEqual(sent.map((measure) => measure.hash));
    expect(previous?.record).toBeUndefined();
    expect(previous?.partial).toBe(false);
  });

  it('remembers the prompt of a call that folded with the point it was sent at and the record it saved', async () => {
    const parts = recordsOf();
    const facts = callFacts(HISTORY);
    const point = pointAt(facts, { coveredCount: 2, state: STATE });
    const sent = await saveAt(parts, facts, point);
    const previous = parts.memory.sentPrompts.previous(facts.conversationKey);
    expect(previous?.decided?.point).toBe(point);
    expect(previous?.hashes).toEqual(sent.map((measure) => measure.hash));
    expect(previous?.hashes).toHaveLength(2 + HISTORY.length - 2);
    expect(previous?.record).toMatchObject({ coveredCount: 2, state: STATE });
  });

  it('does not write again a record the call found as it is', async () => {
    const parts = recordsOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    await saveAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: STATE }));
    const facts = callFacts(HISTORY);
    const { found, stored } = await parts.records.load(facts);
    const start = startingPoint(facts, stored);
    // a point the stages moved and brought back: the record it makes is the stored one
    const point = { ...start };
    const decided = decidedAt(parts, facts, point);
    const set = vi.spyOn(parts.store, 'set');
    await parts.records.save(facts, { start, decided, found, stored, sent: [], blocks: new Set() });
    expect(set).not.toHaveBeenCalled();
    expect(parts.memory.sentPrompts.previous(facts.conversationKey)?.record).toBe(found);
  });

  it('saves a refitted state even when the record is otherwise the stored one', async () => {
    const parts = recordsOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    await saveAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: LARGE_STATE }));
    const facts = cappedFacts(HISTORY, 300);
    const loaded = await parts.records.load(facts);
    expect(loaded.fitted).not.toBe(loaded.stored);
    const start = startingPoint(facts, loaded.fitted);
    await parts.records.save(facts, {
      start,
      decided: decidedAt(parts, facts, start, { stateRefitted: true }),
      found: loaded.found,
      stored: loaded.fitted,
      sent: [],
      blocks: new Set(),
    });
    const again = await parts.records.load(facts);
    expect(again.fitted).toBe(again.stored);
    expect(again.found?.state).toEqual(loaded.fitted?.state);
  });

  it('keeps a drop a failed summary forced apart, as the record’s provisional drop', async () => {
    const parts = recordsOf();
    const facts = callFacts(HISTORY);
    const lasting = pointAt(facts, { coveredCount: 2, state: STATE });
    const point = pointAt(facts, { coveredCount: 4, state: STATE, droppedCount: 2 });
    const decided = decidedAt(parts, facts, point, { lasting });
    await parts.records.save(facts, {
      start: pointAt(facts),
      decided,
      found: undefined,
      stored: undefined,
      sent: [],
      blocks: new Set(),
    });
    const { found } = await parts.records.load(callFacts([...HISTORY, text('assistant', 'More.')]));
    expect(found).toMatchObject({
      coveredCount: 2,
      state: STATE,
      droppedCount: 0,
      provisional: { coveredCount: 4, droppedCount: 2 },
    });
  });

  it('remembers a call that applied a longer history’s record in part', async () => {
    const parts = recordsOf();
    const facts = callFacts(HISTORY);
    const found = {
      version: STATE_FORMAT_VERSION,
      through: 6,
      prefixHash: 'x',
      coveredCount: 2,
      droppedCount: 0,
      masked: ['not-in-this-history'],
    } as const;
    const start = pointAt(facts);
    await parts.records.save(facts, {
      start,
      decided: decidedAt(parts, facts, start),
      found: { ...found, masked: [...found.masked] },
      stored: undefined,
      sent: [],
      blocks: new Set(),
    });
    expect(parts.memory.sentPrompts.previous(facts.conversationKey)?.partial).toBe(true);
  });
});

describe('CallRecords.recallChoices', () => {
  /** A chat, then a tool step after its latest user message (index 4). */
  const STEP: Message[] = [
    { role: 'assistant', parts: [{ type: 'tool-call', id: 's1', name: 'search', args: { query: 'cache' } }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 's1', name: 'search', output: 'src/cache.ts' }] },
  ];
  const CHAT = chat(5);

  /** Saves a call of CHAT that folded two messages and chose a recall block for its latest user message. */
  async function savedWithChoice(parts: ReturnType<typeof recordsOf>) {
    const facts = callFacts(CHAT);
    const point = pointAt(facts, { coveredCount: 2, state: STATE, recalls: new Map([[4, ['0:0']]]) });
    await saveAt(parts, facts, point);
  }

  it('finds the choice an earlier call of the turn stored for the latest user message', async () => {
    const parts = recordsOf();
    await savedWithChoice(parts);
    const facts = callFacts([...CHAT, ...STEP]);
    const { stored } = await parts.records.load(facts);
    expect(stored?.coveredCount).toBe(2);
    expect(await parts.records.recallChoices(facts, stored)).toEqual(new Map([[4, ['0:0']]]));
  });

  it('finds none when recall is off', async () => {
    const parts = recordsOf();
    await savedWithChoice(parts);
    const base = callFacts([...CHAT, ...STEP]);
    const facts = { ...base, limits: { ...base.limits, maxRecallTokens: 0 } };
    const { stored } = await parts.records.load(facts);
    expect(stored).toBeDefined();
    expect((await parts.records.recallChoices(facts, stored)).size).toBe(0);
  });

  it('finds none when nothing is stored for the call', async () => {
    const parts = recordsOf();
    await savedWithChoice(parts);
    const facts = callFacts([...CHAT, ...STEP]);
    expect((await parts.records.recallChoices(facts, undefined)).size).toBe(0);
    const other = recordsOf();
    await saveAt(other, callFacts(CHAT), pointAt(callFacts(CHAT), { coveredCount: 2, state: STATE }));
    const { stored } = await other.records.load(facts);
    expect((await other.records.recallChoices(facts, stored)).size).toBe(0);
  });

  it('stores no choice the call did not make anew', async () => {
    const parts = recordsOf();
    const facts = callFacts(CHAT);
    const point = pointAt(facts, { coveredCount: 2, state: STATE, recalls: new Map([[4, ['0:0']]]) });
    const decided = decidedAt(parts, facts, point);
    // the choice was the starting point's already: found in the store, not made by this call
    await parts.records.save(facts, {
      start: point,
      decided,
      found: undefined,
      stored: undefined,
      sent: [],
      blocks: new Set(),
    });
    expect(parts.store.size).toBe(0);
  });
});
