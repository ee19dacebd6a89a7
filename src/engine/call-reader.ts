import type { CallFacts } from '../call/call-facts.js';
import { canonicalJson } from '../counting/canonical-json.js';
import type { MessageMeter } from '../counting/message-meter.js';
import { MessageTooLargeError } from '../errors.js';
import type { EngineSettings } from '../options/engine-settings.js';
import type { ResolvedOptions } from '../options/options.js';
import type { SessionState } from '../session-state/session-state.js';
import type { CompressInput } from './compress-call.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { ModelLimits } from './model-limits.js';
import type { OwnToolsSeen } from './own-tools-seen.js';
import { readCall } from './read-call.js';
import { extendsMark } from './sent-prompts.js';

/**
 * Count: the facts of a call, read with this instance's memory of the conversation (only what is new is read), and
 * the check that its latest user message fits the budget at all.
 */
export class CallReader {
  constructor(
    private readonly meter: MessageMeter,
    private readonly resolved: ResolvedOptions,
    private readonly settings: EngineSettings,
    private readonly memory: ConversationMemory,
    private readonly ownTools: OwnToolsSeen,
    private readonly models: ModelLimits,
  ) {}

  read({
    transcript,
    modelId,
    modelKey = modelId,
    contextWindow,
    maxOutputTokens,
    namespace,
    request,
    continueRequest,
  }: CompressInput): CallFacts {
    const { meter, settings, memory } = this;
    const limits = this.models.callLimits(modelId, modelKey, contextWindow, maxOutputTokens);
    const { names: ownTools, awareness } = this.ownTools.forCall(transcript.tools);
    const facts = readCall(transcript, {
      meter,
      limits,
      scope: [this.resolved.namespace, namespace ?? ''],
      system: awareness ? [...transcript.system, awareness] : [...transcript.system],
      awareness,
      masking: settings.masking,
      redaction: settings.redaction,
      redactionToolName: settings.redactionToolName,
      ownTools,
      request,
      continuation:
        continueRequest &&
        ((conversation, history) => this.continuation(conversation, history, modelId, continueRequest)),
      reuseSeen: (conversation, messages) => memory.histories.reuse(conversation, messages),
      siteIndex: memory.siteIndex,
      cutPoints: (conversation, messages) => memory.cutIndex.cuts(conversation, messages),
      prefixHashes: (conversation, namespace, messages) => memory.prefixHashes.of(conversation, namespace, messages),
      analyzeSteps:
        settings.staleness || settings.semantic
          ? (conversation, messages, prefixHashes) =>
              memory.analyses.analyze(conversation, messages, prefixHashes, transcript.system)
          : undefined,
    });
    const latestUser = facts.messages.findLastIndex((message) => message.role === 'user');
    const latest = facts.messages[latestUser];
    const latestUserTokens = (latest ? meter.measure(latest).tokens : 0) * limits.ratio;
    if (latestUserTokens > limits.budget) {
      throw new MessageTooLargeError({
        messageTokens: Math.round(latestUserTokens),
        budgetTokens: limits.budget,
        messageIndex: latestUser,
      });
    }
    return facts;
  }

  /**
   * The previous call's prompt, continued by a fold's summary request: offered when this instance sent it for the
   * conversation, the history extends it, the fold starts where that prompt's kept messages started (with the same
   * state), and the continuation's input (that prompt, the messages since, the instruction) fits the model's budget
   * (the state it answers with is output, in the room the budget keeps for it).
   */
  private continuation(
    conversation: string,
    {
      messages,
      prefixHashes,
      limits,
      fixedTokens,
    }: Pick<CallFacts, 'messages' | 'prefixHashes' | 'limits' | 'fixedTokens'>,
    modelId: string,
    continueRequest: NonNullable<CompressInput['continueRequest']>,
  ): CallFacts['continuation'] {
    const previous = this.memory.sentPrompts.previous(conversation);
    if (!previous?.request || !extendsMark(prefixHashes, previous.history)) return undefined;
    const { request, history } = previous;
    const sentAt = previous.decided?.point;
    return (point, cut) => {
      if ((sentAt?.coveredCount ?? 0) !== point.coveredCount || !sameState(sentAt?.state, point.state))
        return undefined;
      if (cut <= point.coveredCount || cut > messages.length) return undefined;
      const since = messages
        .slice(history.length, Math.max(history.length, cut))
        .reduce((sum, message) => sum + this.meter.measure(message).tokens, 0);
      // a prompt sent as it came was not counted whole: counted now, as the fold needs it
      const tokens =
        previous.tokens ??
        messages
          .slice(0, history.length)
          .reduce((sum, message) => sum + this.meter.measure(message).tokens, fixedTokens);
      if (tokens + since + CONTINUATION_INSTRUCTION_TOKENS > limits.budget / limits.ratio) {
        return undefined;
      }
      const complete = continueRequest(request, history.length, Math.max(history.length, cut));
      if (!complete) return undefined;
      // the messages after the cut that the continued prompt holds stay; those after it are not sent at all
      return { modelId, keptAfter: Math.max(0, history.length - cut), hasState: point.state !== undefined, complete };
    };
  }
}

/** Tokens kept for the instruction a continued prompt ends with (the model summarizer's is about 450). */
const CONTINUATION_INSTRUCTION_TOKENS = 600;

/** Whether two states are the same: the same object, or the same JSON. */
function sameState(a: SessionState | undefined, b: SessionState | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b));
}
