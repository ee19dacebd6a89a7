import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import { EMPTY_STAGE_REPORT, type PromiseBreak } from '../../src/call/stage.js';
import { CallReporter } from '../../src/engine/call-report.js';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import { ConversationMemory } from '../../src/engine/conversation-memory.js';
import type { Decided } from '../../src/engine/decide.js';
import { PromiseKeeper } from '../../src/engine/promise-keeper.js';
import { PromptAssembly } from '../../src/engine/prompt-assembly.js';
import { BrokenPromiseError } from '../../src/errors.js';
import { DEFAULT_STATE_ACKNOWLEDGEMENT } from '../../src/options/prompts.js';
import { RecallPlanner } from '../../src/recall/recall-planner.js';
import { DEFAULT_RECALL_ACKNOWLEDGEMENT } from '../../src/recall/render-recall.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, pointAt, storedRecord } from '../helpers/call-facts.js';
import { chat, expectSameObjects, meter, readOneFile, text } from '../helpers/fixtures.js';

/** PromiseKeeper on hand-built calls: its checks against the previous prompt, what it reports and what it falls back to. */

const STATE: SessionState = {
  logos: ['The user wants short answers.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'Earlier turns were condensed.',
};

const HISTORY = chat(7);

/** A keeper with its own memory, and the errors it reported. */
function keeperOf({ throws = false } = {}) {
  const errors: CompressionErrorEvent[] = [];
  const onError = (event: CompressionErrorEvent) => errors.push(event);
  const memory = new ConversationMemory(meter);
  const recall = new RecallPlanner(meter, DEFAULT_RECALL_ACKNOWLEDGEMENT, { onEmbedderError: () => {} });
  const assembly = new PromptAssembly(
    meter,
    { keepRecent: 0, acknowledgement: DEFAULT_STATE_ACKNOWLEDGEMENT },
    memory,
    recall,
  );
  const reporter = new CallReporter({ onError }, meter);
  const keeper = new PromiseKeeper(meter, assembly, reporter, memory, onError, throws);
  return { keeper, memory, assembly, errors };
}

/** Where the stages left a call at `point`, nothing reported unless `changes` says so. */
function decidedAt(
  { assembly }: ReturnType<typeof keeperOf>,
  facts: CallFacts,
  point: CompressionPoint,
  changes: Partial<Decided> = {},
): Decided {
  return { ...EMPTY_STAGE_REPORT, point, lasting: point, projection: assembly.project(facts, point), ...changes };
}

/** Remembers the prompt a call of `facts` sent at `point`, as the engine does once it saved. */
function sentAt({ assembly, memory }: ReturnType<typeof keeperOf>, facts: CallFacts, point: CompressionPoint) {
  const output = assembly.assemble(facts, point, assembly.project(facts, point));
  memory.sentPrompts.remember(
    facts.conversationKey,
    {
      history: { length: facts.messages.length, hash: facts.prefixHashes[facts.messages.length] as number },
      hashes: output.measures.map((measure) => measure.hash),
      decided: { point, lasting: point },
      record: undefined,
      partial: false,
      blocks: new Set(),
    },
    facts.prefixHashes,
  );
  return output;
}

const outputOf = (facts: CallFacts): CompressOutput => ({
  system: facts.system,
  messages: facts.input,
  estimatedTokens: 0,
  decisions: [],
  deferred: [],
  event: undefined,
  report: {} as CompressOutput['report'],
});

const BREAK: PromiseBreak = { promise: 'silent-change', detail: 'the prompt would change', stage: 'sneaky' };

describe('PromiseKeeper.rejected', () => {
  it('returns a break to keep for the report by default', () => {
    const { keeper } = keeperOf();
    expect(keeper.rejected(BREAK)).toBe(BREAK);
    expect(keeper.rejected(undefined)).toBeUndefined();
  });

  it('throws a BrokenPromiseError naming the promise and the stage when built to throw', () => {
    const { keeper } = keeperOf({ throws: true });
    expect(keeper.rejected(undefined)).toBeUndefined();
    let thrown: unknown;
    try {
      keeper.rejected(BREAK);
    } catch (error) {
      thrown = error;
    }
    expect(BrokenPromiseError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ promise: 'silent-change', stage: 'sneaky', detail: 'the prompt would change' });
  });
});

