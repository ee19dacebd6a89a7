import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import { CallPromises, type Candidate, type PromiseSubject } from '../../src/engine/promise-checks.js';
import { blockIdentity, type SentPrompt } from '../../src/engine/sent-prompts.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, pointAt, storedRecord } from '../helpers/call-facts.js';

/** The promise checks on their own: hand-built candidates, facts and previous prompts, no engine. */

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });
const call = (id: string): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', id, name: 'read_file', args: { path: 'a.ts' } }],
});
const result = (id: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name: 'read_file', output: 'export const a = 1;' }],
});

const history = [user('Fix the bug.'), call('c1'), result('c1'), assistant('Done.'), user('Thanks, and the tests?')];

const STATE: SessionState = { logos: ['a fact'], pathos: [], abstract: [], conversationSummary: 'A chat.' };

/** A candidate with given hashes, tokens and point. */
function candidate(point: CompressionPoint, hashes: number[], { tokens = 100, edits = false } = {}): Candidate {
  return { point, tokens, hashes: () => hashes, editsReported: () => edits };
}

/** The previous prompt of the conversation: made from the first `length` messages of `facts`, with `hashes`. */
function previous(facts: CallFacts, length: number, hashes: number[], changes: Partial<SentPrompt> = {}): SentPrompt {
  return {
    history: { length, hash: facts.prefixHashes[length] as number },
    hashes,
    decided: undefined,
    record: undefined,
    partial: false,
    blocks: new Set(),
    left: new Map(),
    ...changes,
  };
}

function promises(facts: CallFacts, changes: Partial<PromiseSubject> = {}): CallPromises {
  return new CallPromises({
    facts,
    previous: undefined,
    found: undefined,
    choices: new Map(),
    stateTokens: () => 50,
    blockTokens: () => 30,
    ...changes,
  });
}

const quiet = { announces: false, restores: false };

describe('CallPromises.owed', () => {
  const facts = callFacts(history);

  it('owes continuity to the previous prompt of a history this one extends, with the store as it left it', () => {
    expect(promises(facts, { previous: previous(facts, 3, [1, 2, 3]) }).owed()).toBe(true);
    expect(promises(facts, { previous: previous(facts, 5, [1, 2, 3]) }).owed()).toBe(true);
  });

  it('owes nothing without a previous prompt, to a branch, or when the store changed since', () => {
    expect(promises(facts).owed()).toBe(false);
    const edited = callFacts([user('Something else.'), ...history.slice(1)]);
    expect(promises(edited, { previous: previous(facts, 3, [1, 2, 3]) }).owed()).toBe(false);
    const before = previous(facts, 3, [1, 2, 3], { record: storedRecord(2) });
    expect(promises(facts, { previous: before, found: storedRecord(3) }).owed()).toBe(false);
    expect(promises(facts, { previous: before, found: storedRecord(2) }).owed()).toBe(true);
  });

  it('owes nothing when a recall choice of a user message the previous prompt had was stored anew since', () => {
    const point = { ...pointAt(facts), recalls: new Map([[0, ['1:0', '2:0']]]) };
    const before = previous(facts, 3, [1, 2, 3], { decided: { point, lasting: point } });
    expect(promises(facts, { previous: before, choices: new Map([[0, ['1:0', '2:0']]]) }).owed()).toBe(true);
    expect(promises(facts, { previous: before, choices: new Map([[0, ['1:0']]]) }).owed()).toBe(false);
    // a choice for a user message the previous prompt did not have yet is no change of it
    expect(promises(facts, { previous: before, choices: new Map([[4, ['1:0']]]) }).owed()).toBe(true);
  });

  it('owes nothing after a call that applied its record in part (a shorter resend of a longer history)', () => {
    expect(promises(facts, { previous: previous(facts, 3, [1, 2, 3], { partial: true }) }).owed()).toBe(false);
  });

  it('compares records by content, whatever the order of their keys (a store that keeps JSON text)', () => {
    const written = { ...storedRecord(2), state: STATE };
    const { version, through, prefixHash, coveredCount, droppedCount, masked } = written;
    const readBack = { masked, droppedCount, coveredCount, prefixHash, through, version, state: { ...STATE } };
    const before = previous(facts, 3, [1], { record: written });
    expect(promises(facts, { previous: before, found: readBack }).owed()).toBe(true);
  });
});

