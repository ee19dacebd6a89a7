import { boundedCache } from '../bounded-cache.js';
import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import { canonicalJson } from '../counting/canonical-json.js';
import { hashString } from '../counting/hash.js';
import { SummarizerError } from '../errors.js';
import type { AheadSettings } from '../options/engine-settings.js';
import type { FoldAhead, FoldsAheadStore } from '../persistence/folds-ahead-store.js';
import type { CompressionErrorEvent } from '../reports/events.js';
import type { SessionState } from '../session-state/session-state.js';
import { type FoldPlan, planFoldAhead } from './fold-plans.js';
import type { FoldRunner } from './fold-runner.js';

/** Model calls planned ahead when nothing was measured yet: the summary has the time of two calls to be made. */
const DEFAULT_CALLS_AHEAD = 2;
/** A summary is given this much more than its measured time: the next may take longer. */
const SUMMARY_MARGIN = 1.25;
/** Planned at most this many calls ahead, however slow the summarizer is against the calls. */
const MAX_CALLS_AHEAD = 8;
/** Conversations whose timing and planned fold an engine remembers. */
const REMEMBERED = 1_000;

/** What a conversation's calls told: when the last came, and the time between two calls lately (a moving average). */
interface Pace {
  readonly last: number;
  readonly intervalMs: number | undefined;
}

/**
 * Summaries made ahead of time: a fold that can wait is summarized in the background and made by the first call from
 * a history length at which its summary had the time to be made (as many calls on as a summary takes, measured), so
 * no call waits for the summarizer. A fold can wait while the prompt stays below the hard limit: a finished segment's
 * fold below the threshold, and the budget's above it (the prompt goes on between the threshold and the hard limit
 * for those calls). And when a call leaves the prompt close enough to the threshold that a summary could not be made
 * before the call that crosses it, the fold that call will need is planned then, so it is ready when needed.
 *
 * One fold is pending per conversation, stored beside its records with the length from which it is made (a retry of
 * the same request, or another instance on the store, decides alike: the same request sends the same prompt), and
 * its summary is the fold's own (the fold lease keeps it under the fold's key), so any instance takes it. Nothing
 * sent changes while a summary runs. Summaries of a conversation run one at a time; a failed one is reported to
 * `onError` (`fallback: 'continued'`), and the call that makes the fold runs the summarizer again.
 */
export class FoldsAhead {
  /** The summary running (or queued after it) per conversation: one at a time. */
  private readonly running = boundedCache<string, Promise<void>>(REMEMBERED);
  /** The pending fold per conversation, as this instance last planned or read it. */
  private readonly pending = boundedCache<string, FoldAhead>(REMEMBERED);
  private readonly paces = boundedCache<string, Pace>(REMEMBERED);

  constructor(
    private readonly folds: FoldRunner,
    private readonly store: FoldsAheadStore,
    private readonly settings: AheadSettings,
    private readonly onError: (event: CompressionErrorEvent) => void,
  ) {}

  /** Notes a call of a conversation: the time since its previous call paces how far ahead folds are planned. */
  paced(facts: CallFacts, now = performance.now()): void {
    const pace = this.paces.get(facts.conversationKey);
    const interval = pace ? now - pace.last : undefined;
    const intervalMs =
      interval === undefined
        ? undefined
        : pace?.intervalMs === undefined
          ? interval
          : 0.7 * pace.intervalMs + 0.3 * interval;
    this.paces.set(facts.conversationKey, { last: now, intervalMs });
  }

  /**
   * Model calls a summary takes: the summarizer's measured time, with a margin, over the time between two calls of
   * the conversation.
   */
  callsAhead(conversation: string): number {
    const summaryMs = this.folds.summaryMs;
    const intervalMs = this.paces.get(conversation)?.intervalMs;
    if (summaryMs === undefined || intervalMs === undefined) return DEFAULT_CALLS_AHEAD;
    return Math.min(MAX_CALLS_AHEAD, Math.max(1, Math.ceil((SUMMARY_MARGIN * summaryMs) / Math.max(1, intervalMs))));
  }

  /** The history length from which a fold planned now is made: as many calls on as its summary takes. */
  private readyAt(facts: CallFacts): number {
    const perCall = Math.max(1, Math.round(facts.messages.length / Math.max(1, facts.stepCount)));
    return facts.messages.length + perCall * this.callsAhead(facts.conversationKey);
  }

  /**
   * After a call below the threshold that folded nothing: plans the fold the call that crosses it will need, unless
   * a fold is pending from this point already or the threshold is further than the calls a summary takes.
   */
  async consider(
    facts: CallFacts,
    at: {
      point: CompressionPoint;
      projection: Projection;
      tokens: number;
      stateTokens: number;
      maskable: () => number;
    },
  ): Promise<void> {
    if (this.settings.signal?.aborted) return;
    const plan = planFoldAhead({ facts, ...at, calls: this.callsAhead(facts.conversationKey) });
    if (!plan) return;
    // one fold pending per conversation: planned by this instance, or another on the store
    const planned = await this.planned(facts);
    if (planned && fitsPoint(planned, facts, at.point)) return;
    await this.plan(facts, at.point, plan.cut);
  }

