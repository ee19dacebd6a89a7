import type { MessageMeter } from '../counting/message-meter.js';
import { SummarizerError } from '../errors.js';
import { type CompressionOptions, DEFAULT_CACHE_PRICING } from '../options/options.js';
import { fitState } from '../session-state/fit-state.js';
import { EMPTY_SESSION_STATE, type SessionState } from '../session-state/session-state.js';
import {
  applyResultEdits,
  type MaskingOptions,
  type MaskingStep,
  planMaskingStep,
  resultEdits,
} from '../strategies/observation-masking.js';
import type { Message } from '../transcript/transcript.js';
import type { CompressionDecision } from '../triggers/decisions.js';
import {
  DEFAULT_SEMANTIC_TRIGGER_OPTIONS,
  findBoundaries,
  type SemanticTriggerOptions,
} from '../triggers/semantic-triggers.js';
import {
  findStaleObservations,
  findSupersededObservations,
  type StalenessOptions,
  type StaleObservation,
} from '../triggers/staleness.js';
import type { FoldCall } from './compress-call.js';

/**
 * A masking step below the budget threshold must promise savings this many times its cache-break cost: the calls
 * still to come are a guess (as many as were made so far), and a wrong guess costs more than a missed saving.
 */
export const MASKING_PAYOFF_MARGIN = 2;

/** After a summarizer failure, a conversation waits this many new messages before the summarizer is tried again. */
export const SUMMARIZER_RETRY_AFTER_MESSAGES = 4;

/**
 * The cache arithmetic of a compression below the budget threshold: freeing `freed` tokens saves a cache read of them
 * on each expected coming call (as many as were made so far, 4 to 50), and costs one cache write instead of a read
 * for the `rewritten` tokens after the change. It pays when the savings are MASKING_PAYOFF_MARGIN times the cost.
 */
export function cacheEconomics(engine: StepContext, call: FoldCall) {
  const { read, write } = { ...DEFAULT_CACHE_PRICING, ...engine.options.cachePricing };
  const calls = call.steps.length || call.messages.filter((message) => message.role === 'assistant').length;
  const expectedCalls = Math.min(50, Math.max(4, calls));
  const weigh = (freed: number, rewritten: number) => {
    const savings = read * freed * expectedCalls;
    const breakCost = (write - read) * Math.max(0, rewritten);
    return { savings, breakCost, pays: savings >= MASKING_PAYOFF_MARGIN * breakCost };
  };
  return { read, write, expectedCalls, weigh };
}

/** What the compression steps need from the engine that runs them. */
export interface StepContext {
  readonly options: CompressionOptions;
  readonly meter: MessageMeter;
  readonly masking: Required<MaskingOptions> | undefined;
  readonly staleness: StalenessOptions | undefined;
  readonly semantic: SemanticTriggerOptions | undefined;
  readonly failures: Map<string, number>;
  /** Memo of placeholder token counts, shared across calls. */
  readonly placeholderTokens: Map<string, number>;
  rebuild(call: FoldCall): void;
  save(call: FoldCall): Promise<void>;
  total(call: FoldCall): number;
  stateTokens(state: SessionState | undefined): number;
  fold(key: string, messages: readonly Message[], previous: SessionState | undefined): Promise<SessionState>;
}

/**
 * One batch of observation masking. Under budget pressure it clears every candidate; otherwise only when it frees
 * at least `clearAtLeast` tokens and the expected cache-read savings over the coming calls exceed the one-time
 * cost of rewriting the prompt after the first masked result.
 */
