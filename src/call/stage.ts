import type { BrokenPromise, SummarizerError } from '../errors.js';
import type { CompressionDecision } from '../reports/decisions.js';
import { addSummarizerUsage, type SummarizerUsage } from '../reports/usage.js';
import type { CompressionPoint } from './compression-point.js';
import type { Projection } from './projection.js';

/**
 * The stage contract: what a stage of a call sees (where the call stands), what it returns (a plan: a point and its
 * part of the report), and the report the stages add up. The loop that runs the stages is the engine's.
 */

/** A promise a candidate prompt would break, and where. */
export interface PromiseBreak {
  readonly promise: BrokenPromise;
  readonly detail: string;
  /** The stage whose plan it was; undefined for the finished prompt. */
  readonly stage?: string;
}

/** What the stages of a call did so far, in the call's report. */
export interface StageReport {
  readonly decisions: readonly CompressionDecision[];
  /** Folds that would have paid but were put off (the work after them still quotes what they would hide). */
  readonly deferred: readonly CompressionDecision[];
  readonly masked: { readonly count: number; readonly tokensFreed: number };
  readonly messagesFolded: number;
  readonly messagesDropped: number;
  /** Folds made on request or for the budget (the forced fold and the budget's), besides the semantic ones. */
  readonly budgetFolds: number;
  readonly summarizerMs: number;
  /** Summarizer calls made (a fold larger than the summarizer's window takes several). */
  readonly summarizerCalls: number;
  /** What the summarizer reported of those calls' tokens, summed. */
  readonly summarizerUsage: SummarizerUsage | undefined;
  readonly failure: SummarizerError | undefined;
  /** Salience quotes a summarizer returned that were not verbatim in the folded messages, dropped. */
  readonly quotesRejected: number;
  /** An earlier call's provisional drop was undone: its messages are sent again (a change of the prompt). */
  readonly restored: boolean;
  /** A recall block was chosen for the latest user message (possibly empty: nothing worth quoting). */
  readonly recallChosen: boolean;
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
  budgetFolds: 0,
  summarizerMs: 0,
  summarizerCalls: 0,
  summarizerUsage: undefined,
  failure: undefined,
  quotesRejected: 0,
  restored: false,
  recallChosen: false,
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
}

/** What a stage asks for: a new point (or the same one, to report only) and what it adds to the report. */
export interface StagePlan {
  readonly point: CompressionPoint;
  /** The projection at `point`, when the stage knows it already (the loop projects `point` otherwise). */
  readonly projection?: Projection;
  /** Kept only when the prompt at `point` is smaller than now. */
  readonly onlyIfSmaller?: boolean;
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
  /** What the summarizer reported of those calls' tokens, counted whether the plan is kept or not. */
  readonly summarizerUsage?: SummarizerUsage | undefined;
}

/**
 * A stage's plan as it is made: at once, or step by step when the stage needs what only the loop may do for it (an
 * effect: summarize, read or write the store): each effect is yielded, the loop runs it and resumes the stage with
 * its result, and the plan is what the stage returns last.
 */
export type Planning<Effect> =
  | StagePlan
  | undefined
  | Promise<StagePlan | undefined>
  | AsyncGenerator<Effect, StagePlan | undefined, unknown>;

/**
 * One step of the pipeline: plans from where the call stands, or returns nothing when it has nothing to do. A stage
 * never calls a summarizer or a store itself: it asks for them as effects (see `Planning`).
 */
export interface Stage<Call, Effect = never> {
  readonly name: string;
  /** How many times in a row the stage may run while its plans move the point (1 when absent). */
  readonly rounds?: number;
  plan(context: StageContext<Call>): Planning<Effect>;
  /**
   * When the stage looks again later in the same call: what another stage did since may change what it would plan (a
   * fold for the budget leaves segments below the threshold; masking is weighed where the call ends after a fold). A
   * stage is listed once; its second looks are declared here and scheduled by the loop (see `scheduled`).
   */
  readonly again?: readonly Again<Call, Effect>[];
}

/** Where the stages end: a second look `after` it comes once every stage (and every other second look) ran. */
export const AT_THE_END = 'the end';

/** A stage's second look: after which stage, on what condition, and with which plan when it is not the stage's own. */
export interface Again<Call, Effect = never> {
  /** The name of the stage after whose rounds it looks again, or `AT_THE_END`. */
  readonly after: string;
  /** Whether it looks (asked before each round): what happened since makes its plan worth asking for. */
  when(context: StageContext<Call>): boolean;
  /** The plan of the second look, when it weighs otherwise than the first (the stage's own when absent). */
  plan?(context: StageContext<Call>): Planning<Effect>;
}

/**
 * The stages as the loop runs them: each in its order, each second look right after the stage it follows (in the
 * order the stages are listed), and those `AT_THE_END` last. A second look carries the name of its stage and of the
 * stage it follows, so a promise it breaks names both.
 */
export function scheduled<Call, Effect>(stages: readonly Stage<Call, Effect>[]): Stage<Call, Effect>[] {
  const looksAfter = (after: string): Stage<Call, Effect>[] =>
    stages.flatMap((stage) =>
      (stage.again ?? [])
        .filter((again) => again.after === after)
        .map((again) => {
          const plan = again.plan ?? stage.plan;
          return {
            name: `${stage.name} (again, after ${after})`,
            ...(stage.rounds !== undefined && { rounds: stage.rounds }),
            plan: (context: StageContext<Call>) => (again.when(context) ? plan(context) : undefined),
          };
        }),
    );
  return [...stages.flatMap((stage) => [stage, ...looksAfter(stage.name)]), ...looksAfter(AT_THE_END)];
}

/** A point with what the model sees there and its tokens. */
export interface PointAt {
  readonly point: CompressionPoint;
  readonly projection: Projection;
  readonly tokens: number;
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
    budgetFolds: report.budgetFolds + (part.budgetFolds ?? 0),
    summarizerMs: report.summarizerMs + (part.summarizerMs ?? 0),
    summarizerCalls: report.summarizerCalls + (part.summarizerCalls ?? 0),
    summarizerUsage: addSummarizerUsage(report.summarizerUsage, part.summarizerUsage),
    failure: part.failure ?? report.failure,
    quotesRejected: report.quotesRejected + (part.quotesRejected ?? 0),
    restored: report.restored || part.restored === true,
    recallChosen: report.recallChosen || part.recallChosen === true,
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
