import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import type { MessageMeasure } from '../../src/counting/message-meter.js';
import { reportEdits } from '../../src/engine/report-edits.js';
import { collectRedactions, DEFAULT_REDACTION_TOOL_NAME } from '../../src/strategies/redaction.js';
import type { Message, ToolResultPart } from '../../src/transcript/transcript.js';
import type { PromptView } from '../../src/view/prompt-view.js';
import { callFacts, pointAt, projectAt } from '../helpers/call-facts.js';
import { callOf, deepFreeze, fileText, meter, resultOf, text } from '../helpers/fixtures.js';

/**
 * reportEdits on hand-built histories: the view is projected as the engine does (the redactions the history carries,
 * results over `maxToolResultTokens` shortened), the previous prompt is given as the measures the reporter keeps.
 */

const REASON = 'Already applied the fix from this file.';

/** An agent step that reads a file, then one that redacts that read while reading another file. */
const REDACTED: readonly Message[] = [
  text('user', 'Fix the failing test in src/app.ts.'), // 0
  callOf('read-0', 'read_file', { path: 'src/app.ts' }), // 1
  resultOf('read-0', 'read_file', fileText('app')), // 2
  {
    role: 'assistant',
    parts: [
      {
        type: 'tool-call',
        id: 'redact-0',
        name: DEFAULT_REDACTION_TOOL_NAME,
        args: { toolCallIds: ['read-0'], reason: REASON },
      },
      { type: 'tool-call', id: 'read-1', name: 'read_file', args: { path: 'src/b.ts' } },
    ],
  }, // 3
  {
    role: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: 'redact-0',
        name: DEFAULT_REDACTION_TOOL_NAME,
        output: 'Redacted 1 tool result (read-0).',
      },
      { type: 'tool-result', callId: 'read-1', name: 'read_file', output: 'export const b = 2;' },
    ],
  }, // 4
];
/** REDACTED and one more step: the redaction is no longer the latest step's. */
const LATER = [...REDACTED, callOf('read-2', 'read_file', { path: 'src/c.ts' }), resultOf('read-2', 'read_file', 'x')];

/** The facts of a call as the engine reads them with the redaction tool on. */
function factsOf(messages: readonly Message[], maxToolResultTokens?: number): CallFacts {
  const facts = callFacts(messages);
  const replayed = collectRedactions(messages);
  return {
    ...facts,
    redactions: replayed.reasons,
    latestRedactions: replayed.latest,
    limits: { ...facts.limits, maxToolResultTokens: maxToolResultTokens ?? facts.limits.maxToolResultTokens },
  };
}

/** What the reporter keeps of a sent prompt: the fixed part and the messages, measured. */
const sentPrompt = (facts: CallFacts, messages: readonly Message[]): MessageMeasure[] => [
  ...facts.fixedMeasures,
  ...messages.map((message) => meter.measure(message)),
];

function report(
  facts: CallFacts,
  {
    point = pointAt(facts),
    previousPrompt,
    previousTruncated = new Set<string>(),
    view = projectAt(facts, point).view,
  }: {
    point?: CompressionPoint;
    previousPrompt?: readonly MessageMeasure[];
    previousTruncated?: ReadonlySet<string>;
    view?: PromptView;
  } = {},
) {
  return reportEdits({ facts, view, covered: point.coveredCount, previousPrompt, previousTruncated, meter });
}

const resultIn = (message: Message | undefined) =>
  message?.parts.find((part): part is ToolResultPart => part.type === 'tool-result');
/** Tokens a redaction freed: the result's tokens less its placeholder's. */
const freedBy = (facts: CallFacts, view: PromptView, key: string) => {
  const site = facts.siteByKey.get(key);
  return (site?.tokens ?? 0) - meter.countText(resultIn(view.messages[site?.messageIndex ?? -1])?.output ?? '');
};

describe('reportEdits: nothing to report', () => {
  it('reports nothing for a history without shortened or redacted results', () => {
    const facts = factsOf(REDACTED.slice(0, 3));
    expect(report(facts)).toEqual({
      truncated: { count: 0, tokensFreed: 0 },
      redacted: { count: 0, tokensFreed: 0 },
      decisions: [],
      truncatedShown: new Set(),
    });
  });
});

