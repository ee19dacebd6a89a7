import { describe, expect, it, vi } from 'vitest';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import type { Projection } from '../../src/call/projection.js';
import {
  AT_THE_END,
  addToReport,
  EMPTY_STAGE_REPORT,
  type Stage,
  type StageContext,
  type StagePlan,
  scheduled,
} from '../../src/call/stage.js';
import { DECIDE_STAGES } from '../../src/engine/decide.js';
import { runStages } from '../../src/engine/run-stages.js';
import type { CompressionDecision } from '../../src/reports/decisions.js';

/** The stage loop on its own: fake stages over points that only count folded messages, 100 tokens each. */

const HISTORY = 10;
const point = (coveredCount: number): CompressionPoint => ({
  coveredCount,
  state: undefined,
  droppedCount: 0,
  masked: new Set(),
  maskReasons: new Map(),
  staleThrough: 0,
  minThrough: 0,
  recalls: new Map(),
});
/** A fake projection: only the loop's `measure` reads it. */
const projectionOf = (at: CompressionPoint) => ({ tokens: (HISTORY - at.coveredCount) * 100 }) as unknown as Projection;
const measure = {
  project: vi.fn(projectionOf),
  total: (projection: Projection) => (projection as unknown as { tokens: number }).tokens,
};
const decision = (details: string): CompressionDecision => ({
  trigger: 'budget',
  scope: { kind: 'messages', from: 0, to: 1 },
  confidence: 1,
  details,
});

type Context = StageContext<{ readonly label: string }>;
/** A stage that folds `by` more messages each time it runs, reporting them. */
const folds = (name: string, by: number, extra: Partial<StagePlan> = {}): Stage<{ label: string }> => ({
  name,
  plan: ({ point: at }: Context) => ({
    point: point(at.coveredCount + by),
    report: { messagesFolded: by, decisions: [decision(name)] },
    ...extra,
  }),
});
const start = () => ({ point: point(0), projection: projectionOf(point(0)) });