export async function maskOld(engine: StepContext, call: FoldCall, pressure: boolean, force: boolean): Promise<void> {
  const masking = engine.masking as Required<MaskingOptions>;
  const hidden = new Set([...call.masked, ...call.redactions.keys()]);
  const { read, write, expectedCalls, weigh } = cacheEconomics(engine, call);
  const economics = (step: MaskingStep) => {
    let after = 0;
    for (let index = step.firstMessageIndex; index < call.view.tokens.length; index++) {
      after += call.view.tokens[index] as number;
    }
    const rewritten = Math.max(0, after - step.freed);
    return { rewritten, ...weigh(step.freed, rewritten) };
  };
  const pays = (step: MaskingStep) => step.freed >= masking.clearAtLeast && economics(step).pays;
  // staleness adds results a step may mask even among the newest (a read superseded by an edit), with a reason
  const stale = new Map<string, string>();
  const addStale = (observations: readonly StaleObservation[]) => {
    for (const observation of observations)
      if (!hidden.has(observation.key)) stale.set(observation.key, observation.reason);
  };
  if (engine.staleness)
    addStale(findSupersededObservations({ steps: call.steps, sites: call.sites, from: call.coveredCount }));
  const plan = () =>
    planMaskingStep({
      sites: call.sites,
      covered: call.coveredCount,
      hidden,
      maskable: stale.size > 0 ? new Set([...call.maskable, ...stale.keys()]) : call.maskable,
      keepRecent: masking.keepRecent,
      meter: engine.meter,
      reasons: stale,
      worthPlanning: (bound) => pressure || pays(bound),
      placeholderTokens: engine.placeholderTokens,
    });
  let step = plan();
  if (step.keys.length === 0 || (!pressure && !pays(step))) return;
  if (engine.staleness) {
    // a step happens anyway: the scored staleness (costlier) may add results to it
    const before = stale.size;
    addStale(
      findStaleObservations({
        messages: call.messages,
        steps: call.steps,
        sites: call.sites,
        from: call.coveredCount,
        options: engine.staleness,
      }),
    );
    if (stale.size > before) {
      const wider = plan();
      if (pressure || pays(wider)) step = wider;
    }
  }
  const { rewritten, savings, breakCost } = economics(step);
  for (const key of step.keys) {
    call.masked.add(key);
    const reason = stale.get(key);
    if (reason !== undefined) call.maskReasons.set(key, reason);
  }
  if (step.keys.some((key) => stale.has(key))) call.staleThrough = call.messages.length;
  call.newlyMasked = { count: step.keys.length, tokensFreed: step.freed };
  engine.rebuild(call);
  await engine.save(call);
  const arithmetic = `frees ${step.freed} tokens; expected savings ${Math.round(savings)} (${read}x over ~${expectedCalls} calls) vs. a one-time cache rewrite costing ${Math.round(breakCost)} (${rewritten} tokens at +${Math.round((write - read) * 100) / 100}x)`;
  const idsOf = (keys: readonly string[]) => keys.map((key) => call.siteByKey.get(key)?.callId ?? key);
  const staleKeys = step.keys.filter((key) => stale.has(key));
  const oldKeys = step.keys.filter((key) => !stale.has(key));
  if (staleKeys.length > 0) {
    const reasons = staleKeys.slice(0, 3).map((key) => `${call.siteByKey.get(key)?.callId}: ${stale.get(key)}`);
    call.decisions.push({
      trigger: 'staleness',
      scope: { kind: 'observations', toolCallIds: idsOf(staleKeys) },
      confidence: 0.8,
      details: `masked ${staleKeys.length} stale tool results (${reasons.join('; ')}${staleKeys.length > 3 ? '; ...' : ''}); ${arithmetic}`,
    });
  }
  if (oldKeys.length > 0) {
    call.decisions.push({
      trigger: force ? 'forced' : pressure ? 'budget' : 'turns',
      scope: { kind: 'observations', toolCallIds: idsOf(oldKeys) },
      confidence: 1,
      details: `masked ${oldKeys.length} tool results older than the ${masking.keepRecent} most recent: ${arithmetic}`,
    });
  }
}

export async function foldOldest(
  engine: StepContext,
  call: FoldCall,
  force: boolean,
  tokensBefore: number,
): Promise<void> {
  const { limits, layout } = call;
  const from = call.coveredCount;
  const growth = Math.min(limits.budget * 0.1, layout.total(from, 0) * 0.15);
  const stateTokens = engine.stateTokens(call.state) + growth;
  const cut = layout.chooseCut({ covered: from, stateTokens, targetTokens: limits.compressTo, force });
  if (cut === undefined) return;
  await foldTo(engine, call, cut, {
    trigger: force ? 'forced' : 'budget',
    scope: { kind: 'messages', from, to: cut },
    confidence: 1,
    details: force
      ? `folded ${cut - from} messages on request`
      : `prompt at ${limits.percent(tokensBefore)} of the budget passed the ${limits.percent(limits.compressAt)} threshold; folded ${cut - from} messages into the session state`,
  });
}

/**
 * A semantic fold below the budget threshold: the deepest finished segment (see `findBoundaries`) whose fold frees at
 * least `minTokens` and whose expected cache-read savings pay for the one-time rewrite of the rest of the prompt.
 */
