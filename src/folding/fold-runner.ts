import { LRUCache } from 'lru-cache';
import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import { canonicalJson } from '../counting/canonical-json.js';
import { hashString } from '../counting/hash.js';
import type { MessageMeter } from '../counting/message-meter.js';
import type { EmbeddingCache } from '../embeddings/embedder.js';
import { type EmbedderError, type ProviderOverflowError, SummarizerError } from '../errors.js';
import {
  type FoldLease,
  foldLeaseKeys,
  isLease,
  leaseState,
  newLease,
  readSharedFold,
  sharedFoldValue,
} from '../persistence/fold-lease.js';
import type { StateStore } from '../persistence/state-store.js';
import type { SummarizerRetries } from '../persistence/summarizer-retries.js';
import { addSummarizerUsage, type SummarizerUsage } from '../reports/usage.js';
import { fitState } from '../session-state/fit-state.js';
import { nextToolCalls, withoutEngineFields } from '../session-state/folded-calls.js';
import { nextFiles } from '../session-state/folded-files.js';
import { mergeSimilarQuotes, verifySalience } from '../session-state/salience.js';
import type { SessionState } from '../session-state/session-state.js';
import { appendToTimeline, timelineEntry } from '../session-state/timeline.js';
import { summarizeContinued } from '../summarizers/run-summarizer.js';
import { summarizeInChunks } from '../summarizers/summarize-in-chunks.js';
import type { Summarizer } from '../summarizers/summarizer.js';
import { summarizerWindow } from '../summarizers/summarizer-chunks.js';
import { SummarizerLimits } from '../summarizers/summarizer-limits.js';
import { applyFold, type FoldPlan, messagesToFold } from './fold-plans.js';

/** After a summarizer failure, a conversation waits this many new messages before the summarizer is tried again. */
export const SUMMARIZER_RETRY_AFTER_MESSAGES = 4;

/** What running a fold gave: the new point, or the failure the call falls back from. */
export type FoldResult =
  | {
      readonly point: CompressionPoint;
      readonly summarizerMs: number;
      /** Summarizer calls the fold took (several for a span larger than the summarizer's window; 0 when shared). */
      readonly summarizerCalls: number;
      /** What the summarizer reported of those calls' tokens, when it did. */
      readonly summarizerUsage?: SummarizerUsage | undefined;
      /** Salience quotes of the new state that were not verbatim in the folded messages, dropped. */
      readonly quotesRejected: number;
      /** Made by the offline summarizer: the call could not wait for the summarizer's (see `DecideEffect`). */
      readonly stoodIn?: boolean;
      readonly failure?: undefined;
    }
  | {
      readonly point?: undefined;
      readonly summarizerMs: number;
      readonly summarizerCalls?: undefined;
      readonly failure: SummarizerError;
    };

/** A store where the summaries of folds are kept for other instances, and for how long. */
export interface SharedFolds {
  readonly store: Pick<StateStore, 'get' | 'set'>;
  readonly ttlMs: number;
}

/** A stand-in state's note: the key of the fold it stood in for. */
interface StandIn {
  readonly fold: string;
}

/** Where the note of a stand-in state is kept: beside the folds' results, by the state's content. */
function standInKey(facts: CallFacts, state: SessionState): string {
  return foldLeaseKeys(facts.scope, `stand-in\u0000${hashString(canonicalJson(state))}`).result;
}

/** Folds remembered after they finished, so calls that planned them while they ran (a slow store) reuse them. */
const REMEMBERED_FOLDS = 256;

interface Folded {
  readonly state: SessionState;
  readonly rejected: number;
  /** Summarizer calls made here: 0 for a state another instance made. */
  readonly calls: number;
  /** What the summarizer reported of those calls' tokens (none for a state another instance made). */
  readonly usage?: SummarizerUsage | undefined;
}

