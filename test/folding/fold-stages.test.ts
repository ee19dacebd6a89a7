import { describe, expect, it, vi } from 'vitest';
import type { CallFacts } from '../../src/call/call-facts.js';
import type { CompressionPoint } from '../../src/call/compression-point.js';
import {
  EMPTY_STAGE_REPORT,
  type StageContext,
  type StagePlan,
  type StageReport,
  scheduled,
} from '../../src/call/stage.js';
import { DECIDE_STAGES, type EffectParts, effectsOf } from '../../src/engine/decide.js';
import { planned } from '../../src/engine/run-stages.js';
import { SummarizerError } from '../../src/errors.js';
import { foldBuysFewCalls } from '../../src/folding/fold-plans.js';
import { FoldRunner } from '../../src/folding/fold-runner.js';
import {
  budgetFoldMayWait,
  budgetFolds,
  forcedFold,
  MAX_BUDGET_FOLDS,
  semanticFolds,
} from '../../src/folding/fold-stages.js';
import type { FoldsAhead } from '../../src/folding/folds-ahead.js';
import type { Boundary } from '../../src/folding/semantic-triggers.js';
import { DEFAULT_SEMANTIC_TRIGGER_OPTIONS } from '../../src/options/compression-options.js';
import type { EngineSettings } from '../../src/options/engine-settings.js';
import { DEFAULT_REDACTION_TOOL_NAME, DEFAULT_STATE_ACKNOWLEDGEMENT } from '../../src/options/prompts.js';
import { RecallPlanner } from '../../src/recall/recall-planner.js';
import { DEFAULT_RECALL_ACKNOWLEDGEMENT } from '../../src/recall/render-recall.js';
import { sessionStateMessages } from '../../src/session-state/render-session-state.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { ResultInUse } from '../../src/signals/results-in-use.js';
import type { DecideStage, StageCall, StageServices } from '../../src/stages/decide-call.js';
import { type CacheEconomics, cacheEconomics } from '../../src/strategies/cache-economics.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import type { Message } from '../../src/transcript/transcript.js';
import { callFacts, economics, pointAt, projectAt } from '../helpers/call-facts.js';
import { meter, readStep } from '../helpers/fixtures.js';

/** The second looks semantic folds declare, as the loop schedules them. */
const secondLook = (after: string) =>
  scheduled(DECIDE_STAGES).find((stage) => stage.name === `semantic-folds (again, after ${after})`) as DecideStage;
const semanticFoldsAfterBudget = secondLook('budget-folds');
const semanticFoldsAfterRecall = secondLook('recall-for-latest');

type Context = StageContext<StageCall>;

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });
/** A task and `steps` file reads. With a budget of 2000 (threshold 1400, hard limit 1700): 5 steps are below the
 * threshold (1153 tokens), 7 over it (1609), 8 over the hard limit (1837). */
const loop = (steps: number): Message[] => [
  user('Fix the failing test in src/app.ts.'),
  ...Array.from({ length: steps }, (_, index) => readStep(index)).flat(),
];
/** Two turns: the latest user message at index 6. */
const turns = (): Message[] => [
  user('Fix the failing test in src/app.ts.'),
  ...readStep(0),
  ...readStep(1),
  assistant('The test passes now.'),
  user('Now fix the lint errors.'),
  ...readStep(2),
];

const BUDGET = 2_000;