describe('PromiseKeeper.promises', () => {
  it('owes nothing before this instance sent a prompt for the conversation', () => {
    const parts = keeperOf();
    expect(parts.keeper.promises(callFacts(HISTORY), undefined).owed()).toBe(false);
  });

  it('owes the previous prompt of a history this call extends, not one of another history', () => {
    const parts = keeperOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    sentAt(parts, earlier, pointAt(earlier));
    expect(parts.keeper.promises(callFacts(HISTORY), undefined).owed()).toBe(true);
    const edited = callFacts([...HISTORY.slice(0, 3), text('assistant', 'Another answer.'), ...HISTORY.slice(4)]);
    expect(parts.keeper.promises(edited, undefined).owed()).toBe(false);
  });

  it('owes nothing when the store holds another record than the previous call left', () => {
    const parts = keeperOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    sentAt(parts, earlier, pointAt(earlier));
    expect(parts.keeper.promises(callFacts(HISTORY), storedRecord(2)).owed()).toBe(false);
  });

  it('counts a state as the assembly does', () => {
    const parts = keeperOf();
    const facts = callFacts(HISTORY);
    const checks = parts.keeper.promises(facts, undefined);
    const tiny = { ...facts, limits: { ...facts.limits, maxStateTokens: 1 } };
    const capped = parts.keeper.promises(tiny, undefined);
    const start = parts.keeper.candidate(facts, {
      point: pointAt(facts),
      projection: parts.assembly.project(facts, pointAt(facts)),
      tokens: 0,
    });
    const folded = pointAt(facts, { coveredCount: 2, state: STATE });
    const next = parts.keeper.candidate(facts, {
      point: folded,
      projection: parts.assembly.project(facts, folded),
      tokens: 0,
    });
    const tells = { announces: true, restores: false };
    expect(checks.plan('fold', start, next, tells)).toBeUndefined();
    expect(capped.plan('fold', start, next, tells)).toMatchObject({ promise: 'state-over-cap', stage: 'fold' });
    expect(capped.plan('fold', start, next, tells)?.detail).toContain(`${parts.assembly.stateTokens(STATE)} tokens`);
  });
});

describe('PromiseKeeper.candidate', () => {
  it('shows the checks a point, its tokens and the hashes of the prompt made there', () => {
    const parts = keeperOf();
    const facts = callFacts(HISTORY);
    const point = pointAt(facts, { coveredCount: 2, state: STATE });
    const projection = parts.assembly.project(facts, point);
    const candidate = parts.keeper.candidate(facts, { point, projection, tokens: 123 });
    expect(candidate.point).toBe(point);
    expect(candidate.tokens).toBe(123);
    const { measures } = parts.assembly.assemble(facts, point, projection);
    expect(candidate.hashes()).toEqual(measures.map((measure) => measure.hash));
    expect(candidate.hashes()).toHaveLength(2 + HISTORY.length - 2);
    expect(candidate.editsReported()).toBe(false);
  });

  it('tells of edits the call reports: a tool result shortened anew', () => {
    const parts = keeperOf();
    const history: Message[] = [
      text('user', 'Read the file.'),
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'r1', name: 'read_file', args: { path: 'a.ts' } }] },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: 'r1',
            name: 'read_file',
            output: Array.from({ length: 80 }, (_, line) => `line ${line}: const v${line} = ${line};`).join('\n'),
          },
        ],
      },
      text('assistant', 'Read it.'),
    ];
    const base = callFacts(history);
    const facts = { ...base, limits: { ...base.limits, maxToolResultTokens: 60 } };
    const point = pointAt(facts);
    const candidate = parts.keeper.candidate(facts, {
      point,
      projection: parts.assembly.project(facts, point),
      tokens: 0,
    });
    expect(candidate.editsReported()).toBe(true);
  });
});

