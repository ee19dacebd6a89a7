import { describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import { EMPTY_STAGE_REPORT } from '../../src/call/stage.js';
import type { MessageMeasure } from '../../src/counting/message-meter.js';
import { CallReporter } from '../../src/engine/call-report.js';
import type { Decided } from '../../src/engine/decide.js';
import { HardLimitError, SummarizerError } from '../../src/errors.js';
import type { CompressionDecision } from '../../src/reports/decisions.js';
import type { CallReport, CompressEvent, CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { collectRedactions, DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, pointAt, projectAt } from '../helpers/call-facts.js';
import { callOf, chat, deepFreeze, fileText, meter, resultOf, text } from '../helpers/fixtures.js';

/** CallReporter on hand-built calls: what it tells onCompress, onCall and onError, and the figures of its reports. */

const FOLD: CompressionDecision = {
  trigger: 'budget',
  scope: { kind: 'messages', from: 0, to: 4 },
  confidence: 1,
  details: 'folded 4 messages',
};
const STATE: SessionState = { logos: ['a fact'], pathos: [], abstract: [], conversationSummary: 'Earlier turns.' };

/** A reporter with listeners that record what they hear. */
function reporter({ reportCalls = true } = {}) {
  const compressed: CompressEvent[] = [];
  const calls: CallReport[] = [];
  const errors: CompressionErrorEvent[] = [];
  const instance = new CallReporter(
    {
      onCompress: (event) => compressed.push(event),
      onCall: (report) => calls.push(report),
      onError: (event) => errors.push(event),
    },
    meter,
    reportCalls,
  );
  return { instance, compressed, calls, errors };
}

/** Where the stages left a call: nothing changed unless `changes` says so. */
function decidedFor(facts: CallFacts, changes: Partial<Decided> = {}): Decided {
  const point = changes.point ?? pointAt(facts);
  return { ...EMPTY_STAGE_REPORT, point, lasting: point, projection: projectAt(facts, point), ...changes };
}

/** The measures of what the call sends after the system prompt: its view. */
const sentOf = (decided: Decided): MessageMeasure[] =>
  decided.projection.view.messages.map((message) => meter.measure(message));

/** One call through the report stage, as the engine runs it: its edits, then its changes. */
function run(
  { instance }: ReturnType<typeof reporter>,
  facts: CallFacts,
  decided: Decided,
  {
    sent = sentOf(decided),
    tokensBefore = 1_000,
    tokensAfter = 600,
  }: { sent?: readonly MessageMeasure[]; tokensBefore?: number; tokensAfter?: number } = {},
) {
  const edits = instance.edits(facts, decided);
  const changes = instance.changes({ facts, decided, edits, sent, tokensBefore, tokensAfter, reusedState: false });
  // as the engine does, once the call is settled
  instance.called(changes.report);
  return { edits, ...changes };
}

const measures = (...entries: [hash: number, tokens: number][]): MessageMeasure[] =>
  entries.map(([hash, tokens]) => ({ hash, tokens }));

describe('CallReporter: what onCompress hears', () => {
  const facts = callFacts(chat(6));

  it.each<[string, Partial<Decided>]>([
    ['a fold', { messagesFolded: 4 }],
    ['a drop', { messagesDropped: 2 }],
    ['a mask', { masked: { count: 1, tokensFreed: 300 } }],
    ['a recall block', { recalled: { chunks: 2, tokens: 40, blocksDropped: 0, piecesRedacted: 0 } }],
    ['a recall block taken out', { recalled: { chunks: 0, tokens: 0, blocksDropped: 1, piecesRedacted: 0 } }],
    ['a recalled piece redacted', { recalled: { chunks: 0, tokens: 0, blocksDropped: 0, piecesRedacted: 1 } }],
    ['an earlier drop undone', { restored: true }],
    ['a state cut to its cap', { stateRefitted: true }],
  ])('tells of %s', (_change, change) => {
    const listeners = reporter();
    const { event } = run(listeners, facts, decidedFor(facts, { decisions: [FOLD], ...change }));
    expect(listeners.compressed).toHaveLength(1);
    expect(listeners.compressed[0]).toBe(event);
    expect(event?.trigger).toBe('budget');
    expect(event?.decisions).toEqual([FOLD]);
  });

  it('stays silent on a decision that changed nothing (a fold put off), though the call has an event', () => {
    const listeners = reporter();
    const { event, edits } = run(listeners, facts, decidedFor(facts, { decisions: [FOLD] }));
    expect(edits.announced).toBe(false);
    expect(listeners.compressed).toEqual([]);
    expect(event?.decisions).toEqual([FOLD]);
    expect(listeners.calls[0]?.event).toBe(event);
  });

  it('makes no event for a call without decisions', () => {
    const listeners = reporter();
    const { event, decisions } = run(listeners, facts, decidedFor(facts, { messagesFolded: 4 }));
    expect(event).toBeUndefined();
    expect(decisions).toEqual([]);
    expect(listeners.compressed).toEqual([]);
    expect(listeners.calls[0]?.event).toBeUndefined();
  });

  it('fills the event with the call figures', () => {
    const listeners = reporter();
    const decided = decidedFor(facts, {
      decisions: [FOLD],
      messagesFolded: 4,
      summarizerMs: 12,
      summarizerCalls: 1,
      quotesRejected: 2,
      masked: { count: 1, tokensFreed: 300 },
    });
    const { event } = run(listeners, facts, decided, { tokensBefore: 1_000, tokensAfter: 600 });
    expect(event).toMatchObject({
      tokensBefore: 1_000,
      tokensAfter: 600,
      messagesFolded: 4,
      messagesDropped: 0,
      toolResultsMasked: { count: 1, tokensFreed: 300 },
      toolResultsRedacted: { count: 0, tokensFreed: 0 },
      toolResultsTruncated: 0,
      summarizerMs: 12,
      summarizerCalls: 1,
      quotesRejected: 2,
      reusedState: false,
      cacheablePrefixTokens: 0,
    });
  });

  describe('a result shortened because it was too large', () => {
    const history = [
      text('user', 'Fix the failing test in src/app.ts.'),
      callOf('read-0', 'read_file', { path: 'src/app.ts' }),
      resultOf('read-0', 'read_file', fileText('app')),
      text('assistant', 'The test reads a stale fixture.'),
    ];
    const base = callFacts(history);
    const oversized: CallFacts = { ...base, limits: { ...base.limits, maxToolResultTokens: 100 } };

    it('is told by the call that first shows it shortened, not by the next call of the conversation', () => {
      const listeners = reporter();
      const first = run(listeners, oversized, decidedFor(oversized));
      expect(first.edits.edits.truncated.count).toBe(1);
      expect(first.edits.announced).toBe(true);
      expect(listeners.compressed).toHaveLength(1);
      expect(listeners.compressed[0]?.toolResultsTruncated).toBe(1);
      expect(listeners.compressed[0]?.tokensBefore).toBe(1_000 + first.edits.edits.truncated.tokensFreed);

      const second = run(listeners, oversized, decidedFor(oversized));
      expect(second.edits.edits.truncated.count).toBe(0);
      expect(second.edits.announced).toBe(false);
      expect(second.event?.toolResultsTruncated).toBe(0);
      expect(listeners.compressed).toHaveLength(1);
      expect(listeners.calls).toHaveLength(2);
    });

    it('is told again after a call that sent the history unchanged', () => {
      const listeners = reporter();
      run(listeners, oversized, decidedFor(oversized));
      listeners.instance.unchanged({ facts: oversized, sent: [], promptTokens: () => 0 });
      expect(run(listeners, oversized, decidedFor(oversized)).edits.announced).toBe(true);
      expect(listeners.compressed).toHaveLength(2);
    });

    it('is told for each conversation on its own', () => {
      const listeners = reporter();
      const other = callFacts([text('user', 'Another task.'), ...history.slice(1)]);
      const otherOversized: CallFacts = { ...other, limits: oversized.limits };
      run(listeners, oversized, decidedFor(oversized));
      run(listeners, otherOversized, decidedFor(otherOversized));
      expect(listeners.compressed).toHaveLength(2);
    });
  });

  it('tells of a redaction of the latest step once: a retry that sends it again stays silent', () => {
    const history: Message[] = [
      text('user', 'Fix the failing test in src/app.ts.'),
      callOf('read-0', 'read_file', { path: 'src/app.ts' }),
      resultOf('read-0', 'read_file', fileText('app')),
      callOf('redact-0', DEFAULT_REDACTION_TOOL_NAME, { toolCallIds: ['read-0'], reason: 'Used it already.' }),
      resultOf('redact-0', DEFAULT_REDACTION_TOOL_NAME, 'Redacted 1 tool result (read-0).'),
    ];
    const replayed = collectRedactions(history);
    const facts: CallFacts = {
      ...callFacts(history),
      redactions: replayed.reasons,
      latestRedactions: replayed.latest,
    };
    const listeners = reporter();
    const first = run(listeners, facts, decidedFor(facts));
    expect(first.event?.toolResultsRedacted.count).toBe(1);
    expect(listeners.compressed).toHaveLength(1);
    const retry = run(listeners, facts, decidedFor(facts));
    expect(retry.edits.announced).toBe(false);
    expect(retry.event).toBeUndefined();
    expect(listeners.compressed).toHaveLength(1);
  });
});

describe('CallReporter: what onCall hears', () => {
  const facts = callFacts(chat(6));
  const history = chat(6).reduce((sum, message) => sum + meter.measure(message).tokens, 0);

  it("gets every call's report, with or without changes", () => {
    const listeners = reporter();
    const point = pointAt(facts, { coveredCount: 4, state: STATE });
    const folded = run(listeners, facts, decidedFor(facts, { point, decisions: [FOLD], messagesFolded: 4 }), {
      tokensAfter: 420,
    });
    const plain = run(listeners, facts, decidedFor(facts), { tokensAfter: 700 });
    expect(listeners.calls).toEqual([folded.report, plain.report]);
    expect(folded.report).toMatchObject({
      historyTokens: facts.fixedTokens + history,
      promptTokens: 420,
      messagesOutOfPrompt: 4,
      stateInPrompt: true,
      event: folded.event,
    });
    expect(plain.report).toMatchObject({ promptTokens: 700, messagesOutOfPrompt: 0, stateInPrompt: false });
    expect(plain.report.event).toBeUndefined();
  });

  it('gives figures in the provider tokens (calibrated by the ratio)', () => {
    const calibrated: CallFacts = { ...facts, limits: { ...facts.limits, ratio: 1.5 } };
    const { report } = run(reporter(), calibrated, decidedFor(calibrated), { tokensAfter: 101 });
    expect(report.promptTokens).toBe(152);
    expect(report.historyTokens).toBe(Math.round((facts.fixedTokens + history) * 1.5));
  });

  it('is not called when the reporter is not asked to report calls', () => {
    const listeners = reporter({ reportCalls: false });
    const { report } = run(listeners, facts, decidedFor(facts, { decisions: [FOLD], messagesFolded: 4 }));
    listeners.instance.called(listeners.instance.unchanged({ facts, sent: [], promptTokens: () => 0 }));
    expect(listeners.calls).toEqual([]);
    expect(listeners.compressed).toHaveLength(1);
    expect(report.messagesOutOfPrompt).toBe(0);
  });
});

describe('CallReporter: cacheablePrefixTokens', () => {
  const facts = callFacts(chat(6));
  const fixed = facts.fixedTokens;

  it('is 0 on the first call of a conversation, then the prefix shared with the previous prompt', () => {
    const listeners = reporter();
    const decided = decidedFor(facts, { decisions: [FOLD], messagesFolded: 2 });
    const first = run(listeners, facts, decided, { sent: measures([1, 10], [2, 20]) });
    expect(first.report.cacheablePrefixTokens).toBe(0);
    const longer = run(listeners, facts, decided, { sent: measures([1, 10], [2, 20], [3, 30]) });
    expect(longer.report.cacheablePrefixTokens).toBe(fixed + 30);
    expect(longer.event?.cacheablePrefixTokens).toBe(fixed + 30);
    const edited = run(listeners, facts, decided, { sent: measures([1, 10], [9, 20], [3, 30]) });
    expect(edited.report.cacheablePrefixTokens).toBe(fixed + 10);
  });

  it('is measured per conversation', () => {
    const listeners = reporter();
    const other = callFacts(chat(7).slice(1));
    expect(other.conversationKey).not.toBe(facts.conversationKey);
    run(listeners, facts, decidedFor(facts), { sent: measures([1, 10]) });
    expect(run(listeners, other, decidedFor(other), { sent: measures([1, 10]) }).report.cacheablePrefixTokens).toBe(0);
    expect(run(listeners, facts, decidedFor(facts), { sent: measures([1, 10]) }).report.cacheablePrefixTokens).toBe(
      fixed + 10,
    );
  });

  it('is calibrated by the ratio', () => {
    const calibrated: CallFacts = { ...facts, limits: { ...facts.limits, ratio: 2 } };
    const listeners = reporter();
    run(listeners, calibrated, decidedFor(calibrated), { sent: measures([1, 11]) });
    const { report } = run(listeners, calibrated, decidedFor(calibrated), { sent: measures([1, 11], [2, 5]) });
    expect(report.cacheablePrefixTokens).toBe(2 * (fixed + 11));
  });
});

describe('CallReporter.failures', () => {
  const facts = callFacts(chat(6)); // hard limit: 0.85 * 3_500 = 2_975
  const failure = new SummarizerError({ summarizer: 'test', reason: 'threw', cause: new Error('model down') });

  it('reports a summarizer failure that made the call drop turns', () => {
    const listeners = reporter();
    const decided = decidedFor(facts, { failure, point: pointAt(facts, { coveredCount: 4 }), lasting: pointAt(facts) });
    listeners.instance.failures(facts, decided, 1_000);
    expect(listeners.errors).toEqual([{ error: failure, fallback: 'dropped-oldest-turns' }]);
  });

  it('reports a summarizer failure that left the prompt as it came', () => {
    const listeners = reporter();
    listeners.instance.failures(facts, decidedFor(facts, { failure }), 1_000);
    expect(listeners.errors).toEqual([{ error: failure, fallback: 'sent-uncompressed' }]);
  });

  it.each([
    [2_975, 0],
    [2_976, 1],
  ])('with a prompt of %i tokens reports %i hard limit errors', (total, count) => {
    const listeners = reporter();
    listeners.instance.failures(facts, decidedFor(facts), total);
    expect(listeners.errors).toHaveLength(count);
  });

  it('reports a prompt over the hard limit in provider tokens', () => {
    const listeners = reporter();
    const calibrated: CallFacts = { ...facts, limits: { ...facts.limits, ratio: 1.2 } };
    listeners.instance.failures(calibrated, decidedFor(calibrated), 3_000);
    const [event] = listeners.errors;
    expect(event?.fallback).toBe('over-hard-limit');
    expect(HardLimitError.isInstance(event?.error)).toBe(true);
    expect(event?.error).toMatchObject({ promptTokens: 3_600, hardLimitTokens: 3_570 });
  });

  it('reports both, the failure first', () => {
    const listeners = reporter();
    listeners.instance.failures(facts, decidedFor(facts, { failure }), 3_000);
    expect(listeners.errors.map((event) => event.fallback)).toEqual(['sent-uncompressed', 'over-hard-limit']);
  });

  it('goes on without an onError listener', () => {
    const silent = new CallReporter({}, meter);
    expect(() => silent.failures(facts, decidedFor(facts, { failure }), 3_000)).not.toThrow();
  });
});

describe('CallReporter.unchanged', () => {
  const facts = callFacts(chat(6));
  const history = chat(6).reduce((sum, message) => sum + meter.measure(message).tokens, 0);

  it('counts the prompt only when its figures are read, and once', () => {
    const listeners = reporter();
    const promptTokens = vi.fn(() => 480);
    const report = listeners.instance.unchanged({ facts, sent: measures([1, 10]), promptTokens });
    listeners.instance.called(report);
    expect(listeners.calls).toEqual([report]);
    expect(promptTokens).not.toHaveBeenCalled();
    expect(report.promptTokens).toBe(480);
    expect(report.promptTokens).toBe(480);
    expect(report.cacheablePrefixTokens).toBe(0);
    expect(promptTokens).toHaveBeenCalledTimes(1);
    expect(report).toMatchObject({
      historyTokens: facts.fixedTokens + history,
      messagesOutOfPrompt: 0,
      stateInPrompt: false,
      event: undefined,
    });
  });

  it('measures the prefix against the prompt sent before it, whenever it is read', () => {
    const listeners = reporter();
    listeners.instance.unchanged({ facts, sent: measures([1, 10], [2, 20]), promptTokens: () => 0 });
    const second = listeners.instance.unchanged({
      facts,
      sent: measures([1, 10], [2, 20], [3, 30]),
      promptTokens: () => 0,
    });
    listeners.instance.unchanged({ facts, sent: measures([7, 70]), promptTokens: () => 0 });
    expect(second.cacheablePrefixTokens).toBe(facts.fixedTokens + 30);
  });

  it('is the previous prompt of the next call', () => {
    const listeners = reporter();
    listeners.instance.unchanged({ facts, sent: measures([1, 10], [2, 20]), promptTokens: () => 0 });
    const { report } = run(listeners, facts, decidedFor(facts), { sent: measures([1, 10], [2, 20], [3, 5]) });
    expect(report.cacheablePrefixTokens).toBe(facts.fixedTokens + 30);
  });

  it('calibrates its figures by the ratio', () => {
    const calibrated: CallFacts = { ...facts, limits: { ...facts.limits, ratio: 1.5 } };
    const report = reporter().instance.unchanged({ facts: calibrated, sent: [], promptTokens: () => 101 });
    expect(report.promptTokens).toBe(152);
    expect(report.historyTokens).toBe(Math.round((facts.fixedTokens + history) * 1.5));
  });
});

describe('CallReporter inputs', () => {
  it('does not mutate its inputs', () => {
    const facts = callFacts(chat(6));
    const decided = decidedFor(facts, { decisions: deepFreeze([FOLD]), messagesFolded: 4 });
    const sent = deepFreeze(measures([1, 10], [2, 20]));
    const { decisions } = run(reporter(), facts, decided, { sent });
    expect(decisions).toEqual([FOLD]);
    expect(decisions).not.toBe(decided.decisions);
    expect(decided.decisions).toEqual([FOLD]);
    expect(sent).toEqual(measures([1, 10], [2, 20]));
  });
});