describe('CallPromises.plan', () => {
  const facts = callFacts(history);
  const start = pointAt(facts);

  it('keeps a plan that reports its change, and one that changes nothing the model sees', () => {
    const checks = promises(facts, { previous: previous(facts, 3, [9, 9, 9]) });
    const moved = { ...start, coveredCount: 2 };
    expect(checks.plan('fold', candidate(start, [1, 2]), candidate(moved, [3]), { ...quiet, announces: true })).toBe(
      undefined,
    );
    expect(checks.plan('choose', candidate(start, [1, 2]), candidate(moved, [1, 2]), quiet)).toBe(undefined);
  });

  it('rejects a plan that changes the prompt with nothing reported', () => {
    const checks = promises(facts, { previous: previous(facts, 3, [1, 2, 3]) });
    const moved = { ...start, coveredCount: 2 };
    const found = checks.plan('sneaky', candidate(start, [1, 2, 3, 4]), candidate(moved, [5, 3, 4]), quiet);
    expect(found).toMatchObject({ promise: 'silent-change', stage: 'sneaky' });
    expect(found?.detail).toContain('at message 0');
  });

  it('lets a silent plan bring back the prompt an earlier call sent', () => {
    const moved = { ...start, coveredCount: 2 };
    // owed: it may bring the prompt closer to the previous one (the steps after it bring back the rest), never further
    const owed = promises(facts, { previous: previous(facts, 3, [5, 3, 7]) });
    expect(owed.plan('carry', candidate(start, [1, 2, 3]), candidate(moved, [5, 3, 4]), quiet)).toBe(undefined);
    expect(owed.plan('carry', candidate(start, [5, 2, 3]), candidate(moved, [6, 3, 4]), quiet)?.promise).toBe(
      'silent-change',
    );
    // not owed (a new instance): a plan that says it restores a prompt sent before is taken at its word
    const fresh = promises(facts);
    expect(fresh.plan('carry', candidate(start, [1]), candidate(moved, [6]), { ...quiet, restores: true })).toBe(
      undefined,
    );
    expect(fresh.plan('carry', candidate(start, [1]), candidate(moved, [6]), quiet)?.promise).toBe('silent-change');
  });

  it('lets a silent plan change a prompt whose view the call reports changed (a redaction, a result shortened)', () => {
    const moved = { ...start, coveredCount: 2 };
    const checks = promises(facts, { previous: previous(facts, 3, [1, 2, 3]) });
    expect(checks.plan('carry', candidate(start, [1]), candidate(moved, [6], { edits: true }), quiet)).toBe(undefined);
  });

  it('rejects a state over its cap, and a new recall block over its cap', () => {
    const { maxStateTokens, maxRecallTokens } = facts.limits;
    const big = promises(facts, { stateTokens: () => maxStateTokens + 1 });
    const folded = { ...start, coveredCount: 2, state: STATE };
    expect(
      big.plan('fold', candidate(start, [1]), candidate(folded, [2]), { ...quiet, announces: true }),
    ).toMatchObject({ promise: 'state-over-cap', stage: 'fold' });
    const wide = promises(facts, { blockTokens: () => maxRecallTokens + 1 });
    const recalled = { ...start, recalls: new Map([[4, ['0:0']]]) };
    const announces = { ...quiet, announces: true };
    expect(wide.plan('recall', candidate(start, [1]), candidate(recalled, [2]), announces)?.promise).toBe(
      'recall-over-cap',
    );
    // the same block the call started with is not checked again
    expect(wide.plan('recall', candidate(recalled, [1]), candidate({ ...recalled }, [2]), announces)).toBe(undefined);
  });

  it('rejects a recall block that a prompt of this history took out before (a flip)', () => {
    const items = ['0:0'];
    const block = blockIdentity(4, facts.prefixHashes, items);
    const left = new Map([[block, { length: 5, hash: facts.prefixHashes[5] as number }]]);
    const checks = promises(facts, { previous: previous(facts, 5, [1], { left }) });
    const recalled = { ...start, recalls: new Map([[4, items]]) };
    const announces = { ...quiet, announces: true };
    expect(checks.plan('recall', candidate(start, [1]), candidate(recalled, [2]), announces)?.promise).toBe(
      'recall-flip',
    );
    // another choice for the same message is another block
    const other = { ...start, recalls: new Map([[4, ['1:0']]]) };
    expect(checks.plan('recall', candidate(start, [1]), candidate(other, [2]), announces)).toBe(undefined);
  });
});

describe('CallPromises.prompt', () => {
  const facts = callFacts(history);
  const finished = (hashes: number[], changes: { announced?: boolean; messages?: Message[] } = {}) => ({
    messages: changes.messages ?? history,
    hashes,
    blocks: new Set<string>(),
    announced: changes.announced ?? false,
    openCallsAtEnd: false,
  });

  it('holds a prompt that begins with the previous one, or reports its change', () => {
    const checks = promises(facts, { previous: previous(facts, 3, [1, 2, 3]) });
    expect(checks.prompt(finished([1, 2, 3, 4, 5]))).toEqual([]);
    expect(checks.prompt(finished([1, 7, 3, 4, 5], { announced: true }))).toEqual([]);
    expect(checks.prompt(finished([1, 7, 3, 4, 5]))).toMatchObject([{ promise: 'continuity' }]);
  });

  it('holds a retry to the same prompt, message for message', () => {
    const checks = promises(facts, { previous: previous(facts, 5, [1, 2, 3]) });
    expect(checks.prompt(finished([1, 2, 3]))).toEqual([]);
    expect(checks.prompt(finished([1, 2, 3, 4]))).toMatchObject([{ promise: 'continuity' }]);
  });

  it('finds a tool call parted from its result, and leaves the caller’s own unpaired calls to them', () => {
    const checks = promises(facts);
    const parted = [user('Fix the bug.'), call('c1'), assistant('Done.'), user('And?')];
    expect(checks.prompt(finished([1], { messages: parted }))).toMatchObject([
      { promise: 'tool-pairs', detail: expect.stringContaining('c1') },
    ]);
    const open = callFacts([user('Fix it.'), call('c1'), assistant('Waiting.')]);
    const theirs = promises(open);
    expect(theirs.prompt(finished([1], { messages: open.messages as Message[] }))).toEqual([]);
  });

  it('does not mutate the candidates, the facts or the previous prompt it checks', () => {
    const before = previous(facts, 3, [1, 2, 3]);
    const frozen = Object.freeze({ ...before, hashes: Object.freeze([1, 2, 3]) }) as SentPrompt;
    const checks = promises(facts, { previous: frozen });
    expect(() => checks.prompt(finished([1, 2, 3, 4]))).not.toThrow();
    expect(frozen.hashes).toEqual([1, 2, 3]);
  });
});

describe('CallPromises.unsettled', () => {
  it('names the tokens and the hard limit', () => {
    const facts = callFacts(history);
    const found = promises(facts).unsettled({ tokens: 100 }, { tokens: 5_000 });
    expect(found.promise).toBe('over-hard-limit');
    expect(found.detail).toContain(`from 100 to 5000 tokens, over the hard limit of ${facts.limits.hardLimit}`);
  });
});
