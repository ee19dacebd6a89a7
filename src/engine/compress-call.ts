import type { SummarizerError } from '../errors.js';
import type { BudgetLimits } from '../options/budget.js';
import type { SessionState } from '../session-state/session-state.js';
import type { StepSignals } from '../signals/transcript-signals.js';
import type { ResultSite } from '../strategies/observation-masking.js';
import type { Message, Transcript } from '../transcript/transcript.js';
import type { CompressionDecision } from '../triggers/decisions.js';
import type { FoldLayout } from '../view/fold-layout.js';
import type { PromptView } from '../view/prompt-view.js';
import type { CompressEvent } from './events.js';

/** One call to compress. */
export interface CompressInput {
  readonly transcript: Transcript;
  /** The model's id, for the context-window table. */
  readonly modelId: string;
  /** Key of the per-model calibration, e.g. `provider:modelId`. @default modelId */
  readonly modelKey?: string;
  /**
   * The model's context window when the adapter knows it (e.g. from a LangChain model profile). The engine's
   * `contextWindow` option wins over it; the table of known models is the last resort.
   */
  readonly contextWindow?: number;
  /** Added to the engine's namespace for this call, e.g. a user or tenant id. */
  readonly namespace?: string;
  /** Fold all complete turns now, whatever the budget says. */
  readonly force?: boolean;
}

/** The compressed prompt and what was done to it. */
export interface CompressOutput {
  /** The caller's system messages followed by the awareness block: the same bytes on every call. */
  readonly system: readonly Message[];
  /** The session state pair (when a state exists), then the kept messages. */
  readonly messages: readonly Message[];
  /** Our token estimate of the whole prompt before calibration, to learn from the provider's count. */
  readonly estimatedTokens: number;
  readonly decisions: readonly CompressionDecision[];
  /** Present when this call compressed. */
  readonly event: CompressEvent | undefined;
}

/** What one call works on, and what it did so far. */
export interface FoldCall {
  readonly namespace: string;
  /** Hash of the first message: the key of the conversation's index of compression points. */
  readonly anchor: string;
  readonly conversation: string;
  readonly messages: readonly Message[];
  readonly prefixHashes: readonly number[];
  readonly limits: BudgetLimits;
  /** Tokens of the system prompt, the awareness block and the tool definitions. */
  readonly fixedTokens: number;
  readonly sites: readonly ResultSite[];
  /** Tool results by `ResultSite.key`. */
  readonly siteByKey: ReadonlyMap<string, ResultSite>;
  /** Keys of the results this history allows to mask (see `maskableKeys`). */
  readonly maskable: ReadonlySet<string>;
  /** Redactions replayed from the conversation: result key to the model's reason. */
  readonly redactions: ReadonlyMap<string, string>;
  /** How many leading messages left the prompt (folded or dropped). */
  coveredCount: number;
  state: SessionState | undefined;
  droppedCount: number;
  /** Keys (`ResultSite.key`) of the masked tool results. */
  readonly masked: Set<string>;
  /** Why a masked result was masked when it was stale rather than old, by key. */
  readonly maskReasons: Map<string, string>;
  /** The history length a staleness decision looked at (later steps may supersede a result); 0 when none. */
  staleThrough: number;
  /** The `through` of the record this call started from or last saved: new records never go below it. */
  minThrough: number;
  /** Signals of each step (an assistant message and its tool results). */
  readonly steps: readonly StepSignals[];
  /** What this call's masking step masked. */
  newlyMasked: { count: number; tokensFreed: number };
  view: PromptView;
  layout: FoldLayout;
  readonly decisions: CompressionDecision[];
  messagesFolded: number;
  messagesDropped: number;
  summarizerMs: number;
  failure: SummarizerError | undefined;
}