/** What a fold runner works with besides its summarizer. */
export interface FoldRunnerParts {
  /** Milliseconds each summarizer call may take. */
  readonly timeoutMs: number;
  /** `summarizerContextWindow`: with it or the summarizer's own window, a span larger than a call takes is summarized in chunks. */
  readonly contextWindow?: number | undefined;
  readonly meter: MessageMeter;
  /** Embeddings for the salience of a state's entries, when an embedder is set. */
  readonly embeddings?: EmbeddingCache | undefined;
  readonly onEmbedderError?: ((error: EmbedderError) => void) | undefined;
  /** Told of a summarizer call its provider rejected as too long, learned from and made again on a smaller chunk. */
  readonly onRejected?: ((error: ProviderOverflowError) => void) | undefined;
  /** The acknowledgement the state pair is sent with, measured with it. */
  readonly acknowledgement?: string | undefined;
  /** With a store shared by several instances: one of them summarizes a fold, the others take its state. */
  readonly lease?: FoldLease | undefined;
  /** Where the waits after a discarded fold are stored, so every instance on the store waits alike. */
  readonly retries?: SummarizerRetries | undefined;
  /**
   * Without a lease, where the summaries made ahead of time are kept under their fold's key, so that another instance
   * on the store makes that fold with the same summary (a lease keeps every fold's summary there).
   */
  readonly shared?: SharedFolds | undefined;
  /**
   * Whether the offline summarizer may stand in for this runner's folds (summaries made ahead of time): only then does
   * a fold look in the store for the summary its state stood in for.
   */
  readonly standIns?: boolean | undefined;
}

/**
 * Runs the summarizer for fold plans: once per fold (the same messages from the same state) even when concurrent
 * calls of one conversation ask for it together or a moment apart (a store that has not written the first call's
 * record yet), so they send the same state; and not again for a conversation whose summarizer just failed until it
 * grew by a few messages.
 */
export class FoldRunner {
  /** Folds running or recently finished, by what determines them; a failed one is forgotten at once. */
  private readonly folds = new LRUCache<string, Promise<Folded>>({ max: REMEMBERED_FOLDS });
  /** Folds whose summary was made (the promise fulfilled). */
  private readonly made = new WeakSet<Promise<Folded>>();
  /** Folds a call has reported the summarizer calls of. */
  private readonly claimed = new WeakSet<Folded>();
  /** Conversations whose summarizer failed, with the message count from which it is tried again. */
  private readonly failures = new LRUCache<string, number>({ max: 1_000 });
  /** Milliseconds each summarizer call may take. */
  private readonly timeoutMs: number;
  /** The summarizer's window, when it has one, with what its provider's rejections taught. */
  private readonly limits: SummarizerLimits;
  /** Milliseconds a fold's summary took lately (a moving average), undefined before the first. */
  private averageMs: number | undefined;

  constructor(
    private readonly summarizer: Summarizer,
    private readonly parts: FoldRunnerParts,
  ) {
    this.timeoutMs = parts.timeoutMs;
    this.limits = new SummarizerLimits(summarizer.name, summarizerWindow(summarizer, parts.contextWindow));
  }

  /**
   * Whether folding waits for this conversation: after a failure of this instance's summarizer, or a fold discarded by
   * any instance sharing the store.
   */
  async backingOff(facts: CallFacts): Promise<boolean> {
    const stored = await this.parts.retries?.find(facts.scope, facts.conversationKey);
    const retryAfter = Math.max(this.failures.get(facts.conversationKey) ?? 0, stored ?? 0);
    return facts.messages.length < retryAfter;
  }

  /**
   * A fold that was not kept (its state outweighed what it folded): like a failure, the conversation waits a few
   * messages before the summarizer runs again, so a summarizer that writes long states is not called on every call.
   * Stored: every instance would make the same state and discard it again, so all of them wait (and send the same
   * prompt meanwhile).
   */
  async discarded(facts: CallFacts): Promise<void> {
    const from = facts.messages.length + SUMMARIZER_RETRY_AFTER_MESSAGES;
    this.failures.set(facts.conversationKey, from);
    await this.parts.retries?.save(facts.scope, facts.conversationKey, from);
  }