describe('runStages', () => {
  it('runs the stages in list order, each planning from the point and report the one before left', async () => {
    const seen: { name: string; covered: number; folded: number }[] = [];
    const watch = (name: string): Stage<{ label: string }> => ({
      name,
      plan: (context) => {
        seen.push({ name, covered: context.point.coveredCount, folded: context.report.messagesFolded });
        return undefined;
      },
    });
    const result = await runStages(
      [watch('first'), folds('a', 2), watch('second'), folds('b', 3), watch('third')],
      { label: 'call' },
      start(),
      measure,
    );
    expect(seen).toEqual([
      { name: 'first', covered: 0, folded: 0 },
      { name: 'second', covered: 2, folded: 2 },
      { name: 'third', covered: 5, folded: 5 },
    ]);
    expect(result.point.coveredCount).toBe(5);
    expect(result.report.decisions.map((each) => each.details)).toEqual(['a', 'b']);
    expect(measure.total(result.projection)).toBe(500);
  });

  it('gives every stage the same call, the tokens at its point and the report so far', async () => {
    const first = folds('first', 1);
    const contexts: Context[] = [];
    const last: Stage<{ label: string }> = { name: 'last', plan: (context) => void contexts.push(context) };
    await runStages([first, last], { label: 'call' }, start(), measure);
    expect(contexts[0]?.call).toEqual({ label: 'call' });
    expect(contexts[0]?.tokens).toBe(900);
    expect(contexts[0]?.point.coveredCount).toBe(1);
    expect(contexts[0]?.report.decisions.map((each) => each.details)).toEqual(['first']);
  });

  it('runs the effects a stage asks for, in order, and resumes it with each result', async () => {
    const asked: string[] = [];
    const stage: Stage<{ label: string }, string> = {
      name: 'asks',
      plan: async function* ({ point: at }) {
        const first = (yield 'summarize') as number;
        const second = (yield `store ${first}`) as number;
        return { point: point(at.coveredCount + first + second) };
      },
    };
    const runEffect = vi.fn(async (effect: string, context: StageContext<{ label: string }>) => {
      asked.push(`${effect} at ${context.point.coveredCount}`);
      return effect === 'summarize' ? 2 : 1;
    });
    const result = await runStages([stage], { label: '' }, start(), measure, runEffect);
    expect(asked).toEqual(['summarize at 0', 'store 2 at 0']);
    expect(result.point.coveredCount).toBe(3);
  });

  it('fails clearly when a stage asks for an effect and nothing runs effects', async () => {
    const stage: Stage<{ label: string }, string> = {
      name: 'asks',
      plan: async function* () {
        yield 'summarize';
        return undefined;
      },
    };
    await expect(runStages([stage], { label: '' }, start(), measure)).rejects.toThrow(/effect the loop cannot run/);
  });

  it('runs a stage again while its plans move the point, up to its rounds', async () => {
    const plan = vi.fn(({ point: at }: Context) => ({ point: point(at.coveredCount + 1) }));
    const result = await runStages([{ name: 'repeated', rounds: 3, plan }], { label: '' }, start(), measure);
    expect(plan).toHaveBeenCalledTimes(3);
    expect(result.point.coveredCount).toBe(3);
  });

  it('stops repeating a stage at its first plan that is nothing or leaves the point where it is', async () => {
    let runs = 0;
    const stopsAtSecond: Stage<{ label: string }> = {
      name: 'stops',
      rounds: 5,
      plan: ({ point: at }) => (++runs < 2 ? { point: point(at.coveredCount + 1) } : undefined),
    };
    const reportsOnly = vi.fn(({ point: at }: Context): StagePlan => ({ point: at, report: { restored: true } }));
    const result = await runStages(
      [stopsAtSecond, { name: 'reports', rounds: 5, plan: reportsOnly }],
      { label: '' },
      start(),
      measure,
    );
    expect(runs).toBe(2);
    expect(reportsOnly).toHaveBeenCalledTimes(1);
    expect(result.report.restored).toBe(true);
    expect(result.point.coveredCount).toBe(1);
  });

  it('keeps a plan marked onlyIfSmaller only when the prompt shrank; the summarizer time counts either way', async () => {
    const grows: Stage<{ label: string }> = {
      name: 'grows',
      plan: ({ point: at }) => ({
        point: point(at.coveredCount + 1),
        projection: { tokens: 5_000 } as unknown as Projection,
        onlyIfSmaller: true,
        summarizerMs: 7,
        report: { messagesFolded: 1 },
      }),
    };
    const after = vi.fn((_context: Context) => undefined);
    const result = await runStages([grows, { name: 'after', plan: after }], { label: '' }, start(), measure);
    expect(result.point.coveredCount).toBe(0);
    expect(result.report).toEqual({ ...EMPTY_STAGE_REPORT, summarizerMs: 7 });
    expect(after.mock.calls[0]?.[0].point.coveredCount).toBe(0);

    const shrinks = await runStages([folds('shrinks', 2, { onlyIfSmaller: true })], { label: '' }, start(), measure);
    expect(shrinks.point.coveredCount).toBe(2);
  });

  it('uses the projection a plan brings instead of projecting its point again', async () => {
    measure.project.mockClear();
    const known = { tokens: 42 } as unknown as Projection;
    const result = await runStages(
      [{ name: 'known', plan: () => ({ point: point(1), projection: known }) }],
      { label: '' },
      start(),
      measure,
    );
    expect(measure.project).not.toHaveBeenCalled();
    expect(result.projection).toBe(known);
  });

  it('remembers the point before the first provisional plan that moved it', async () => {
    const result = await runStages(
      [folds('fold', 2), folds('drop', 3, { provisional: true }), folds('later drop', 1, { provisional: true })],
      { label: '' },
      start(),
      measure,
    );
    expect(result.point.coveredCount).toBe(6);
    expect(result.beforeProvisional?.coveredCount).toBe(2);
    const none = await runStages([folds('fold', 2)], { label: '' }, start(), measure);
    expect(none.beforeProvisional).toBeUndefined();
  });

  it('leaves the starting point and report as they were with no stage to run', async () => {
    const begin = start();
    const result = await runStages([], { label: '' }, begin, measure);
    expect(result.point).toBe(begin.point);
    expect(result.projection).toBe(begin.projection);
    expect(result.report).toBe(EMPTY_STAGE_REPORT);
  });
});