export async function foldFinishedSegment(engine: StepContext, call: FoldCall): Promise<void> {
  const options = engine.semantic as SemanticTriggerOptions;
  const { weigh } = cacheEconomics(engine, call);
  const { layout, limits } = call;
  const from = call.coveredCount;
  const now = engine.total(call);
  // nothing to fold unless a finished segment beyond the fold point holds at least minTokens
  const minTokens = options.minTokens ?? DEFAULT_SEMANTIC_TRIGGER_OPTIONS.minTokens;
  const lastStart = call.steps.at(-1)?.messageIndex ?? 0;
  if (layout.total(from, 0) - layout.total(lastStart, 0) < minTokens) return;
  const boundaries = findBoundaries(call.messages, call.steps, options).filter(
    (boundary) => boundary.messageIndex > from && layout.isCut(boundary.messageIndex),
  );
  for (const boundary of boundaries.reverse()) {
    const folded = layout.total(from, 0) - layout.total(boundary.messageIndex, 0);
    const growth = Math.min(limits.budget * 0.1, folded * 0.15);
    const after = layout.total(boundary.messageIndex, engine.stateTokens(call.state) + growth);
    const freed = now - after;
    const { savings, breakCost, pays } = weigh(freed, after - layout.fixedTokens);
    if (freed < minTokens || !pays) continue;
    await foldTo(engine, call, boundary.messageIndex, {
      trigger: boundary.trigger,
      scope: { kind: 'messages', from, to: boundary.messageIndex },
      confidence: boundary.confidence,
      details: `${boundary.details}; folded the finished segment (${boundary.messageIndex - from} messages), freeing about ${Math.round(freed)} tokens; expected savings ${Math.round(savings)} vs. a one-time cache rewrite costing ${Math.round(breakCost)}`,
    });
    return;
  }
}

/** Folds the messages from the current fold point up to `cut` into the session state. */
async function foldTo(engine: StepContext, call: FoldCall, cut: number, decision: CompressionDecision): Promise<void> {
  const from = call.coveredCount;
  const started = performance.now();
  try {
    const key = `${call.namespace}\u0000${call.prefixHashes[cut]}`;
    const redactedOnly = resultEdits({
      sites: call.sites,
      masked: new Set(),
      redactions: call.redactions,
      keepRecent: 0,
      meter: engine.meter,
    });
    // the summarizer sees what the model discarded with the redaction tool as redacted, the rest in full
    const folding = applyResultEdits(call.messages, redactedOnly, from).slice(from, cut);
    const state = await engine.fold(key, folding, call.state);
    call.summarizerMs = performance.now() - started;
    call.state = fitState(state, call.limits.maxStateTokens, engine.meter);
    call.coveredCount = cut;
    engine.rebuild(call);
    await engine.save(call);
    engine.failures.delete(call.conversation);
    call.messagesFolded = cut - from;
    call.decisions.push(decision);
  } catch (error) {
    call.summarizerMs = performance.now() - started;
    if (!SummarizerError.isInstance(error)) throw error;
    engine.failures.set(call.conversation, call.messages.length + SUMMARIZER_RETRY_AFTER_MESSAGES);
    if (engine.failures.size > 1_000) engine.failures.delete(engine.failures.keys().next().value as string);
    call.failure = error;
  }
}

export async function dropOldest(engine: StepContext, call: FoldCall): Promise<void> {
  const from = call.coveredCount;
  const state = call.state ?? EMPTY_SESSION_STATE;
  const stateTokens = engine.stateTokens(state) + 64;
  const cut = call.layout.chooseCut({ covered: from, stateTokens, targetTokens: call.limits.compressTo });
  if (cut === undefined) return;
  const dropped = cut - from;
  const note = `(${dropped} earlier messages could not be summarized and were left out.)`;
  call.state = { ...state, conversationSummary: `${state.conversationSummary} ${note}`.trim() };
  call.coveredCount = cut;
  call.droppedCount += dropped;
  engine.rebuild(call);
  await engine.save(call);
  call.messagesDropped = dropped;
  call.decisions.push({
    trigger: 'hard-limit',
    scope: { kind: 'messages', from, to: cut },
    confidence: 1,
    details: `prompt over the hard limit of ${call.limits.percent(call.limits.hardLimit)} of the budget; dropped the oldest ${dropped} messages without a summary`,
  });
}
