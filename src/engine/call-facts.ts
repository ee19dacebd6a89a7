import { hash53, hashChain } from '../counting/hash.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import { prefixHashesOf } from '../counting/prefix-hashes.js';
import type { BudgetLimits } from '../options/budget.js';
import type { StoreScope } from '../persistence/state-records.js';
import type { StepSignals } from '../signals/step-signals.js';
import { type MaskingOptions, maskableKeys } from '../strategies/observation-masking.js';
import type { OwnToolNames } from '../strategies/own-tools.js';
import { collectRedactions, type RedactionRules } from '../strategies/redaction.js';
import { type CutPoints, cutPointsFor } from '../transcript/cut-point-index.js';
import type { ResultSite, ResultSiteIndex } from '../transcript/result-sites.js';
import type { Message, Transcript } from '../transcript/transcript.js';

/**
 * What one call is about, read once at its start and never changed: the history, its hashes and counts, the tool
 * results in it, the redactions it carries and the step signals. Every later stage reads these facts.
 */
export interface CallFacts {
  /** The engine's and the call's namespace together: part of every hash of the call. */
  readonly namespace: string;
  /** The engine's namespace and the call's, apart: the scope of the call's stored records. */
  readonly scope: StoreScope;
  /** Hash of the first message: the key of the conversation's index of compression points. */
  readonly anchor: string;
  /** Namespace, anchor, system prompt and tools: the key of per-conversation memory of this engine instance. */
  readonly conversation: string;
  readonly system: readonly Message[];
  /**
   * The history as the engine works on it: messages equal to those of the previous call of this conversation are the
   * previous call's objects (see `HistoryMemory`), so memos keyed by message hit.
   */
  readonly messages: readonly Message[];
  /** The caller's messages of this call, index for index: what untouched messages go out as. */
  readonly input: readonly Message[];
  /** `prefixHashes[k]` is the hash of the namespace and the first k messages. */
  readonly prefixHashes: readonly number[];
  readonly limits: BudgetLimits;
  /** Measures of the system messages (awareness block included) and of the tool definitions, in prompt order. */
  readonly fixedMeasures: readonly MessageMeasure[];
  /** Tokens of the system prompt, the awareness block and the tool definitions. */
  readonly fixedTokens: number;
  /** Where the history may be folded: no tool call parted from its result. */
  readonly cuts: CutPoints;
  readonly sites: readonly ResultSite[];
  /** Tool results by `ResultSite.key`. */
  readonly siteByKey: ReadonlyMap<string, ResultSite>;
  /** Keys of the results this history allows to mask (see `maskableKeys`). */
  readonly maskable: ReadonlySet<string>;
  /** Redactions replayed from the conversation: result key to the model's reason. */
  readonly redactions: ReadonlyMap<string, string>;
  /** Redactions made by the latest step, reported once by the call that first applies them. */
  readonly latestRedactions: ReadonlySet<string>;
  /**
   * Signals of each step (an assistant message and its tool results); empty when no trigger reads them. Analyzed on
   * first read: a call whose decisions need no step (a chat far from any fold) never pays for the analysis.
   */
  readonly steps: readonly StepSignals[];
  /**
   * How many model calls made this history: its steps (every assistant message but the synthetic ones) when steps
   * are analyzed and there are any, else its assistant messages. Known without analyzing a step.
   */
  readonly stepCount: number;
  /** Index of the message that starts the last step (0 without steps), known without analyzing a step. */
  readonly lastStepStart: number;
  /** The redaction tool's name in this call: as the call's tools carry it, else the configured one. */
  readonly redactionToolName: string;
  /** The retrieval tool's name when the call carries it (placeholders then name it), else undefined. */
  readonly retrievalToolName: string | undefined;
}

/** How the engine reads a call: its counter and the optional parts that decide which facts are needed. */
export interface ReadCallOptions {
  readonly meter: MessageMeter;
  readonly limits: BudgetLimits;
  readonly scope: StoreScope;
  /** The caller's system messages followed by the awareness block. */
  readonly system: readonly Message[];
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
  return {
    namespace,
    scope,
    anchor,
    conversation,
    system,
    messages,
    input,
    prefixHashes,
    limits,
    cuts: options.cutPoints ? options.cutPoints(conversation, messages) : cutPointsFor(messages),
    fixedMeasures,
    fixedTokens: fixedMeasures.reduce((sum, measure) => sum + measure.tokens, 0),
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