  /** The summarizer's name, for its errors. */
  get summarizerName(): string {
    return this.summarizer.name;
  }

  /** Milliseconds a summary took lately (a moving average over this instance's folds), undefined before the first. */
  get summaryMs(): number | undefined {
    return this.averageMs;
  }

  /**
   * Notes in the store that `state` was made by the offline summarizer in place of this fold, whose summary the call
   * could not wait for: the next fold from `state`, on any instance, starts from that summary once it is made (see
   * `fold`).
   */
  async stoodIn(state: SessionState | undefined, facts: CallFacts, point: CompressionPoint, plan: FoldPlan) {
    const shared = this.sharedStore;
    if (!state || !shared) return;
    const value: StandIn = { fold: this.keyOf(facts, point, plan) };
    await shared.store.set(standInKey(facts, state), value, { ttlMs: shared.ttlMs });
  }

  /**
   * The summary made for the span a stand-in state covers (the same messages from the same state), when the store
   * has it, with the summarizer calls and usage it took when this instance made it and no call reported them yet.
   */
  private async madeInstead(facts: CallFacts, state: SessionState | undefined): Promise<Folded | undefined> {
    const shared = this.sharedStore;
    if (!state || !shared || !this.parts.standIns) return undefined;
    const noted = await shared.store.get(standInKey(facts, state));
    const fold = typeof noted === 'object' && noted !== null ? (noted as Partial<StandIn>).fold : undefined;
    if (typeof fold !== 'string') return undefined;
    const stored = readSharedFold(await shared.store.get(foldLeaseKeys(facts.scope, fold).result));
    if (!stored) return undefined;
    // reported once, by the fold that extends it, when this instance made it
    const running = this.folds.get(fold);
    const made = running && this.made.has(running) ? await running : undefined;
    if (!made || this.claimed.has(made)) return { ...stored, calls: 0 };
    this.claimed.add(made);
    return { ...stored, calls: made.calls, usage: made.usage };
  }

  /** Where folds made ahead of time are kept for every instance (the lease's store, else the shared one). */
  private get sharedStore(): SharedFolds | undefined {
    const { lease, shared } = this.parts;
    return lease ? { store: lease.store, ttlMs: lease.resultTtlMs } : shared;
  }

  /**
   * What determines a fold: the folded messages (a prefix hash pair) from the state they extend (its content, in any
   * key order: stores return copies, read through the schema), by a summarizer of this name; not the state's cap,
   * which moves with the calibration: each call fits the state to its own.
   */
  private keyOf(facts: CallFacts, point: CompressionPoint, plan: FoldPlan): string {
    return [
      facts.namespace,
      facts.prefixHashes[point.coveredCount],
      facts.prefixHashes[plan.cut],
      point.state ? hashString(canonicalJson(point.state)) : '-',
      this.summarizer.name,
      facts.retrievalToolName ?? '-',
      facts.redactionToolName,
    ].join('\u0000');
  }

