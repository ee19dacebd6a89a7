import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { Projection } from '../call/projection.js';
import { announces } from '../call/stage.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import type { ProviderOverflowError } from '../errors.js';
import { freedUnderPressure } from '../masking/masking-stage.js';
import type { CompressionOptions } from '../options/options.js';
import type { CallReport } from '../reports/events.js';
import type { Message } from '../transcript/transcript.js';
import { withRejection } from './call-report.js';
import { startOf } from './call-start.js';
import type { CompressInput, CompressOutput } from './compress-call.js';
import { type Decided, decide } from './decide.js';
import { type EngineParts, engineParts } from './engine-parts.js';
import { refitDecision } from './fitted-record.js';
import { pairedInput } from './input-checks.js';
import type { ProviderRejection } from './model-limits.js';
import { withoutAwareness } from './read-call.js';

/** A call's outcome with the refit of its stored state reported, when it had one. */
function withRefit(decided: Decided, facts: CallFacts, refitted: boolean): Decided {
  if (!refitted) return decided;
  const decision = refitDecision(facts.limits, decided.point.coveredCount);
  return { ...decided, stateRefitted: true, decisions: [decision, ...decided.decisions] };
}

/**
 * The framework-free engine. One call flows top-down: read (the call's facts, counted) -> load the stored compression
 * point -> decide (the stages, each plan checked against the promises where it is accepted) -> assemble
 * `[system + awareness] [state pair] [kept messages, a recall block before its user message]` and check the finished
 * prompt -> save once -> report. A call with nothing stored that no stage could change (proven from byte lengths, see
 * `UnchangedCalls`) skips the stages and sends the history as it came. Adapters convert their prompt types in and out.
 */
export class CompressionEngine {
  readonly meter: MessageMeter;
  readonly calibration: EngineParts['calibration'];
  private readonly parts: EngineParts;

  constructor(readonly options: CompressionOptions = {}) {
    this.parts = engineParts(options);
    this.meter = this.parts.meter;
    this.calibration = this.parts.calibration;
  }

  /**
   * The budget in tokens for a model: context window minus reserved output. `known` is the window an adapter read
   * from the model itself; the `contextWindow` option wins over it. Throws when the window is unknown.
   */
  budgetFor(modelId: string, known?: number): number {
    return this.parts.models.budgetFor(modelId, known);
  }

  /**
   * Tells the engine that the provider rejected a prompt it compressed. When the provider rejected it for its length,
   * the engine learns from it (see `OverflowLearning`: a ratio, a smaller window, the output counted, or a bound when
   * it names no figure), reports a `ProviderOverflowError` to `onError` and returns it: the adapter then compresses the
   * same input again (`retryOf`), which now fits what was learned, and retries once (`retry: true` on the retry's own
   * rejection, whose error goes to the caller). Any other error returns undefined and is never retried.
   */
  providerRejected(rejection: ProviderRejection): ProviderOverflowError | undefined {
    const named = this.parts.models.rejected(rejection);
    if (named) void this.parts.calibrationStore?.save(rejection.modelKey ?? rejection.modelId);
    return named;
  }

  /**
   * Learns the calibration ratio from the input tokens a provider reported for a prompt we estimated. The estimate may
   * be given as a function, read only when the provider reported a count.
   */
  recordUsage(
    modelKey: string,
    estimatedTokens: number | (() => number),
    reportedInputTokens: number | undefined,
  ): void {
    this.parts.models.used(modelKey, estimatedTokens, reportedInputTokens);
    // a store's failures are reported through onError and never reject (guardedStore)
    void this.parts.calibrationStore?.save(modelKey);
  }

  /**
   * Compresses one call. `onCall` hears of it at once, or, with `deferReport`, when the adapter calls `reportCall`
   * (once the provider took the prompt); a retry's report (`retryOf`) tells of the rejection before it.
   */
  async compress(input: CompressInput): Promise<CompressOutput> {
    const output = await this.compressed(input);
    const report = input.retryOf ? withRejection(output.report, input.retryOf) : output.report;
    if (!input.deferReport) this.parts.reporter.called(report);
    return report === output.report ? output : { ...output, report };
  }

  /**
   * Tells `onCall` of a call compressed with `deferReport`: the adapter calls it once per call, when the provider took
   * the prompt (or failed it for a reason other than its length); a call rejected for length and retried is reported
   * by its retry alone.
   */
  reportCall(report: CallReport): void {
    this.parts.reporter.called(report);
  }