describe('runStages: promises checked where a plan is accepted', () => {
  it('leaves out a plan the check finds breaking a promise, reports it, and lets the next stage plan from before it', async () => {
    const seen: number[] = [];
    const watch: Stage<{ label: string }> = {
      name: 'watch',
      plan: ({ point: at }) => {
        seen.push(at.coveredCount);
        return undefined;
      },
    };
    const broken = { promise: 'silent-change' as const, detail: 'changed the prompt', stage: 'bad' };
    const result = await runStages([folds('bad', 3), watch, folds('good', 2)], { label: '' }, start(), {
      ...measure,
      check: (stage) => (stage === 'bad' ? broken : undefined),
    });
    expect(seen).toEqual([0]);
    expect(result.point.coveredCount).toBe(2);
    expect(result.report.broken).toEqual([broken]);
    expect(result.report.decisions.map((each) => each.details)).toEqual(['good']);
  });

  it('hands the check where the call stands (with its report so far) and where the plan would take it', async () => {
    const calls: { stage: string; from: number; to: number; folded: number }[] = [];
    await runStages([folds('a', 1), folds('b', 2)], { label: '' }, start(), {
      ...measure,
      check: (stage, current, next) => {
        calls.push({
          stage,
          from: current.point.coveredCount,
          to: next.point.coveredCount,
          folded: current.report.messagesFolded,
        });
        return undefined;
      },
    });
    expect(calls).toEqual([
      { stage: 'a', from: 0, to: 1, folded: 0 },
      { stage: 'b', from: 1, to: 3, folded: 1 },
    ]);
  });

  it('ends at the last point it may end at when the stages would end where they may not, time spent still counted', async () => {
    const spendy = folds('grows', 1, { summarizerMs: 40, summarizerCalls: 1 });
    const unsettled = { promise: 'over-hard-limit' as const, detail: 'over' };
    const result = await runStages([folds('fine', 2), spendy, folds('worse', 3)], { label: '' }, start(), {
      ...measure,
      // a point may be ended at while at most 3 messages are folded
      settles: (_start, end) => end.point.coveredCount <= 3,
      unsettled: () => unsettled,
    });
    expect(result.point.coveredCount).toBe(3);
    expect(result.report.messagesFolded).toBe(3);
    expect(result.report.summarizerMs).toBe(40);
    expect(result.report.summarizerCalls).toBe(1);
    expect(result.report.broken).toEqual([unsettled]);
    const none = await runStages([folds('fine', 2)], { label: '' }, start(), {
      ...measure,
      settles: () => false,
      unsettled: () => unsettled,
    });
    expect(none.point.coveredCount).toBe(0);
  });
});

describe('addToReport', () => {
  it('sums counts, appends decisions, keeps a failure and lists a deferred fold once', () => {
    const deferred = decision('waits');
    const once = addToReport(EMPTY_STAGE_REPORT, {
      messagesFolded: 3,
      masked: { count: 2, tokensFreed: 100 },
      deferred: [deferred],
      decisions: [decision('a')],
    });
    const twice = addToReport(once, {
      messagesFolded: 1,
      masked: { count: 1, tokensFreed: 10 },
      deferred: [{ ...deferred }],
      decisions: [decision('b')],
      recalled: { chunks: 2, tokens: 50, blocksDropped: 0, piecesRedacted: 1 },
    });
    expect(twice.messagesFolded).toBe(4);
    expect(twice.masked).toEqual({ count: 3, tokensFreed: 110 });
    expect(twice.deferred).toHaveLength(1);
    expect(twice.decisions.map((each) => each.details)).toEqual(['a', 'b']);
    expect(twice.recalled).toEqual({ chunks: 2, tokens: 50, blocksDropped: 0, piecesRedacted: 1 });
    expect(EMPTY_STAGE_REPORT.messagesFolded).toBe(0);
  });
});

describe('DECIDE_STAGES', () => {
  it('lists each stage once', () => {
    const names = DECIDE_STAGES.map((stage) => stage.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('runs masking, the folds, the drops, recall, the segments weighed again with a new block, then masking after a fold', () => {
    expect(scheduled(DECIDE_STAGES).map((stage) => stage.name)).toEqual([
      'masking',
      'semantic-folds',
      'forced-fold',
      'budget-folds',
      'semantic-folds (again, after budget-folds)',
      'carry-provisional-drop',
      'restore-provisional-drop',
      'hard-limit-drop',
      'review-recall-blocks',
      'recall-for-latest',
      'semantic-folds (again, after recall-for-latest)',
      'masking (again, after the end)',
    ]);
  });

  it('schedules a second look after the stage it follows, asks its condition before each round, and ends with those at the end', async () => {
    const seen: string[] = [];
    const moves = (name: string): Stage<{ label: string }> => ({
      name,
      plan: ({ point: at }) => {
        seen.push(name);
        return { point: point(at.coveredCount + 1) };
      },
    });
    const looks: Stage<{ label: string }> = {
      name: 'looks',
      rounds: 2,
      plan: ({ point: at }) => {
        seen.push(`looks at ${at.coveredCount}`);
        return at.coveredCount < 3 ? { point: point(at.coveredCount + 1) } : undefined;
      },
      again: [
        { after: AT_THE_END, when: () => true },
        { after: 'a', when: ({ point: at }) => at.coveredCount > 100 },
        { after: 'b', when: () => true },
      ],
    };
    const stages = [looks, moves('a'), moves('b'), moves('c')];
    expect(scheduled(stages).map((stage) => stage.name)).toEqual([
      'looks',
      'a',
      'looks (again, after a)',
      'b',
      'looks (again, after b)',
      'c',
      'looks (again, after the end)',
    ]);
    const result = await runStages(stages, { label: '' }, start(), measure);
    expect(seen).toEqual(['looks at 0', 'looks at 1', 'a', 'b', 'looks at 4', 'c', 'looks at 5']);
    expect(result.point.coveredCount).toBe(5);
  });
});