  /**
   * Folds the messages of a plan into the state; a summarizer failure is returned, any other error thrown. `signal`
   * aborts the summarizer calls (a fold made ahead of time, when the engine is closed).
   */
  async run(
    facts: CallFacts,
    point: CompressionPoint,
    plan: FoldPlan,
    { signal, ahead = false }: { signal?: AbortSignal | undefined; ahead?: boolean } = {},
  ): Promise<FoldResult> {
    const started = performance.now();
    const key = this.keyOf(facts, point, plan);
    let pending = this.folds.get(key);
    if (!pending) {
      const running = this.parts.lease
        ? this.foldOnce(this.parts.lease, facts, point, plan, key, signal)
        : this.foldShared(facts, point, plan, key, { signal, ahead });
      this.folds.set(key, running);
      running.then(
        () => this.made.add(running),
        () => this.folds.delete(key),
      );
      pending = running;
    }
    try {
      const folded = await pending;
      const { state, rejected } = folded;
      // the summarizer calls are reported by the first call that uses the fold: the one that made it, or the first
      // after a summary made ahead of time (never the background run itself); one that finds it used made none
      const claims = !ahead && !this.claimed.has(folded);
      if (claims) this.claimed.add(folded);
      this.failures.delete(facts.conversationKey);
      const fitted = fitState(state, plan.stateCap, this.parts.meter, this.parts.acknowledgement);
      return {
        point: applyFold(point, plan.cut, fitted),
        summarizerMs: performance.now() - started,
        summarizerCalls: claims ? folded.calls : 0,
        summarizerUsage: claims ? folded.usage : undefined,
        quotesRejected: rejected,
      };
    } catch (error) {
      if (!SummarizerError.isInstance(error)) throw error;
      // another instance is summarizing: its state is found by a later call, which need not wait a few messages
      if (error.reason === 'held-elsewhere') return { failure: error, summarizerMs: performance.now() - started };
      // this instance only: another one sharing the store may have a summarizer that works, and tries it
      this.failures.set(facts.conversationKey, facts.messages.length + SUMMARIZER_RETRY_AFTER_MESSAGES);
      return { failure: error, summarizerMs: performance.now() - started };
    }
  }

