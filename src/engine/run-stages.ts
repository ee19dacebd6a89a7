import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import {
  addToReport,
  EMPTY_STAGE_REPORT,
  type Planning,
  type PointAt,
  type PromiseBreak,
  type Stage,
  type StageContext,
  type StagePlan,
  type StageReport,
  scheduled,
} from '../call/stage.js';

/** How the loop sees a point: what the model sees there, and how many tokens that is. */
export interface PointMeasure {
  project(point: CompressionPoint): Projection;
  total(projection: Projection, point: CompressionPoint): number;
  /**
   * The promise a plan would break, moving the call from `current` to `next`; undefined when it keeps them (or when
   * nothing is checked). A plan that breaks one is left out, and the break added to the report.
   */
  check?(
    stage: string,
    current: PointAt & { readonly report: StageReport },
    next: PointAt,
    plan: StagePlan,
  ): PromiseBreak | undefined;
  /**
   * Whether the stages may end at `end`, having started at `start`; when not, they end at the last point that may be
   * ended at (the time and summarizer calls spent after it still counted). Any point when absent.
   */
  settles?(start: PointAt, end: PointAt): boolean;
  /** The break to report when the stages may not end where they did (see `settles`). */
  unsettled?(start: PointAt, end: PointAt): PromiseBreak | undefined;
}

/** Where the stages left a call. */
export interface StagesResult {
  readonly point: CompressionPoint;
  readonly projection: Projection;
  /** The point before the first provisional plan, undefined when no provisional plan moved the fold point. */
  readonly beforeProvisional: CompressionPoint | undefined;
  readonly report: StageReport;
}

/** Runs the effects a stage asks for (summarize, read or write the store), with where the call stood when asked. */
export type RunEffect<Call, Effect> = (effect: Effect, context: StageContext<Call>) => Promise<unknown>;

/**
 * Runs the stages in their order, with the second looks they declare (see `scheduled`): each plans from the context
 * (the loop running the effects it asks for), the loop applies the plan (projects its point, checks it, keeps it or
 * not) and the next stage plans from the result. A stage with `rounds` runs again while its plans move the point.
 */
export async function runStages<Call, Effect = never>(
  stages: readonly Stage<Call, Effect>[],
  call: Call,
  start: { point: CompressionPoint; projection: Projection },
  measure: PointMeasure,
  runEffect?: RunEffect<Call, Effect>,
): Promise<StagesResult> {
  let context = startContext(call, start, measure);
  let beforeProvisional: CompressionPoint | undefined;
  /** Where the call stood after each plan that moved it, to end at the last the stages may end at. */
  const stops = [{ context, beforeProvisional }];
  for (const stage of scheduled(stages)) {
    for (let round = 0; round < (stage.rounds ?? 1); round++) {
      const plan = await planned(stage.plan(context), context, runEffect);
      if (!plan) break;
      const next = applyPlan(context, stage.name, plan, measure);
      if (plan.provisional && next.point !== context.point) beforeProvisional ??= context.point;
      const moved = next.point !== context.point;
      context = next;
      if (moved) stops.push({ context, beforeProvisional });
      if (!moved) break;
    }
  }
  return settled(stops, context, measure);
}

/** A stage's plan, the effects it asked for run in turn (see `Planning`). */
export async function planned<Call, Effect>(
  planning: Planning<Effect>,
  context: StageContext<Call>,
  runEffect: RunEffect<Call, Effect> | undefined,
): Promise<StagePlan | undefined> {
  if (!isGenerator(planning)) return planning;
  let step = await planning.next();
  while (!step.done) {
    if (!runEffect) throw new Error(`a stage asked for an effect the loop cannot run: ${JSON.stringify(step.value)}`);
    step = await planning.next(await runEffect(step.value, context));
  }
  return step.value;
}

function isGenerator<Effect>(
  planning: Planning<Effect>,
): planning is AsyncGenerator<Effect, StagePlan | undefined, unknown> {
  return typeof planning === 'object' && planning !== null && Symbol.asyncIterator in planning;
}

/**
 * Where the stages leave the call: where they ended, or when they may not end there (`PointMeasure.settles`), the
 * last point before it they may end at, with the time and summarizer calls spent on the way (and a failure) reported.
 */
function settled<Call>(
  stops: readonly { context: StageContext<Call>; beforeProvisional: CompressionPoint | undefined }[],
  end: StageContext<Call>,
  measure: PointMeasure,
): StagesResult {
  const first = stops[0] as (typeof stops)[number];
  const last = stops.at(-1) as (typeof stops)[number];
  const settles = (at: StageContext<Call>) => measure.settles?.(first.context, at) ?? true;
  if (settles(end)) {
    return {
      point: end.point,
      projection: end.projection,
      beforeProvisional: last.beforeProvisional,
      report: end.report,
    };
  }
  const chosen = stops.findLast((stop) => settles(stop.context)) ?? first;
  const { summarizerMs, summarizerCalls, summarizerUsage, failure, broken } = end.report;
  const report = {
    ...chosen.context.report,
    summarizerMs,
    summarizerCalls,
    summarizerUsage,
    failure,
    broken: [...broken, measure.unsettled?.(first.context, end)].filter((each) => each !== undefined),
  };
  const { point, projection } = chosen.context;
  return { point, projection, beforeProvisional: chosen.beforeProvisional, report };
}

function startContext<Call>(
  call: Call,
  { point, projection }: { point: CompressionPoint; projection: Projection },
  measure: PointMeasure,
): StageContext<Call> {
  return { call, point, projection, tokens: measure.total(projection, point), report: EMPTY_STAGE_REPORT };
}

/** The context after a plan: its point, when kept, with its projection and its part of the report. */
function applyPlan<Call>(
  context: StageContext<Call>,
  stage: string,
  plan: StagePlan,
  measure: PointMeasure,
): StageContext<Call> {
  const spent = addToReport(context.report, {
    summarizerMs: plan.summarizerMs ?? 0,
    summarizerCalls: plan.summarizerCalls ?? 0,
    summarizerUsage: plan.summarizerUsage,
  });
  if (plan.point === context.point) return { ...context, report: addToReport(spent, plan.report ?? {}) };
  const projection = plan.projection ?? measure.project(plan.point);
  const tokens = measure.total(projection, plan.point);
  if (plan.onlyIfSmaller && tokens >= context.tokens) return { ...context, report: spent };
  const broken = measure.check?.(stage, context, { point: plan.point, projection, tokens }, plan);
  if (broken) return { ...context, report: addToReport(spent, { broken: [broken] }) };
  return {
    ...context,
    point: plan.point,
    projection,
    tokens,
    report: addToReport(spent, plan.report ?? {}),
  };
}