  /**
   * The fold pending for this point, when one is (planned by this instance or another on the store) and still fits
   * the history, and whether it is due: the history reached the length from which it is made.
   */
  async find(
    facts: CallFacts,
    point: CompressionPoint,
    projection: Projection,
  ): Promise<{ cut: number; due: boolean; replaces: boolean } | undefined> {
    const ahead = await this.planned(facts);
    if (!ahead || !fits(ahead, facts, point, projection)) return undefined;
    return { cut: ahead.cut, due: facts.messages.length >= ahead.readyAt, replaces: ahead.replaces === true };
  }

  /** The fold pending for the conversation, as this instance planned or read it, else as the store has it. */
  private async planned(facts: CallFacts): Promise<FoldAhead | undefined> {
    return this.pending.get(facts.conversationKey) ?? (await this.store.find(facts.scope, facts.conversationKey));
  }

  /**
   * Plans a fold of this point to `cut`, made from a later call on, and starts its summary in the background; not
   * while the conversation's summarizer waits (after a failure, or a fold whose state outweighed what it folded).
   * `replaces`: planned in place of a shorter fold that was due but of no use (this one is not replaced in turn).
   */
  async plan(facts: CallFacts, point: CompressionPoint, cut: number, replaces = false): Promise<void> {
    if (await this.folds.backingOff(facts)) return;
    const ahead = { ...foldAhead(facts, point, cut), readyAt: this.readyAt(facts), ...(replaces && { replaces }) };
    this.pending.set(facts.conversationKey, ahead);
    await this.store.save(facts.scope, facts.conversationKey, ahead);
    // the state is fitted to the cap of the call that uses the fold
    this.start(facts, point, { cut, decision: AHEAD_DECISION, stateCap: facts.limits.maxStateTokens });
  }

  /**
   * Starts a summary in the background once this call's prompt went out, after the conversation's running one (one
   * at a time), and hands it to the caller's `waitUntil`.
   */
  private start(facts: CallFacts, point: CompressionPoint, plan: FoldPlan): void {
    if (this.settings.signal?.aborted) return;
    const before = this.running.get(facts.conversationKey) ?? Promise.resolve();
    const work: Promise<void> = before
      .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
      .then(() => this.summarize(facts, point, plan))
      .finally(() => {
        if (this.running.get(facts.conversationKey) === work) this.running.delete(facts.conversationKey);
      });
    this.running.set(facts.conversationKey, work);
    this.settings.waitUntil?.(work);
  }

  /** The summary; its failure reported, nothing thrown. */
  private async summarize(facts: CallFacts, point: CompressionPoint, plan: FoldPlan): Promise<void> {
    const { signal } = this.settings;
    if (signal?.aborted) return;
    try {
      const result = await this.folds.run(facts, point, plan, { signal, ahead: true });
      if (result.failure && !signal?.aborted) this.onError({ error: result.failure, fallback: 'continued' });
    } catch (error) {
      if (!signal?.aborted) {
        this.onError({ error: asReported(error, this.folds.summarizerName), fallback: 'continued' });
      }
    }
  }
}

/** The decision of a fold summarized ahead: never reported (the call that folds reports its own). */
const AHEAD_DECISION: FoldPlan['decision'] = {
  trigger: 'budget',
  scope: { kind: 'messages', from: 0, to: 0 },
  confidence: 1,
  details: 'summarized ahead of time',
};

/** Whether a planned fold starts at this point: the same fold point, messages before it and state. */
function fitsPoint(ahead: FoldAhead, facts: CallFacts, point: CompressionPoint): boolean {
  return (
    ahead.from === point.coveredCount &&
    facts.prefixHashes[ahead.from] === ahead.fromHash &&
    ahead.state === stateHash(point.state)
  );
}

/** Whether a planned fold still fits the history at this point: its start, its messages, a cut the call may take. */
function fits(ahead: FoldAhead, facts: CallFacts, point: CompressionPoint, projection: Projection): boolean {
  return (
    fitsPoint(ahead, facts, point) &&
    ahead.cut > ahead.from &&
    ahead.cut < facts.messages.length &&
    facts.prefixHashes[ahead.cut] === ahead.cutHash &&
    projection.layout.isCut(ahead.cut)
  );
}

function foldAhead(facts: CallFacts, point: CompressionPoint, cut: number): Omit<FoldAhead, 'readyAt'> {
  const from = point.coveredCount;
  return {
    from,
    fromHash: facts.prefixHashes[from] as number,
    cut,
    cutHash: facts.prefixHashes[cut] as number,
    state: stateHash(point.state),
  };
}

/** The state a fold extends, by its content (stores return copies). */
function stateHash(state: SessionState | undefined): string {
  return state ? hashString(canonicalJson(state)) : '-';
}

function asReported(error: unknown, summarizer: string): CompressionErrorEvent['error'] {
  return SummarizerError.isInstance(error) ? error : new SummarizerError({ summarizer, reason: 'threw', cause: error });
}
