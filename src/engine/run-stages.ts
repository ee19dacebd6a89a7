import type { SummarizerError } from '../errors.js';
import type { CompressionDecision } from '../triggers/decisions.js';
import type { CompressionPoint } from './compression-point.js';
import type { Projection } from './projection.js';
import type { PromiseBreak } from './promise-checks.js';

/** What the stages of a call did so far, in the call's report. */
export interface StageReport {
  readonly decisions: readonly CompressionDecision[];
  /** Folds that would have paid but were put off (the work after them still quotes what they would hide). */
  readonly deferred: readonly CompressionDecision[];
  readonly masked: { readonly count: number; readonly tokensFreed: number };
  readonly messagesFolded: number;
  readonly messagesDropped: number;
  readonly summarizerMs: number;
  /** Summarizer calls made (a fold larger than the summarizer's window takes several). */
  readonly summarizerCalls: number;
  readonly failure: SummarizerError | undefined;
  /** Salience quotes a summarizer returned that were not verbatim in the folded messages, dropped. */
  readonly quotesRejected: number;
  /** An earlier call's provisional drop was undone: its messages are sent again (a change of the prompt). */
  readonly restored: boolean;
  /** The recall block this call made (chunks quoted, tokens) and the older blocks it took out. */
  readonly recalled: {
    readonly chunks: number;
    readonly tokens: number;
    readonly blocksDropped: number;
    readonly piecesRedacted: number;
  };
  /** Plans left out because they would have broken a promise (see `CallPromises`). */
  readonly broken: readonly PromiseBreak[];
}

/** The report of a call before any stage ran. */
export const EMPTY_STAGE_REPORT: StageReport = Object.freeze({
  decisions: Object.freeze([]),
  deferred: Object.freeze([]),
  masked: Object.freeze({ count: 0, tokensFreed: 0 }),
  messagesFolded: 0,
  messagesDropped: 0,
  summarizerMs: 0,
  summarizerCalls: 0,
  failure: undefined,
  quotesRejected: 0,
  restored: false,
  recalled: Object.freeze({ chunks: 0, tokens: 0, blocksDropped: 0, piecesRedacted: 0 }),
  broken: Object.freeze([]),
});

/**
 * Whether a part of a report tells of a change the model sees (what `onCompress` hears of): a fold, a drop, a mask, a
 * recall block made, taken out or cut, an earlier drop undone. A decision alone (a fold put off) changes nothing.
 */
export function announces(part: Partial<StageReport>): boolean {
  const { masked, recalled } = part;
  return (
    (part.messagesFolded ?? 0) > 0 ||
    (part.messagesDropped ?? 0) > 0 ||
    (masked?.count ?? 0) > 0 ||
    (recalled ? recalled.chunks + recalled.blocksDropped + recalled.piecesRedacted > 0 : false) ||
    part.restored === true
  );
}

/** Where a call stands between two stages: what every stage plans from, never changed by it. */
export interface StageContext<Call> {
  /** What holds for the whole call (its facts, options and services), the same for every stage. */
  readonly call: Call;
  readonly point: CompressionPoint;
  /** What the model sees at `point`. */
  readonly projection: Projection;
  /** Tokens of the prompt at `point`. */
  readonly tokens: number;
  readonly report: StageReport;
  /** The stages whose plans moved the point so far, in order (a stage that ran several times, as often). */
  readonly applied: readonly Stage<Call>[];
}

/** What a stage asks for: a new point (or the same one, to report only) and what it adds to the report. */
export interface StagePlan {
  readonly point: CompressionPoint;
  /** The projection at `point`, when the stage knows it already (the loop projects `point` otherwise). */
  readonly projection?: Projection;
  /** Kept only when the prompt at `point` is smaller than now; `onDiscarded` hears when it is not. */
  readonly onlyIfSmaller?: boolean;
  readonly onDiscarded?: () => void;
  /**
   * Messages left out without a summary because a summary failed or waits: the record keeps the point before the
   * first such plan as its fold point (so a later call summarizes those messages), this one as its provisional drop.
   */
  readonly provisional?: boolean;
  /**
   * The point is one an earlier call sent (a drop it made, carried): a change of this call's starting point, but not
   * of the prompt the conversation's cache holds, so nothing to report.
   */
  readonly restores?: boolean;
  /** Added to the report when the plan is kept. */
  readonly report?: Partial<StageReport>;
  /** The summarizer's time, counted whether the plan is kept or not. */
  readonly summarizerMs?: number;
  /** The summarizer calls made, counted whether the plan is kept or not. */
  readonly summarizerCalls?: number;
}

/** One step of the pipeline: plans from where the call stands, or returns nothing when it has nothing to do. */
export interface Stage<Call> {
  readonly name: string;
  /** How many times in a row the stage may run while its plans move the point (1 when absent). */
  readonly rounds?: number;
  plan(context: StageContext<Call>): StagePlan | undefined | Promise<StagePlan | undefined>;
}

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