  /**
   * The fold, made by one of the instances sharing the store: the state another one stored for it, else this one's
   * once it holds the fold's lease, else (another holds it) that one's state when it arrives within the wait. A store
   * that cannot be read or written makes the fold here: availability first, at the price of a summary made twice.
   */
  private async foldOnce(
    lease: FoldLease,
    facts: CallFacts,
    point: CompressionPoint,
    plan: FoldPlan,
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<Folded> {
    const { store } = lease;
    const keys = foldLeaseKeys(facts.scope, key);
    const deadline = performance.now() + lease.waitMs;
    const mine = newLease(lease.leaseMs);
    for (;;) {
      const stored = readSharedFold(await store.get(keys.result));
      if (stored) return { ...stored, calls: 0 };
      // reads while another holds the lease; a write only when it looks free
      const held = await store.get(keys.lease);
      const state = leaseState(held);
      if (state === 'unread') return this.fold(facts, point, plan, undefined, signal);
      // a lease past its time (a store that keeps no TTL, a crashed holder) is removed, then taken like a free one
      if (state === 'free' && held !== undefined) await store.delete(keys.lease);
      if (state === 'free' && (await store.setIfAbsent(keys.lease, mine, { ttlMs: lease.leaseMs }))) break;
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new SummarizerError({
          summarizer: this.summarizer.name,
          reason: 'held-elsewhere',
          cause: new Error(`its state did not arrive within ${lease.waitMs} ms`),
        });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(lease.pollMs, left)));
    }
    try {
      // the holder before may have stored its result just before its lease ended
      const stored = readSharedFold(await store.get(keys.result));
      if (stored) return { ...stored, calls: 0 };
      // a fold in chunks holds the lease for each of its calls: renewed (while still this one's) before the next
      const renew = async () => {
        if (isLease(await store.get(keys.lease), mine))
          await store.set(keys.lease, { ...mine, until: Date.now() + lease.leaseMs }, { ttlMs: lease.leaseMs });
      };
      const folded = await this.fold(facts, point, plan, renew, signal);
      await store.set(keys.result, sharedFoldValue(folded), { ttlMs: lease.resultTtlMs });
      return folded;
    } finally {
      // given up once the result is stored (or the fold failed, so that another may try): only if still this one's
      if (isLease(await store.get(keys.lease), mine)) await store.delete(keys.lease);
    }
  }

  /**
   * Without a lease: the summary made ahead of time for this fold by any instance on the store, else the fold made
   * here (and kept for the others when it is made ahead of time).
   */
  private async foldShared(
    facts: CallFacts,
    point: CompressionPoint,
    plan: FoldPlan,
    key: string,
    { signal, ahead }: { signal: AbortSignal | undefined; ahead: boolean },
  ): Promise<Folded> {
    const { shared } = this.parts;
    if (!shared) return this.fold(facts, point, plan, undefined, signal);
    const keys = foldLeaseKeys(facts.scope, key);
    const stored = readSharedFold(await shared.store.get(keys.result));
    if (stored) return { ...stored, calls: 0 };
    const folded = await this.fold(facts, point, plan, undefined, signal);
    if (ahead) await shared.store.set(keys.result, sharedFoldValue(folded), { ttlMs: shared.ttlMs });
    return folded;
  }

  private async fold(
    facts: CallFacts,
    point: CompressionPoint,
    plan: FoldPlan,
    beforeCall?: () => Promise<void>,
    signal?: AbortSignal,
  ): Promise<Folded> {
    const started = performance.now();
    const folded = messagesToFold(facts, point, plan.cut, this.parts.meter);
    // a state the offline summarizer made in place of a summary that was not ready is replaced, as what this fold
    // extends, by that summary once made: it covers the same messages (the prompt changes with this fold anyway)
    const instead = await this.madeInstead(facts, point.state);
    const base = instead?.state ?? point.state;
    // copied by runSummarizer: a summarizer may build its answer in `previous`
    const previous = base && withoutEngineFields(base);
    // the previous call's cached prompt continued, when the summarizer does that and the engine has one to offer (a
    // summary made ahead of time too: it runs beside the call, whose own prompt may not be cached yet); a summary it
    // could not make that way is made as a separate request
    const continuation = this.summarizer.continuesPrompts ? facts.continuation?.(point, plan.cut) : undefined;
    const continued =
      continuation &&
      (await summarizeContinued(this.summarizer, {
        messages: folded,
        previous,
        continuation,
        timeoutMs: this.timeoutMs,
        signal,
      }));
    // the timeline and the folded calls are the engine's: summarizers neither see nor write them
    const chunked =
      continued?.state === undefined
        ? await summarizeInChunks(this.summarizer, {
            messages: folded,
            previous,
            timeoutMs: this.timeoutMs,
            limits: this.limits,
            meter: this.parts.meter,
            beforeCall: continued ? undefined : beforeCall,
            onRejected: this.parts.onRejected,
            signal,
          })
        : undefined;
    const summarized = (chunked?.state ?? continued?.state) as SessionState;
    const calls = (chunked?.calls ?? 0) + (continued?.calls ?? 0) + (instead?.calls ?? 0);
    const usage = addSummarizerUsage(addSummarizerUsage(chunked?.usage, continued?.usage), instead?.usage);
    const took = performance.now() - started;
    this.averageMs = this.averageMs === undefined ? took : 0.7 * this.averageMs + 0.3 * took;
    // a summarizer's own timeline or call list is not taken: those are the engine's
    const { state, rejected } = verifySalience(withoutEngineFields(summarized), base, folded);
    const merged = await mergeSimilarQuotes(state, this.parts.embeddings, this.parts.onEmbedderError ?? ignoreError);
    const timeline = appendToTimeline(
      point.state?.timeline,
      timelineEntry({ messages: facts.messages, span: folded, from: point.coveredCount, to: plan.cut }),
    );
    // with the retrieval tool in the call, the folded calls are listed by id: the model can ask for their results
    const toolCalls = nextToolCalls(point.state?.toolCalls, folded, facts);
    // the folded files and images are named: the model knows they were there
    const files = nextFiles(point.state?.files, folded, point.coveredCount);
    // fitted to each call's cap when it is used (see `run`): a cap that moved with the calibration since reuses it
    const engineFields = { timeline, ...(toolCalls ? { toolCalls } : {}), ...(files ? { files } : {}) };
    return { state: { ...merged, ...engineFields }, rejected, calls, usage };
  }
}

function ignoreError(): void {}
