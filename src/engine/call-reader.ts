import type { CallFacts } from '../call/call-facts.js';
import type { MessageMeter } from '../counting/message-meter.js';
import { MessageTooLargeError } from '../errors.js';
import type { EngineSettings } from '../options/engine-settings.js';
import type { ResolvedOptions } from '../options/options.js';
import type { CompressInput } from './compress-call.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { ModelLimits } from './model-limits.js';
import type { OwnToolsSeen } from './own-tools-seen.js';
import { readCall } from './read-call.js';

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
  }: CompressInput): CallFacts {
    const { meter, settings, memory } = this;
    const limits = this.models.callLimits(modelId, modelKey, contextWindow, maxOutputTokens);
    const { names: ownTools, awareness } = this.ownTools.forCall(transcript.tools);
    const facts = readCall(transcript, {
      meter,
      limits,
      scope: [this.resolved.namespace, namespace ?? ''],
      system: awareness ? [...transcript.system, awareness] : [...transcript.system],
      masking: settings.masking,
      redaction: settings.redaction,
      redactionToolName: settings.redactionToolName,
      ownTools,
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
}