describe('reportEdits: shortened results', () => {
  const history = [...REDACTED.slice(0, 3), text('assistant', 'The test reads a stale fixture.')];
  const facts = factsOf(history, 100);
  const view = projectAt(facts, pointAt(facts)).view;
  const freed = meter.countText(fileText('app')) - meter.countText(resultIn(view.messages[2])?.output ?? '');

  it('counts a result the previous prompt did not show shortened, and logs the decision', () => {
    const edits = report(facts, { view });
    expect(view.truncatedIds).toEqual(['read-0']);
    expect(edits.truncated).toEqual({ count: 1, tokensFreed: freed });
    expect(freed).toBeGreaterThan(300);
    expect(edits.decisions).toEqual([
      {
        trigger: 'oversized-result',
        scope: { kind: 'observations', toolCallIds: ['read-0'] },
        confidence: 1,
        details: '1 tool results over 100 tokens shortened by relevance to their request (every block kept or named)',
      },
    ]);
    expect([...edits.truncatedShown]).toEqual(['read-0']);
    expect(edits.redacted).toEqual({ count: 0, tokensFreed: 0 });
  });

  it('does not count again a result the previous prompt showed shortened, but still logs and shows it', () => {
    const edits = report(facts, { view, previousTruncated: new Set(['read-0']) });
    expect(edits.truncated).toEqual({ count: 0, tokensFreed: 0 });
    expect(edits.decisions.map((decision) => decision.trigger)).toEqual(['oversized-result']);
    expect([...edits.truncatedShown]).toEqual(['read-0']);
  });

  it('counts a shortened result again once a prompt showed it whole', () => {
    const edits = report(facts, { view, previousTruncated: new Set(['read-9']) });
    expect(edits.truncated.count).toBe(1);
  });
});

