import type { FoldCall } from './compress-call.js';
import { SummarizerError } from './errors.js';
import { fitState } from './fit-state.js';
import type { MessageMeter } from './message-meter.js';
import {
  applyResultEdits,
  type MaskingOptions,
  type MaskingStep,
  planMaskingStep,
  resultEdits,
} from './observation-masking.js';
import { type CompressionOptions, DEFAULT_CACHE_PRICING } from './options.js';
import { EMPTY_SESSION_STATE, type SessionState } from './session-state.js';
import type { Message } from './transcript.js';

/**
 * A masking step below the budget threshold must promise savings this many times its cache-break cost: the calls
 * still to come are a guess (as many as were made so far), and a wrong guess costs more than a missed saving.
 */
export const MASKING_PAYOFF_MARGIN = 2;

/** After a summarizer failure, a conversation waits this many new messages before the summarizer is tried again. */
export const SUMMARIZER_RETRY_AFTER_MESSAGES = 4;

/** What the compression steps need from the engine that runs them. */
export interface StepContext {
  readonly options: CompressionOptions;
  readonly meter: MessageMeter;
  readonly masking: Required<MaskingOptions> | undefined;
  readonly failures: Map<string, number>;
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
  const { read, write } = { ...DEFAULT_CACHE_PRICING, ...engine.options.cachePricing };
  const calls = call.messages.filter((message) => message.role === 'assistant').length;
  const expectedCalls = Math.min(50, Math.max(4, calls));
  const economics = (step: MaskingStep) => {
    let after = 0;
    for (let index = step.firstMessageIndex; index < call.view.tokens.length; index++) {
      after += call.view.tokens[index] as number;
    }
    const rewritten = Math.max(0, after - step.freed);
    return { rewritten, savings: read * step.freed * expectedCalls, breakCost: (write - read) * rewritten };
  };
  const pays = (step: MaskingStep) => {
    const { savings, breakCost } = economics(step);
    return step.freed >= masking.clearAtLeast && savings >= MASKING_PAYOFF_MARGIN * breakCost;
  };
  const step = planMaskingStep({
    sites: call.sites,
    covered: call.coveredCount,
    hidden,
    maskable: call.maskable,
    keepRecent: masking.keepRecent,
    meter: engine.meter,
    worthPlanning: (bound) => pressure || pays(bound),
  });
  if (step.keys.length === 0 || (!pressure && !pays(step))) return;
  const { rewritten, savings, breakCost } = economics(step);
  for (const key of step.keys) call.masked.add(key);
  call.newlyMasked = { count: step.keys.length, tokensFreed: step.freed };
  engine.rebuild(call);
  await engine.save(call);
  const arithmetic = `frees ${step.freed} tokens; expected savings ${Math.round(savings)} (${read}x over ~${expectedCalls} calls) vs. a one-time cache rewrite costing ${Math.round(breakCost)} (${rewritten} tokens at +${Math.round((write - read) * 100) / 100}x)`;
  call.decisions.push({
    trigger: force ? 'forced' : pressure ? 'budget' : 'turns',
    scope: { kind: 'observations', toolCallIds: step.keys.map((key) => call.siteByKey.get(key)?.callId ?? key) },
    confidence: 1,
    details: `masked ${step.keys.length} tool results older than the ${masking.keepRecent} most recent: ${arithmetic}`,
  });
}

/** Folds the oldest kept messages into the session state, down to the target share of the budget. */
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
    const folding = applyResultEdits(call.messages.slice(from, cut), redactedOnly);
    const state = await engine.fold(key, folding, call.state);
    call.summarizerMs = performance.now() - started;
    call.state = fitState(state, limits.maxStateTokens, engine.meter);
    call.coveredCount = cut;
    engine.rebuild(call);
    await engine.save(call);
    engine.failures.delete(call.conversation);
    call.messagesFolded = cut - from;
    call.decisions.push({
      trigger: force ? 'forced' : 'budget',
      scope: { kind: 'messages', from, to: cut },
      confidence: 1,
      details: force
        ? `folded ${cut - from} messages on request`
        : `prompt at ${limits.percent(tokensBefore)} of the budget passed the ${limits.percent(limits.compressAt)} threshold; folded ${cut - from} messages into the session state`,
    });
  } catch (error) {
    call.summarizerMs = performance.now() - started;
    if (!SummarizerError.isInstance(error)) throw error;
    engine.failures.set(call.conversation, call.messages.length + SUMMARIZER_RETRY_AFTER_MESSAGES);
    if (engine.failures.size > 1_000) engine.failures.delete(engine.failures.keys().next().value as string);
    call.failure = error;
  }
}

/** The last resort over the hard limit: the oldest whole turns leave without a summary, down to the target. */
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