/** A point with what the model sees there and its tokens. */
export interface PointAt {
  readonly point: CompressionPoint;
  readonly projection: Projection;
  readonly tokens: number;
}

/** Where the stages left a call. */
export interface StagesResult {
  readonly point: CompressionPoint;
  readonly projection: Projection;
  /** The point before the first provisional plan, undefined when no provisional plan moved the fold point. */
  readonly beforeProvisional: CompressionPoint | undefined;
  readonly report: StageReport;
}

/**
 * Runs the stages in their order: each plans from the context, the loop applies the plan (projects its point, keeps
 * it or not) and the next stage plans from the result. A stage with `rounds` runs again while its plans move the point.
 */
export async function runStages<Call>(
  stages: readonly Stage<Call>[],
  call: Call,
  start: { point: CompressionPoint; projection: Projection },
  measure: PointMeasure,
): Promise<StagesResult> {
  let context = startContext(call, start, measure);
  let beforeProvisional: CompressionPoint | undefined;
  /** Where the call stood after each plan that moved it, to end at the last the stages may end at. */
  const stops = [{ context, beforeProvisional }];
  for (const stage of stages) {
    for (let round = 0; round < (stage.rounds ?? 1); round++) {
      const plan = await stage.plan(context);
      if (!plan) break;
      const next = applyPlan(context, stage, plan, measure);
      if (plan.provisional && next.point !== context.point) beforeProvisional ??= context.point;
      const moved = next.point !== context.point;
      context = next;
      if (moved) stops.push({ context, beforeProvisional });
      if (!moved) break;
    }
  }
  return settled(stops, context, measure);
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
  const { summarizerMs, summarizerCalls, failure, broken } = end.report;
  const report = {
    ...chosen.context.report,
    summarizerMs,
    summarizerCalls,
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
  return { call, point, projection, tokens: measure.total(projection, point), report: EMPTY_STAGE_REPORT, applied: [] };
}

/** The context after a plan: its point, when kept, with its projection and its part of the report. */
function applyPlan<Call>(
  context: StageContext<Call>,
  stage: Stage<Call>,
  plan: StagePlan,
  measure: PointMeasure,
): StageContext<Call> {
  const spent = addToReport(context.report, {
    summarizerMs: plan.summarizerMs ?? 0,
    summarizerCalls: plan.summarizerCalls ?? 0,
  });
  if (plan.point === context.point) return { ...context, report: addToReport(spent, plan.report ?? {}) };
  const projection = plan.projection ?? measure.project(plan.point);
  const tokens = measure.total(projection, plan.point);
  if (plan.onlyIfSmaller && tokens >= context.tokens) {
    plan.onDiscarded?.();
    return { ...context, report: spent };
  }
  const broken = measure.check?.(stage.name, context, { point: plan.point, projection, tokens }, plan);
  if (broken) return { ...context, report: addToReport(spent, { broken: [broken] }) };
  return {
    ...context,
    point: plan.point,
    projection,
    tokens,
    report: addToReport(spent, plan.report ?? {}),
    applied: [...context.applied, stage],
  };
}

/** A report with a plan's part added: counts summed, decisions appended (a deferred fold once), a failure kept. */
export function addToReport(report: StageReport, part: Partial<StageReport>): StageReport {
  const { masked, recalled } = report;
  const deferred = (part.deferred ?? []).filter(
    (decision) => !report.deferred.some((each) => each.details === decision.details),
  );
  return {
    decisions: part.decisions?.length ? [...report.decisions, ...part.decisions] : report.decisions,
    deferred: deferred.length > 0 ? [...report.deferred, ...deferred] : report.deferred,
    masked: part.masked
      ? { count: masked.count + part.masked.count, tokensFreed: masked.tokensFreed + part.masked.tokensFreed }
      : masked,
    messagesFolded: report.messagesFolded + (part.messagesFolded ?? 0),
    messagesDropped: report.messagesDropped + (part.messagesDropped ?? 0),
    summarizerMs: report.summarizerMs + (part.summarizerMs ?? 0),
    summarizerCalls: report.summarizerCalls + (part.summarizerCalls ?? 0),
    failure: part.failure ?? report.failure,
    quotesRejected: report.quotesRejected + (part.quotesRejected ?? 0),
    restored: report.restored || part.restored === true,
    broken: part.broken?.length ? [...report.broken, ...part.broken] : report.broken,
    recalled: part.recalled
      ? {
          chunks: recalled.chunks + part.recalled.chunks,
          tokens: recalled.tokens + part.recalled.tokens,
          blocksDropped: recalled.blocksDropped + part.recalled.blocksDropped,
          piecesRedacted: recalled.piecesRedacted + part.recalled.piecesRedacted,
        }
      : recalled,
  };
}