describe('PromiseKeeper.sentAsItCame', () => {
  it('returns the output as given and remembers the prompt for the next call', () => {
    const parts = keeperOf();
    const facts = callFacts(HISTORY);
    const output = outputOf(facts);
    expect(parts.keeper.sentAsItCame(facts, undefined, parts.keeper.promises(facts, undefined), output)).toBe(output);
    const previous = parts.memory.sentPrompts.previous(facts.conversationKey);
    expect(previous?.history).toEqual({ length: HISTORY.length, hash: facts.prefixHashes[HISTORY.length] });
    expect(previous?.hashes).toEqual(HISTORY.map((message) => meter.hash(message)));
    expect(previous?.decided).toBeUndefined();
    expect(previous?.partial).toBe(false);
    expect(previous?.blocks.size).toBe(0);
    expect(parts.errors).toEqual([]);
  });

  it('remembers a prompt sent without the record it found as applied in part', () => {
    const parts = keeperOf();
    const facts = callFacts(HISTORY);
    const found = storedRecord(2);
    parts.keeper.sentAsItCame(facts, found, parts.keeper.promises(facts, found), outputOf(facts));
    const previous = parts.memory.sentPrompts.previous(facts.conversationKey);
    expect(previous?.partial).toBe(true);
    expect(previous?.record).toBe(found);
  });

  it('reports nothing when the history continues the previous prompt sent as it came', () => {
    const parts = keeperOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    parts.keeper.sentAsItCame(earlier, undefined, parts.keeper.promises(earlier, undefined), outputOf(earlier));
    const facts = callFacts(HISTORY);
    parts.keeper.sentAsItCame(facts, undefined, parts.keeper.promises(facts, undefined), outputOf(facts));
    expect(parts.errors).toEqual([]);
    expect(parts.memory.sentPrompts.previous(facts.conversationKey)?.history.length).toBe(HISTORY.length);
  });

  it('reports a continuity break to onError, continued, when the history does not continue the previous prompt', () => {
    const parts = keeperOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    sentAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: STATE }));
    const facts = callFacts(HISTORY);
    const output = outputOf(facts);
    expect(parts.keeper.sentAsItCame(facts, undefined, parts.keeper.promises(facts, undefined), output)).toBe(output);
    expect(parts.errors).toHaveLength(1);
    expect(parts.errors[0]?.fallback).toBe('continued');
    expect(parts.errors[0]?.error).toMatchObject({ promise: 'continuity' });
    expect(BrokenPromiseError.isInstance(parts.errors[0]?.error)).toBe(true);
    // remembered all the same: the next call is checked against what went out
    const previous = parts.memory.sentPrompts.previous(facts.conversationKey);
    expect(previous?.hashes).toEqual(HISTORY.map((message) => meter.hash(message)));
  });

  it('throws the continuity break when built to throw, and remembers nothing', () => {
    const parts = keeperOf({ throws: true });
    const earlier = callFacts(HISTORY.slice(0, 5));
    sentAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: STATE }));
    const facts = callFacts(HISTORY);
    expect(() =>
      parts.keeper.sentAsItCame(facts, undefined, parts.keeper.promises(facts, undefined), outputOf(facts)),
    ).toThrow(BrokenPromiseError);
    expect(parts.memory.sentPrompts.previous(facts.conversationKey)?.history.length).toBe(5);
  });
});

