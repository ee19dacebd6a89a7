import type { CallFacts } from '../call/call-facts.js';
import { hash53, hashChain } from '../counting/hash.js';
import type { MessageMeter } from '../counting/message-meter.js';
import { prefixHashesOf } from '../counting/prefix-hashes.js';
import { type MaskingOptions, maskableKeys } from '../masking/observation-masking.js';
import type { BudgetLimits } from '../options/budget.js';
import type { StoreScope } from '../persistence/state-records.js';
import type { StepSignals } from '../signals/step-signals.js';
import type { OwnToolNames } from '../strategies/own-tools.js';
import { collectRedactions, type RedactionRules } from '../strategies/redaction.js';
import { type CutPoints, cutPointsFor } from '../transcript/cut-point-index.js';
import type { ResultSiteIndex } from '../transcript/result-sites.js';
import type { Message, Transcript } from '../transcript/transcript.js';

/** How the engine reads a call: its counter and the optional parts that decide which facts are needed. */
export interface ReadCallOptions {
  readonly meter: MessageMeter;
  readonly limits: BudgetLimits;
  readonly scope: StoreScope;
  /** The caller's system messages followed by the awareness block. */
  readonly system: readonly Message[];
  /** The awareness block, last of `system`, when it is on. */
  readonly awareness?: Message | undefined;
  readonly masking: Required<MaskingOptions> | undefined;
  readonly redaction: RedactionRules | undefined;
  readonly redactionToolName: string;
  /** This package's tools among the call's, by the names they were registered under (see `findOwnTools`). */
  readonly ownTools: OwnToolNames;
  /** The tool results of each conversation, read incrementally. */
  readonly siteIndex: ResultSiteIndex;
  /** The prefix hashes of each conversation's history, continued from its previous call's; without it, read whole. */
  readonly prefixHashes?: (conversation: string, namespace: string, messages: readonly Message[]) => readonly number[];
  /** The fold points of each conversation, read incrementally; without it, read whole. */
  readonly cutPoints?: (conversation: string, messages: readonly Message[]) => CutPoints;
  /** Replaces messages seen in the previous call of the conversation by the remembered objects. */
  readonly reuseSeen: (conversation: string, messages: readonly Message[]) => readonly Message[];
  /** The adapter's key of the request the call sends (`CompressInput.request`). */
  readonly request?: object | undefined;
  /** The previous prompt a fold's summary may continue, for the conversation (see `CallFacts.continuation`). */
  readonly continuation?: (
    conversation: string,
    facts: Pick<CallFacts, 'messages' | 'prefixHashes' | 'limits' | 'fixedTokens'>,
  ) => CallFacts['continuation'];
  /** The step signals of the history, when a trigger reads them. */
  readonly analyzeSteps:
    | ((conversation: string, messages: readonly Message[], prefixHashes: readonly number[]) => StepSignals[])
    | undefined;
}

/** Counts a call's prompt and reads what the later stages need from it. */
export function readCall(transcript: Transcript, options: ReadCallOptions): CallFacts {
  const { meter, limits, scope, system, masking } = options;
  const namespace = scope.join('\u0000');
  const input = transcript.messages;
  const toolsJson = transcript.tools.length > 0 ? JSON.stringify(transcript.tools) : '';
  const toolsMeasure = { hash: hash53(toolsJson), tokens: meter.countText(toolsJson) };
  const fixedMeasures = [toolsMeasure, ...system.map((message) => meter.measure(message))];
  const anchor = (input[0] ? meter.hash(input[0]) : 0).toString(36);
  // the system prompt is part of what the per-conversation memories learned (a repository root it states)
  const systemHash = fixedMeasures.reduce((hash, measure) => hashChain(hash, measure.hash), 0).toString(36);
  const conversation = `${namespace}\u0000${anchor}\u0000${systemHash}`;
  const messages = options.reuseSeen(conversation, input);
  const prefixHashes = options.prefixHashes
    ? options.prefixHashes(conversation, namespace, messages)
    : prefixHashesOf(namespace, messages, meter);
  let assistants = 0;
  let steps = 0;
  let lastStepStart = 0;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role !== 'assistant') continue;
    assistants++;
    if (message.synthetic) continue;
    steps++;
    lastStepStart = index;
  }
  const analyzeSteps = options.analyzeSteps;
  let analyzed: readonly StepSignals[] | undefined;
  const sites = options.siteIndex.sites(conversation, messages, meter);
  const own = options.ownTools;
  const redactionToolName = own.redaction ?? options.redactionToolName;
  const replayed = options.redaction
    ? collectRedactions(messages, { ...options.redaction, toolName: redactionToolName })
    : { reasons: new Map<string, string>(), latest: new Set<string>() };
  const fixedTokens = fixedMeasures.reduce((sum, measure) => sum + measure.tokens, 0);
  const continuation = options.continuation?.(conversation, { messages, prefixHashes, limits, fixedTokens });
  return {
    ...(options.request ? { request: options.request } : {}),
    ...(continuation ? { continuation } : {}),
    namespace,
    scope,
    anchor,
    conversationKey: conversation,
    system,
    ...(options.awareness ? { awareness: options.awareness } : {}),
    messages,
    input,
    prefixHashes,
    limits,
    cuts: options.cutPoints ? options.cutPoints(conversation, messages) : cutPointsFor(messages),
    fixedMeasures,
    fixedTokens,
    sites,
    siteByKey: new Map(sites.map((site) => [site.key, site])),
    maskable: masking ? maskableKeys(messages, sites, masking, redactionToolName) : new Set<string>(),
    redactions: replayed.reasons,
    latestRedactions: replayed.latest,
    get steps() {
      analyzed ??= analyzeSteps ? analyzeSteps(conversation, messages, prefixHashes) : [];
      return analyzed;
    },
    stepCount: analyzeSteps && steps > 0 ? steps : assistants,
    lastStepStart: analyzeSteps ? lastStepStart : 0,
    redactionToolName,
    retrievalToolName: own.retrieval,
  };
}

/**
 * The call as sent without the awareness block: the block goes out from the first call whose prompt is not the history
 * as it came (a fold, a mask, a drop, a recall block), and with every later call of the conversation; before that the
 * caller's prompt goes out untouched. The facts themselves count the block (the threshold is crossed a block early);
 * what a call reports and learns from is counted as it went out.
 */
export function withoutAwareness(facts: CallFacts): CallFacts {
  const { awareness } = facts;
  if (!awareness) return facts;
  const index = facts.system.indexOf(awareness);
  const measure = facts.fixedMeasures[index + 1];
  if (index < 0 || !measure) return facts;
  // the facts' other fields (some read lazily) are read through the prototype
  return Object.create(facts, {
    system: { value: facts.system.filter((_, at) => at !== index), enumerable: true },
    fixedMeasures: { value: facts.fixedMeasures.filter((_, at) => at !== index + 1), enumerable: true },
    fixedTokens: { value: facts.fixedTokens - measure.tokens, enumerable: true },
    awareness: { value: undefined, enumerable: true },
  }) as CallFacts;
}