const STATE: SessionState = {
  logos: ['The failing test is in src/app.test.ts.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'The assistant read the modules the test imports.',
};
/** A state of about `tokens` tokens. */
const stateOf = (tokens: number): SessionState => ({
  ...STATE,
  logos: Array.from({ length: Math.ceil(tokens / 50) }, (_, index) => `Fact ${index}: ${'detail '.repeat(24)}`),
});

/** A boundary before the assistant message at index 7 (the fourth step), as the segment scan would find one. */
const TESTS_PASSED: Boundary = {
  trigger: 'boundary:test',
  stepIndex: 3,
  messageIndex: 7,
  confidence: 0.8,
  details: 'the tests passed',
};
const SEMANTIC = { ...DEFAULT_SEMANTIC_TRIGGER_OPTIONS, minTokens: 200 };
/** The boundary a step later than `TESTS_PASSED`. */
const LATER_TESTS_PASSED: Boundary = { ...TESTS_PASSED, stepIndex: 4, messageIndex: 9 };

/** Cache arithmetic over 50 expected calls whose folds' summaries each cost `tokens` (a model makes them). */
function summariesAt(tokens: number): CacheEconomics {
  const economics = cacheEconomics({ read: 0.1, write: 1.25, output: 5 }, { stepCount: 50 });
  return { ...economics, pricesSummaries: true, summaryCost: () => tokens };
}

const stateTokens = (state: SessionState | undefined) =>
  state ? sessionStateMessages(state).reduce((sum, message) => sum + meter.measure(message).tokens, 0) : 0;

type Ahead = Pick<FoldsAhead, 'find' | 'plan'> & { active(): boolean };
/** Summaries ahead that found `found` pending, recording what is planned. */
function aheadOf(found?: Awaited<ReturnType<Ahead['find']>>, active = true) {
  return {
    active: () => active,
    find: vi.fn(async () => found),
    plan: vi.fn(async (_facts: CallFacts, _point: CompressionPoint, _cut: number, _replaces?: boolean) => {}),
  };
}

function servicesOf({
  folding = true,
  semantic,
  answer = () => STATE,
  ahead,
  boundaries = [TESTS_PASSED],
  quoted = [],
}: {
  folding?: boolean;
  semantic?: EngineSettings['semantic'];
  answer?: (input: SummarizeInput) => SessionState;
  ahead?: Ahead;
  boundaries?: readonly Boundary[];
  quoted?: readonly ResultInUse[];
} = {}) {
  const summarize = vi.fn(async (input: SummarizeInput) => answer(input));
  const runner = new FoldRunner({ name: 'test', summarize }, { timeoutMs: 1_000, meter });
  const settings: EngineSettings = {
    masking: undefined,
    staleness: undefined,
    semantic,
    redaction: undefined,
    redactionToolName: DEFAULT_REDACTION_TOOL_NAME,
    folding,
    keepRecent: 10,
    awareness: undefined,
    acknowledgement: DEFAULT_STATE_ACKNOWLEDGEMENT,
    ahead: undefined,
  };
  const services: StageServices = {
    settings,
    cachePricing: { read: 0.1, write: 1.25, output: 5 },
    summaryPricing: undefined,
    meter,
    memos: { placeholderTokens: new Map(), descriptions: new WeakMap(), terms: new Map() },
    aheadActive: () => ahead?.active() ?? false,
    aheadCalls: () => (ahead?.active() ? 2 : 0),
    recall: new RecallPlanner(meter, DEFAULT_RECALL_ACKNOWLEDGEMENT, { onEmbedderError: () => {} }),
    project: (facts, point) => projectAt(facts, point),
    total: (projection, point) => projection.layout.total(point.coveredCount, stateTokens(point.state)),
    stateTokens,
    quoted: () => quoted,
    quotes: () => new Map(),
    boundaries: () => boundaries,
  };
  effectParts.set(services, { folds: runner, ahead: ahead as unknown as FoldsAhead | undefined });
  return { services, runner, summarize };
}

/** What runs each test's effects, by its services (as the engine runs them for a call). */
const effectParts = new WeakMap<StageServices, EffectParts>();

/** A stage's plan, the effects it asks for run as the engine runs them. */
function planOf(stage: DecideStage, context: Context): Promise<StagePlan | undefined> {
  const parts = effectParts.get(context.call.services) as EffectParts;
  return planned(stage.plan(context), context, effectsOf(context.call.facts, parts));
}

/** Where a call of `messages` stands at `point` (nothing compressed by default). */
function contextOf(
  services: StageServices,
  messages: readonly Message[],
  {
    force = false,
    pays = true,
    report = EMPTY_STAGE_REPORT,
    maxStateTokens,
    economics: priced,
  }: {
    force?: boolean;
    pays?: boolean;
    report?: StageReport;
    maxStateTokens?: number;
    /** The cache arithmetic of the call (else one that always, or never, pays). */
    economics?: CacheEconomics;
  } = {},
): Context {
  const read = callFacts(messages, { budget: BUDGET });
  const facts = maxStateTokens === undefined ? read : { ...read, limits: { ...read.limits, maxStateTokens } };
  const point = pointAt(facts);
  const projection = services.project(facts, point);
  const tokens = services.total(projection, point);
  const call: StageCall = {
    facts,
    services,
    force,
    tokensBefore: tokens,
    pressure: force || tokens > facts.limits.compressAt,
    economics: priced ?? economics(pays),
    startCovered: point.coveredCount,
    provisional: undefined,
  };
  return { call, point, projection, tokens, report };
}

describe('budgetFolds', () => {
  it('plans nothing with folding off', async () => {
    const { services, summarize } = servicesOf({ folding: false });
    expect(await planOf(budgetFolds, contextOf(services, loop(7)))).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('plans nothing while the prompt is at or below the threshold', async () => {
    const { services, summarize } = servicesOf();
    const context = contextOf(services, loop(5));
    expect(context.tokens).toBeLessThanOrEqual(context.call.facts.limits.compressAt);
    expect(await planOf(budgetFolds, context)).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('folds a prompt over the threshold, moving the point and reporting the fold', async () => {
    const { services, summarize } = servicesOf();
    const context = contextOf(services, loop(7));
    expect(context.tokens).toBeGreaterThan(context.call.facts.limits.compressAt);
    const plan = await planOf(budgetFolds, context);

    expect(plan?.point.coveredCount).toBe(13);
    expect(plan?.point.state).toMatchObject(STATE);
    expect(plan?.summarizerCalls).toBe(1);
    expect(plan?.report?.messagesFolded).toBe(13);
    expect(plan?.report?.decisions).toHaveLength(1);
    expect(plan?.report?.decisions?.[0]).toMatchObject({
      trigger: 'budget',
      scope: { kind: 'messages', from: 0, to: 13 },
    });
    expect(plan?.projection).toBeDefined();
    const after = services.total(plan?.projection ?? context.projection, plan?.point ?? context.point);
    expect(after).toBeLessThanOrEqual(context.call.facts.limits.compressTo);
    expect(summarize).toHaveBeenCalledOnce();
    expect(summarize.mock.calls[0]?.[0].messages).toHaveLength(13);
  });

  it('reports a summarizer failure and leaves the point where it was', async () => {
    const { services, runner } = servicesOf({
      answer: () => {
        throw new Error('the summarizer model is down');
      },
    });
    const context = contextOf(services, loop(7));
    const plan = await planOf(budgetFolds, context);

    expect(plan?.point).toBe(context.point);
    expect(plan?.report?.failure?.reason).toBe('threw');
    expect(plan?.report?.messagesFolded).toBeUndefined();
    expect(plan?.report?.decisions).toBeUndefined();
    expect(await runner.backingOff(context.call.facts)).toBe(true);
  });

  it('keeps the point and backs off when the state outweighs what the fold freed', async () => {
    const { services, runner, summarize } = servicesOf({ answer: () => stateOf(2_000) });
    const context = contextOf(services, loop(7), { maxStateTokens: 20_000 });
    const plan = await planOf(budgetFolds, context);

    expect(summarize).toHaveBeenCalledOnce();
    expect(plan?.point).toBe(context.point);
    expect(plan?.summarizerCalls).toBe(1);
    expect(plan?.report).toBeUndefined();
    expect(await runner.backingOff(context.call.facts)).toBe(true);
  });

  it('plans nothing while the conversation backs off', async () => {
    const { services, runner, summarize } = servicesOf();
    const context = contextOf(services, loop(7));
    await runner.discarded(context.call.facts);
    expect(await planOf(budgetFolds, context)).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('plans nothing after a summarizer failure earlier in the call', async () => {
    const { services, summarize } = servicesOf();
    const failure = new SummarizerError({ summarizer: 'test', reason: 'timeout' });
    const context = contextOf(services, loop(7), { report: { ...EMPTY_STAGE_REPORT, failure } });
    expect(await planOf(budgetFolds, context)).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('stops once the call made MAX_BUDGET_FOLDS folds for the budget or on request', async () => {
    expect(MAX_BUDGET_FOLDS).toBe(3);
    const { services } = servicesOf();
    const full = contextOf(services, loop(7), { report: { ...EMPTY_STAGE_REPORT, budgetFolds: 3 } });
    expect(await planOf(budgetFolds, full)).toBeUndefined();
    const room = contextOf(services, loop(7), { report: { ...EMPTY_STAGE_REPORT, budgetFolds: 2 } });
    expect((await planOf(budgetFolds, room))?.point.coveredCount).toBe(13);
  });
});

describe('budget folds in a loop whose steps are large against the window', () => {
  /** Reads of about a quarter of the budget each: a fold leaves the latest read and the state, two reads take it over. */
  const largeSteps = (steps: number): Message[] => [
    user('Fix the failing test in src/app.ts.'),
    ...Array.from({ length: steps }, (_, index) => readStep(index, 100)).flat(),
  ];

  it('leaves the fold to the call that would pass the hard limit, when a fold now would come back within two calls', async () => {
    const { services, summarize } = servicesOf();
    const over = Array.from({ length: 12 }, (_, steps) => contextOf(services, largeSteps(steps + 1))).find(
      (context) =>
        context.tokens > context.call.facts.limits.compressAt && context.tokens <= context.call.facts.limits.hardLimit,
    );
    expect(over).toBeDefined();
    const context = over as Context;
    expect(foldBuysFewCalls({ ...context.call, ...context, stateTokens: 0 })).toBe(true);
    expect(budgetFoldMayWait(context)).toBe(true);
    expect(await planOf(budgetFolds, context)).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
    // past the hard limit it folds at once
    const past = contextOf(services, largeSteps(context.call.facts.messages.length / 2 + 1));
    expect(past.tokens).toBeGreaterThan(past.call.facts.limits.hardLimit);
    expect((await planOf(budgetFolds, past))?.report?.messagesFolded).toBeGreaterThan(0);
  });

  it('folds at once when masking under pressure rewrites the cached prefix in this call anyway', async () => {
    const { services } = servicesOf();
    const waiting = contextOf(services, largeSteps(3));
    expect(budgetFoldMayWait(waiting)).toBe(true);
    const masked = contextOf(services, largeSteps(3), {
      report: { ...EMPTY_STAGE_REPORT, masked: { count: 1, tokensFreed: 50 } },
    });
    expect((await planOf(budgetFolds, masked))?.report?.messagesFolded).toBeGreaterThan(0);
  });

  it('folds at the threshold when the fold buys calls enough (steps small against the window)', async () => {
    const { services } = servicesOf();
    const context = contextOf(services, loop(7));
    expect(context.tokens).toBeLessThanOrEqual(context.call.facts.limits.hardLimit);
    expect(foldBuysFewCalls({ ...context.call, ...context, stateTokens: 0 })).toBe(false);
    expect((await planOf(budgetFolds, context))?.report?.messagesFolded).toBeGreaterThan(0);
  });

  it('never waits on a forced call', async () => {
    const { services } = servicesOf();
    const context = contextOf(services, largeSteps(5), { force: true });
    expect(budgetFoldMayWait(context)).toBe(false);
  });
});

describe('forcedFold', () => {
  it('folds nothing unless the call is forced', async () => {
    const { services, summarize } = servicesOf();
    expect(await planOf(forcedFold, contextOf(services, loop(7)))).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('folds nothing on request with folding off', async () => {
    const { services, summarize } = servicesOf({ folding: false });
    expect(await planOf(forcedFold, contextOf(services, turns(), { force: true }))).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('folds up to the latest user message on request, below the threshold too', async () => {
    const { services } = servicesOf();
    const context = contextOf(services, turns(), { force: true });
    expect(context.tokens).toBeLessThan(context.call.facts.limits.compressAt);
    const plan = await planOf(forcedFold, context);

    expect(plan?.point.coveredCount).toBe(6);
    expect(plan?.report?.messagesFolded).toBe(6);
    expect(plan?.report?.decisions?.[0]).toMatchObject({
      trigger: 'forced',
      scope: { kind: 'messages', from: 0, to: 6 },
    });
  });

  it('keeps a forced fold that grows a short prompt below the hard limit, without backing off', async () => {
    const { services, runner } = servicesOf({ answer: () => stateOf(800) });
    const context = contextOf(services, turns(), { force: true, maxStateTokens: 20_000 });
    const plan = await planOf(forcedFold, context);

    const after = services.total(plan?.projection ?? context.projection, plan?.point ?? context.point);
    expect(after).toBeGreaterThan(context.tokens);
    expect(after).toBeLessThanOrEqual(context.call.facts.limits.hardLimit);
    expect(plan?.point.coveredCount).toBe(6);
    expect(await runner.backingOff(context.call.facts)).toBe(false);
  });

  it('leaves the point when the forced fold takes the prompt over the hard limit, without backing off', async () => {
    const { services, runner } = servicesOf({ answer: () => stateOf(2_000) });
    const context = contextOf(services, turns(), { force: true, maxStateTokens: 20_000 });
    const plan = await planOf(forcedFold, context);

    expect(plan?.point).toBe(context.point);
    expect(plan?.report).toBeUndefined();
    expect(await runner.backingOff(context.call.facts)).toBe(false);
  });
});

describe('semanticFolds', () => {
  it('folds a finished segment below the threshold when the fold pays', async () => {
    const { services, summarize } = servicesOf({ semantic: SEMANTIC });
    const context = contextOf(services, loop(5));
    const plan = await planOf(semanticFolds, context);

    expect(plan?.point.coveredCount).toBe(7);
    expect(plan?.report?.messagesFolded).toBe(7);
    expect(plan?.report?.decisions?.[0]).toMatchObject({
      trigger: 'boundary:test',
      scope: { kind: 'messages', from: 0, to: 7 },
    });
    expect(summarize.mock.calls[0]?.[0].messages).toHaveLength(7);
  });

  it('folds nothing when the fold would not pay for its cache break', async () => {
    const { services, summarize } = servicesOf({ semantic: SEMANTIC });
    expect(await planOf(semanticFolds, contextOf(services, loop(5), { pays: false }))).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('folds nothing without semantic triggers, or with folding off', async () => {
    const without = servicesOf();
    expect(await planOf(semanticFolds, contextOf(without.services, loop(5)))).toBeUndefined();
    const off = servicesOf({ semantic: SEMANTIC, folding: false });
    expect(await planOf(semanticFolds, contextOf(off.services, loop(5)))).toBeUndefined();
    expect(without.summarize).not.toHaveBeenCalled();
    expect(off.summarize).not.toHaveBeenCalled();
  });

  it('leaves a forced call, and a prompt over the threshold, to the other folds', async () => {
    const { services, summarize } = servicesOf({ semantic: SEMANTIC });
    expect(await planOf(semanticFolds, contextOf(services, loop(5), { force: true }))).toBeUndefined();
    expect(await planOf(semanticFolds, contextOf(services, loop(7)))).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('folds nothing when the segment frees less than the minimum', async () => {
    const { services, summarize } = servicesOf({ semantic: { ...SEMANTIC, minTokens: 5_000 } });
    expect(await planOf(semanticFolds, contextOf(services, loop(5)))).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
  });

  it('reports a fold put off while the work after it quotes its results, folding nothing', async () => {
    const quoted: ResultInUse[] = [{ key: 'r1', callId: 'read-1', messageIndex: 4, term: 'v1', lastUse: 9 }];
    const { services, summarize } = servicesOf({ semantic: SEMANTIC, quoted });
    const context = contextOf(services, loop(5));
    const plan = await planOf(semanticFolds, context);

    expect(summarize).not.toHaveBeenCalled();
    expect(plan?.point).toBe(context.point);
    expect(plan?.report?.deferred).toHaveLength(1);
    expect(plan?.report?.deferred?.[0]).toMatchObject({
      trigger: 'boundary:test',
      scope: { kind: 'messages', from: 0, to: 7 },
    });
    expect(plan?.report?.deferred?.[0]?.details).toContain('read-1');
  });

  it('folds a segment whose results are quoted only within it', async () => {
    const quoted: ResultInUse[] = [{ key: 'r1', callId: 'read-1', messageIndex: 4, term: 'v1', lastUse: 5 }];
    const { services } = servicesOf({ semantic: SEMANTIC, quoted });
    expect((await planOf(semanticFolds, contextOf(services, loop(5))))?.point.coveredCount).toBe(7);
  });

  it('neither folds nor reports a fold put off while the conversation backs off', async () => {
    const quoted: ResultInUse[] = [{ key: 'r1', callId: 'read-1', messageIndex: 4, term: 'v1', lastUse: 9 }];
    const { services, runner } = servicesOf({ semantic: SEMANTIC, quoted });
    const context = contextOf(services, loop(5));
    await runner.discarded(context.call.facts);
    expect(await planOf(semanticFolds, context)).toBeUndefined();
  });

  it('discards a fold whose state outweighs what it folds, and backs off', async () => {
    const { services, runner, summarize } = servicesOf({ semantic: SEMANTIC, answer: () => stateOf(1_000) });
    const context = contextOf(services, loop(5), { maxStateTokens: 20_000 });
    const plan = await planOf(semanticFolds, context);

    expect(summarize).toHaveBeenCalledOnce();
    expect(plan?.point).toBe(context.point);
    expect(plan?.report).toBeUndefined();
    expect(await runner.backingOff(context.call.facts)).toBe(true);
  });

  it('reports a summarizer failure with the point unchanged', async () => {
    const { services } = servicesOf({
      semantic: SEMANTIC,
      answer: () => {
        throw new Error('down');
      },
    });
    const context = contextOf(services, loop(5));
    const plan = await planOf(semanticFolds, context);

    expect(plan?.point).toBe(context.point);
    expect(SummarizerError.isInstance(plan?.report?.failure)).toBe(true);
  });
});

describe('semantic folds after a budget fold', () => {
  it('weighs the segments again only after a fold for the budget or on request', async () => {
    const { services } = servicesOf({ semantic: SEMANTIC });
    expect(await planOf(semanticFoldsAfterBudget, contextOf(services, loop(5)))).toBeUndefined();
    expect(
      await planOf(
        semanticFoldsAfterBudget,
        contextOf(services, loop(5), { report: { ...EMPTY_STAGE_REPORT, messagesFolded: 2 } }),
      ),
    ).toBeUndefined();
    const afterBudget = await planOf(
      semanticFoldsAfterBudget,
      contextOf(services, loop(5), { report: { ...EMPTY_STAGE_REPORT, budgetFolds: 1 } }),
    );
    expect(afterBudget?.point.coveredCount).toBe(7);
    const afterForced = await planOf(
      semanticFoldsAfterBudget,
      contextOf(services, loop(5), { report: { ...EMPTY_STAGE_REPORT, budgetFolds: 1 } }),
    );
    expect(afterForced?.point.coveredCount).toBe(7);
  });

  it('weighs them once more after recall only when a budget fold and a recall block were both made', async () => {
    const { services } = servicesOf({ semantic: SEMANTIC });
    const planAfter = (budgetFolds: number, recallChosen: boolean) =>
      planOf(
        semanticFoldsAfterRecall,
        contextOf(services, loop(5), { report: { ...EMPTY_STAGE_REPORT, budgetFolds, recallChosen } }),
      );
    expect(await planAfter(1, false)).toBeUndefined();
    expect(await planAfter(0, true)).toBeUndefined();
    expect((await planAfter(1, true))?.point.coveredCount).toBe(7);
  });
});

describe('budgetFoldMayWait', () => {
  it('lets a budget fold wait only with summaries ahead active, unforced, below the hard limit', () => {
    const { services } = servicesOf();
    const context = contextOf(services, loop(7));
    const { hardLimit } = context.call.facts.limits;
    const withAhead = (ahead: Ahead | undefined, force = false) => ({
      ...context.call,
      force,
      services: { ...services, aheadActive: () => ahead?.active() ?? false },
    });

    const at = (call: ReturnType<typeof withAhead>, tokens: number) => ({ ...context, call, tokens });

    expect(budgetFoldMayWait(at(withAhead(aheadOf()), hardLimit))).toBe(true);
    expect(budgetFoldMayWait(at(withAhead(undefined), context.tokens))).toBe(false);
    expect(budgetFoldMayWait(at(withAhead(aheadOf(undefined, false)), context.tokens))).toBe(false);
    expect(budgetFoldMayWait(at(withAhead(aheadOf(), true), context.tokens))).toBe(false);
    expect(budgetFoldMayWait(at(withAhead(aheadOf()), hardLimit + 1))).toBe(false);
  });
});

describe('folds with summaries made ahead of time', () => {
  it('plans the budget fold ahead instead of folding while the prompt is below the hard limit', async () => {
    const ahead = aheadOf();
    const { services, summarize } = servicesOf({ ahead });
    const context = contextOf(services, loop(7));
    expect(await planOf(budgetFolds, context)).toBeUndefined();

    expect(summarize).not.toHaveBeenCalled();
    expect(ahead.plan).toHaveBeenCalledOnce();
    expect(ahead.plan.mock.calls[0]?.slice(1)).toEqual([context.point, 13, false]);
  });

  it('waits for a pending fold that is not due yet', async () => {
    const ahead = aheadOf({ cut: 13, due: false, replaces: false });
    const { services, summarize } = servicesOf({ ahead });
    expect(await planOf(budgetFolds, contextOf(services, loop(7)))).toBeUndefined();
    expect(summarize).not.toHaveBeenCalled();
    expect(ahead.plan).not.toHaveBeenCalled();
  });

  it('folds to the pending cut once it is due, saying it was summarized ahead', async () => {
    const ahead = aheadOf({ cut: 13, due: true, replaces: false });
    const { services } = servicesOf({ ahead });
    const plan = await planOf(budgetFolds, contextOf(services, loop(7)));

    expect(plan?.point.coveredCount).toBe(13);
    expect(plan?.report?.decisions?.[0]?.details).toMatch(/summarized ahead of time$/);
    expect(plan?.report?.decisions?.[0]?.details).not.toContain('instead');
    expect(ahead.plan).not.toHaveBeenCalled();
  });

  it('takes a shorter pending fold that brings the prompt below the threshold', async () => {
    const ahead = aheadOf({ cut: 11, due: true, replaces: false });
    const { services } = servicesOf({ ahead });
    const plan = await planOf(budgetFolds, contextOf(services, loop(7)));

    expect(plan?.point.coveredCount).toBe(11);
    expect(plan?.report?.decisions?.[0]?.scope).toEqual({ kind: 'messages', from: 0, to: 11 });
    expect(plan?.report?.decisions?.[0]?.details).toContain('folded to message 11 instead');
  });

  it('plans the deeper fold in place of a pending one too short to bring the prompt below the threshold', async () => {
    const ahead = aheadOf({ cut: 3, due: true, replaces: false });
    const { services, summarize } = servicesOf({ ahead });
    const context = contextOf(services, loop(7));
    expect(await planOf(budgetFolds, context)).toBeUndefined();

    expect(summarize).not.toHaveBeenCalled();
    expect(ahead.plan.mock.calls[0]?.slice(1)).toEqual([context.point, 13, true]);
  });

  it('leaves the next fold to the next call after a fold in this one, when summaries continue the prompt', async () => {
    // the call started from nothing folded and has folded to message 3 already (a summary made ahead, taken)
    const at = (continues: boolean) => {
      const ahead = aheadOf();
      const { services } = servicesOf({ ahead });
      const priced: StageServices = { ...services, summaryPricing: { continues } };
      effectParts.set(priced, effectParts.get(services) as EffectParts);
      const base = contextOf(priced, loop(7));
      const point = pointAt(base.call.facts, { coveredCount: 3, state: STATE });
      const projection = priced.project(base.call.facts, point);
      const context: Context = { ...base, point, projection, tokens: priced.total(projection, point) };
      return { ahead, context };
    };
    // a summary planned now could not continue the prompt sent before this call (it starts at another fold point)
    const continuing = at(true);
    expect(continuing.context.tokens).toBeGreaterThan(continuing.context.call.facts.limits.compressAt);
    expect(await planOf(budgetFolds, continuing.context)).toBeUndefined();
    expect(continuing.ahead.plan).not.toHaveBeenCalled();
    // summaries made as separate requests are planned at once, as before
    const separate = at(false);
    await planOf(budgetFolds, separate.context);
    expect(separate.ahead.plan).toHaveBeenCalledOnce();
  });

  it('takes a short pending fold that was itself planned in place of another', async () => {
    const ahead = aheadOf({ cut: 3, due: true, replaces: true });
    const { services } = servicesOf({ ahead });
    const plan = await planOf(budgetFolds, contextOf(services, loop(7)));

    expect(plan?.point.coveredCount).toBe(3);
    expect(ahead.plan).not.toHaveBeenCalled();
  });

  it('folds at once over the hard limit, without waiting for a summary', async () => {
    const ahead = aheadOf();
    const { services, summarize } = servicesOf({ ahead });
    const context = contextOf(services, loop(8));
    expect(context.tokens).toBeGreaterThan(context.call.facts.limits.hardLimit);
    const plan = await planOf(budgetFolds, context);

    expect(plan?.point.coveredCount).toBe(15);
    expect(summarize).toHaveBeenCalledOnce();
    expect(ahead.plan).not.toHaveBeenCalled();
  });

  it('reports a failed summary of a shorter pending fold and does not ask the summarizer again for the deeper one', async () => {
    const ahead = aheadOf({ cut: 3, due: true, replaces: false });
    const { services, summarize } = servicesOf({
      ahead,
      answer: () => {
        throw new Error('the summarizer model is down');
      },
    });
    const context = contextOf(services, loop(8));
    expect(context.tokens).toBeGreaterThan(context.call.facts.limits.hardLimit);
    const plan = await planOf(budgetFolds, context);

    expect(plan?.point).toBe(context.point);
    expect(plan?.report?.failure).toBeInstanceOf(SummarizerError);
    expect(summarize).toHaveBeenCalledOnce();
  });

  it('counts the summarizer call of a shorter pending fold it discarded into the deeper fold made instead', async () => {
    const ahead = aheadOf({ cut: 3, due: true, replaces: false });
    // the shorter fold's state outweighs the three messages it folds; the deeper fold's does not
    const { services, summarize } = servicesOf({
      ahead,
      answer: (input) => (input.messages.length <= 3 ? stateOf(600) : STATE),
    });
    const context = contextOf(services, loop(8), { maxStateTokens: 20_000 });
    const plan = await planOf(budgetFolds, context);

    expect(plan?.point.coveredCount).toBe(15);
    expect(summarize).toHaveBeenCalledTimes(2);
    expect(plan?.summarizerCalls).toBe(2);
  });

  it('folds at once once summaries ahead are no longer active', async () => {
    const ahead = aheadOf(undefined, false);
    const { services } = servicesOf({ ahead });
    const plan = await planOf(budgetFolds, contextOf(services, loop(7)));

    expect(plan?.point.coveredCount).toBe(13);
    expect(ahead.find).not.toHaveBeenCalled();
  });

  it("plans a segment's fold in place of a shorter pending one rather than folding twice when summaries are free", async () => {
    const ahead = aheadOf({ cut: 3, due: true, replaces: false });
    const { services, summarize } = servicesOf({ semantic: SEMANTIC, ahead });
    const context = contextOf(services, loop(5));
    expect(await planOf(semanticFolds, context)).toBeUndefined();

    expect(summarize).not.toHaveBeenCalled();
    expect(ahead.plan.mock.calls[0]?.slice(1)).toEqual([context.point, 7, true]);
  });

  it('takes a shorter pending fold below the threshold once it was planned in place of another', async () => {
    const ahead = aheadOf({ cut: 3, due: true, replaces: true });
    const { services } = servicesOf({ semantic: SEMANTIC, ahead });
    const plan = await planOf(semanticFolds, contextOf(services, loop(5)));

    expect(plan?.point.coveredCount).toBe(3);
    expect(ahead.plan).not.toHaveBeenCalled();
  });

  it('takes a shorter pending segment fold once due when the deeper one would not pay for its second summary', async () => {
    // a model's summary of the shorter fold is made: the deeper fold would free one step more, not worth a summary of
    // 1,200 tokens (though it pays on its own)
    const ahead = aheadOf({ cut: 7, due: true, replaces: false });
    const { services } = servicesOf({ semantic: SEMANTIC, ahead, boundaries: [LATER_TESTS_PASSED] });
    const plan = await planOf(semanticFolds, contextOf(services, loop(6), { economics: summariesAt(1_200) }));

    expect(plan?.point.coveredCount).toBe(7);
    expect(plan?.report?.decisions?.[0]?.details).toContain('folded to message 7 instead, summarized ahead of time');
    expect(ahead.plan).not.toHaveBeenCalled();
  });

  it('plans the deeper segment fold in place of a shorter pending one when it is worth its own summary', async () => {
    const ahead = aheadOf({ cut: 7, due: true, replaces: false });
    const { services, summarize } = servicesOf({ semantic: SEMANTIC, ahead, boundaries: [LATER_TESTS_PASSED] });
    const context = contextOf(services, loop(6), { economics: summariesAt(100) });
    expect(await planOf(semanticFolds, context)).toBeUndefined();

    expect(summarize).not.toHaveBeenCalled();
    expect(ahead.plan.mock.calls[0]?.slice(1)).toEqual([context.point, 9, true]);
  });

  it('plans a semantic fold ahead instead of folding now', async () => {
    const ahead = aheadOf();
    const { services, summarize } = servicesOf({ semantic: SEMANTIC, ahead });
    const context = contextOf(services, loop(5));
    expect(await planOf(semanticFolds, context)).toBeUndefined();

    expect(summarize).not.toHaveBeenCalled();
    expect(ahead.plan.mock.calls[0]?.slice(1)).toEqual([context.point, 7, false]);
  });
});