describe('reportEdits: redactions', () => {
  it("counts the latest step's redaction the first time it is sent, with the tokens it freed", () => {
    const facts = factsOf(REDACTED);
    const view = projectAt(facts, pointAt(facts)).view;
    const edits = report(facts, { view });
    const freed = freedBy(facts, view, 'read-0');
    expect(resultIn(view.messages[2])?.edit).toBe('redacted');
    expect(freed).toBeGreaterThan(400);
    expect(edits.redacted).toEqual({ count: 1, tokensFreed: freed });
    expect(edits.decisions).toEqual([
      {
        trigger: 'redaction',
        scope: { kind: 'observations', toolCallIds: ['read-0'] },
        confidence: 1,
        details: `the model redacted 1 tool results, freeing ${freed} tokens`,
      },
    ]);
    expect(edits.truncated).toEqual({ count: 0, tokensFreed: 0 });
  });

  it('stays silent on a retry that sends the same redacted message again', () => {
    const facts = factsOf(REDACTED);
    const view = projectAt(facts, pointAt(facts)).view;
    const edits = report(facts, { view, previousPrompt: sentPrompt(facts, view.messages) });
    expect(edits.redacted).toEqual({ count: 0, tokensFreed: 0 });
    expect(edits.decisions).toEqual([]);
  });

  it('counts the redaction when the previous prompt sent the result whole', () => {
    const facts = factsOf(REDACTED);
    const edits = report(facts, { previousPrompt: sentPrompt(facts, REDACTED.slice(0, 3)) });
    expect(edits.redacted.count).toBe(1);
  });

  it('does not count again a redaction of an earlier step that the previous prompt sent', () => {
    const earlier = factsOf(REDACTED);
    const sent = sentPrompt(earlier, projectAt(earlier, pointAt(earlier)).view.messages);
    const facts = factsOf(LATER);
    expect(facts.latestRedactions.size).toBe(0);
    expect(report(facts, { previousPrompt: sent }).redacted).toEqual({ count: 0, tokensFreed: 0 });
    // an instance that sent nothing of the conversation reports only the latest step's redactions: none here
    expect(report(facts).redacted).toEqual({ count: 0, tokensFreed: 0 });
  });

  it('counts a redaction of an earlier step that the previous prompt did not send (another instance sent it first)', () => {
    const facts = factsOf(LATER);
    const edits = report(facts, { previousPrompt: sentPrompt(facts, REDACTED.slice(0, 3)) });
    expect(edits.redacted.count).toBe(1);
    expect(edits.decisions[0]?.scope).toEqual({ kind: 'observations', toolCallIds: ['read-0'] });
  });

  it('does not count a redaction of a folded message', () => {
    const facts = factsOf(REDACTED);
    // the view still shows the redacted placeholder at 2: only `covered` keeps it out of the count
    const view = projectAt(facts, pointAt(facts)).view;
    const edits = report(facts, { point: pointAt(facts, { coveredCount: 3 }), view });
    expect(edits.redacted).toEqual({ count: 0, tokensFreed: 0 });
    expect(edits.decisions).toEqual([]);
  });

  it('counts a redacted placeholder that was shortened too (a tiny maxToolResultTokens) as a redaction', () => {
    const facts = factsOf(REDACTED, 5);
    const view = projectAt(facts, pointAt(facts)).view;
    expect(resultIn(view.messages[2])?.edit).toBe('truncated');
    const edits = report(facts, { view });
    expect(edits.redacted.count).toBe(1);
    expect(edits.decisions.map((decision) => decision.trigger)).toEqual(['oversized-result', 'redaction']);
  });

  describe('two results of identical content (a call id that repeats in every step)', () => {
    const status = () => callOf('status', 'build_status', {});
    const history: Message[] = [
      text('user', 'Watch the build.'), // 0
      status(), // 1
      resultOf('status', 'build_status', fileText('build')), // 2
      status(), // 3
      resultOf('status', 'build_status', fileText('build')), // 4
      callOf('redact-0', DEFAULT_REDACTION_TOOL_NAME, { toolCallIds: ['status'], reason: 'The build finished.' }), // 5
      resultOf('redact-0', DEFAULT_REDACTION_TOOL_NAME, 'Redacted 1 tool result (status).'), // 6
    ];
    const facts = factsOf(history);
    const view = projectAt(facts, pointAt(facts)).view;

    it('redacts both, with the same placeholder', () => {
      expect([...facts.latestRedactions]).toEqual(['status', 'status#1']);
      expect(meter.measure(view.messages[2] as Message).hash).toBe(meter.measure(view.messages[4] as Message).hash);
    });

    it('counts both when none was sent', () => {
      const edits = report(facts, { view });
      expect(edits.redacted).toEqual({
        count: 2,
        tokensFreed: freedBy(facts, view, 'status') + freedBy(facts, view, 'status#1'),
      });
      expect(edits.decisions[0]?.scope).toEqual({ kind: 'observations', toolCallIds: ['status', 'status'] });
    });

    it('matches each message of the previous prompt once: one copy sent leaves the other one news', () => {
      const edits = report(facts, { view, previousPrompt: sentPrompt(facts, view.messages.slice(0, 3)) });
      expect(edits.redacted.count).toBe(1);
      expect(edits.redacted.tokensFreed).toBe(freedBy(facts, view, 'status#1'));
    });

    it('counts neither when both were sent', () => {
      expect(report(facts, { view, previousPrompt: sentPrompt(facts, view.messages) }).redacted.count).toBe(0);
    });
  });
});

describe('reportEdits inputs', () => {
  it('does not mutate its inputs', () => {
    const facts = factsOf(REDACTED, 100);
    const view = deepFreeze(projectAt(facts, pointAt(facts)).view);
    const previousPrompt = deepFreeze(sentPrompt(facts, REDACTED.slice(0, 2)));
    const previousTruncated = new Set(['read-9']);
    const edits = report(facts, { view, previousPrompt, previousTruncated });
    expect(edits.redacted.count).toBe(1);
    expect([...previousTruncated]).toEqual(['read-9']);
    expect(previousPrompt).toHaveLength(facts.fixedMeasures.length + 2);
    expect([...facts.redactions.keys()]).toEqual(['read-0']);
    expect([...facts.latestRedactions]).toEqual(['read-0']);
  });
});