describe('PromiseKeeper.checked', () => {
  it('sends the stages’ outcome when nothing was sent before, reporting nothing', () => {
    const parts = keeperOf();
    const facts = callFacts(HISTORY);
    const point = pointAt(facts, { coveredCount: 2, state: STATE });
    const decided = decidedAt(parts, facts, point);
    const result = parts.keeper.checked(facts, parts.keeper.promises(facts, undefined), decided);
    expect(result.decided).toBe(decided);
    expect(result.breaks).toEqual([]);
    expect(result.output.messages[0]?.synthetic).toBe('session-state');
    expectSameObjects(result.output.messages.slice(2), facts.input.slice(2));
    expect(result.edits.announced).toBe(false);
    expect(parts.errors).toEqual([]);
  });

  it('reports the plans the stages left out as plan-rejected', () => {
    const parts = keeperOf();
    const facts = callFacts(HISTORY);
    const decided = decidedAt(parts, facts, pointAt(facts), { broken: [BREAK] });
    parts.keeper.checked(facts, parts.keeper.promises(facts, undefined), decided);
    expect(parts.errors.map((event) => event.fallback)).toEqual(['plan-rejected']);
    expect(parts.errors[0]?.error).toMatchObject({ promise: 'silent-change', stage: 'sneaky' });
  });

  it('falls back to the previous call’s point when the finished prompt breaks continuity', () => {
    const parts = keeperOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    const previousPoint = pointAt(earlier, { coveredCount: 2, state: STATE });
    const sent = sentAt(parts, earlier, previousPoint);
    const facts = callFacts(HISTORY);
    // the stages ended at nothing compressed, with nothing reported: the state pair would leave silently
    const decided = decidedAt(parts, facts, pointAt(facts));
    const result = parts.keeper.checked(facts, parts.keeper.promises(facts, undefined), decided);
    expect(result.decided).not.toBe(decided);
    expect(result.decided.point).toBe(previousPoint);
    expect(result.breaks).toEqual([]);
    expect(result.output.measures.slice(0, sent.measures.length).map((measure) => measure.hash)).toEqual(
      sent.measures.map((measure) => measure.hash),
    );
    expect(result.output.messages).toHaveLength(2 + HISTORY.length - 2);
    expect(parts.errors).toHaveLength(1);
    expect(parts.errors[0]?.fallback).toBe('previous-prompt');
    expect(parts.errors[0]?.error).toMatchObject({ promise: 'continuity' });
  });

  it('keeps the outcome, continued, when the previous point would break continuity too', () => {
    const parts = keeperOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    const previousPoint = pointAt(earlier);
    sentAt(parts, earlier, previousPoint);
    // what went out is not what that point makes (another instance's prompt, say)
    const previous = parts.memory.sentPrompts.previous(earlier.conversationKey);
    parts.memory.sentPrompts.remember(
      earlier.conversationKey,
      { ...(previous as NonNullable<typeof previous>), hashes: [1, 2, 3] },
      earlier.prefixHashes,
    );
    const facts = callFacts(HISTORY);
    const decided = decidedAt(parts, facts, pointAt(facts));
    const result = parts.keeper.checked(facts, parts.keeper.promises(facts, undefined), decided);
    expect(result.decided).toBe(decided);
    expect(result.breaks.map((each) => each.promise)).toEqual(['continuity']);
    expect(parts.errors.map((event) => event.fallback)).toEqual(['continued']);
  });

  it('owes nothing to the previous prompt of another history', () => {
    const parts = keeperOf();
    const earlier = callFacts(HISTORY.slice(0, 5));
    sentAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: STATE }));
    const facts = callFacts([...HISTORY.slice(0, 3), text('assistant', 'Another answer.'), ...HISTORY.slice(4)]);
    const decided = decidedAt(parts, facts, pointAt(facts));
    const result = parts.keeper.checked(facts, parts.keeper.promises(facts, undefined), decided);
    expect(result.decided).toBe(decided);
    expect(result.breaks).toEqual([]);
    expect(parts.errors).toEqual([]);
  });

  it('throws the break of the finished prompt when built to throw', () => {
    const parts = keeperOf({ throws: true });
    const earlier = callFacts(HISTORY.slice(0, 5));
    sentAt(parts, earlier, pointAt(earlier, { coveredCount: 2, state: STATE }));
    const facts = callFacts(HISTORY);
    const decided = decidedAt(parts, facts, pointAt(facts));
    expect(() => parts.keeper.checked(facts, parts.keeper.promises(facts, undefined), decided)).toThrow(
      BrokenPromiseError,
    );
  });

  it('finds a tool call parted from its result in the finished prompt', () => {
    const parts = keeperOf();
    const history = readOneFile();
    const facts = callFacts(history);
    // a fold point between the call and its result, which no stage would choose
    const decided = decidedAt(parts, facts, pointAt(facts, { coveredCount: 2, state: STATE }));
    const result = parts.keeper.checked(facts, parts.keeper.promises(facts, undefined), decided);
    expect(result.breaks.map((each) => each.promise)).toEqual(['tool-pairs']);
    expect(parts.errors.map((event) => event.fallback)).toEqual(['continued']);
  });
});