  private async compressed(input: CompressInput): Promise<CompressOutput> {
    const { reader, records, promises, assembly, reporter, services, listeners, memory } = this.parts;
    await this.meter.counter.load?.();
    await this.parts.calibrationStore?.load(input.modelKey ?? input.modelId);
    const facts = reader.read(pairedInput(input, listeners.onError, memory.pairings));
    this.parts.ahead?.paced(facts);
    const loaded = await records.load(facts);
    const { found } = loaded;
    // the awareness block goes out once the conversation's prompt has changed: a record stored says it did
    const unchanged =
      loaded.stored || input.force
        ? undefined
        : this.parts.unchangedCalls.outputIfUnchanged(facts, found !== undefined);
    if (unchanged) return promises.sentAsItCame(facts, found, promises.promises(facts, found), unchanged);
    const choices = await records.recallChoices(facts, loaded.stored);
    const checks = promises.promises(facts, found, choices);
    const { stored, refitted, start, startProjection, tokensBefore } = startOf(facts, loaded, choices, assembly);
    const { decided, output, edits, blocks } = promises.checked(
      facts,
      checks,
      withRefit(
        await decide(services, this.parts, {
          facts,
          start,
          startProjection,
          force: input.force ?? false,
          tokensBefore,
          aware: found !== undefined,
          provisional: stored?.provisional,
          check: (stage, current, next, plan) =>
            promises.rejected(
              checks.plan(stage, promises.candidate(facts, current), promises.candidate(facts, next), {
                // a call that reports a change is a compression (its stored state cut to its cap, a plan before
                // this one): what it rewrites after that is part of it
                announces: refitted || announces(current.report) || announces(plan.report ?? {}),
                restores: plan.restores === true,
              }),
            ),
          unsettled: (start, end) => promises.rejected(checks.unsettled(start, end)),
        }),
        facts,
        refitted,
      ),
    );
    const { point, projection, lasting } = decided;
    reporter.failures(facts, decided, assembly.total(projection, point));

    await records.save(facts, { start, decided, found, stored, sent: output.measures, blocks });

    // before the conversation's first change its prompt goes out as it came, without the awareness block
    const aware = found !== undefined || !asItCame(facts, output.measures, this.meter);
    const sent = aware ? facts : withoutAwareness(facts);
    const unshown = facts.fixedTokens - sent.fixedTokens;
    const estimatedTokens = assembly.total(projection, point) - unshown;
    // a call that did not fold may plan the fold a later call will need, summarized after this prompt went out; not
    // from a drop a failed or waiting summary forced: a later call starts from the point before it, as stored
    if (decided.messagesFolded === 0 && !decided.failure && lasting === point) {
      // planned with the awareness block counted: the prompt of a later fold carries it
      await this.considerAhead(facts, point, projection, estimatedTokens + unshown);
    }
    const { decisions, event, report } = reporter.changes({
      facts: sent,
      decided,
      edits,
      sent: output.measures,
      tokensBefore: tokensBefore - unshown,
      tokensAfter: estimatedTokens,
      reusedState: stored?.state !== undefined && decided.messagesFolded === 0,
    });
    return {
      system: sent.system,
      messages: output.messages,
      estimatedTokens,
      decisions,
      deferred: decided.deferred,
      event,
      report,
    };
  }

  /** Plans the fold a later call will need, when summaries are made ahead of time (see `FoldsAhead.consider`). */
  private async considerAhead(facts: CallFacts, point: CompressionPoint, projection: Projection, tokens: number) {
    const { ahead, assembly, services } = this.parts;
    // in a chat the latest message's recall block leaves with the next user message: no later call carries it
    const latest = facts.messages.findLastIndex((message) => message.role === 'user');
    const items = point.recalls.get(latest);
    const leaving = facts.sites.length === 0 && items ? assembly.blockTokens(facts, latest, items) : 0;
    await ahead?.consider(facts, {
      point,
      projection,
      tokens: tokens - leaving,
      stateTokens: assembly.stateTokens(point.state),
      maskable: () => freedUnderPressure(services, facts, point, projection),
    });
  }
}

/** Whether the messages sent are the history as it came, message for message. */
function asItCame(facts: CallFacts, sent: readonly MessageMeasure[], meter: MessageMeter): boolean {
  return (
    sent.length === facts.messages.length &&
    sent.every((measure, index) => measure.hash === meter.hash(facts.messages[index] as Message))
  );
}
