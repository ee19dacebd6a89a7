import type { MessageMeasure } from '../counting/message-meter.js';
import type { BudgetLimits } from '../options/budget.js';
import type { StoreScope } from '../persistence/state-records.js';
import type { SessionState } from '../session-state/session-state.js';
import type { StepSignals } from '../signals/step-signals.js';
import type { PromptContinuation } from '../summarizers/prompt-continuation.js';
import type { CutPoints } from '../transcript/cut-point-index.js';
import type { ResultSite } from '../transcript/result-sites.js';
import type { Message } from '../transcript/transcript.js';

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
  readonly conversationKey: string;
  readonly system: readonly Message[];
  /** The awareness block, last of `system`, when it is on (see `withoutAwareness`). */
  readonly awareness?: Message | undefined;
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
  /** The adapter's key of the request this call sends (`CompressInput.request`). */
  readonly request?: object;
  /**
   * The previous call's prompt to continue with a fold's summary request (see `PromptContinuation`), for a fold from
   * `point` to `cut`: when that call sent the same fold point and state, the conversation extends its history, and
   * the continuation fits the model's budget. Undefined when the adapter offers none.
   */
  readonly continuation?: (point: FoldStart, cut: number) => PromptContinuation | undefined;
}

/** Where a fold starts: the messages the state covers, and that state (a `CompressionPoint` is one). */
export interface FoldStart {
  readonly coveredCount: number;
  readonly state?: SessionState | undefined;
}
