import { boundedCache } from '../bounded-cache.js';
import type { CallFacts } from '../call/call-facts.js';
import type { MessageMeter } from '../counting/message-meter.js';
import { PrefixHashes } from '../counting/prefix-hashes.js';
import { SegmentBoundaries } from '../folding/segment-boundaries.js';
import type { Boundary, SemanticTriggerSettings } from '../folding/semantic-triggers.js';
import { EDITED_MESSAGE_CACHE_SIZE, type ResultEdit } from '../masking/observation-masking.js';
import type { SessionState } from '../session-state/session-state.js';
import { type Quotes, type ResultInUse, ResultsInUse, type ScanInput } from '../signals/results-in-use.js';
import { StepAnalyses } from '../signals/step-analyses.js';
import { CutPointIndex } from '../transcript/cut-point-index.js';
import { PairingScans } from '../transcript/repair-tool-pairs.js';
import { ResultSiteIndex } from '../transcript/result-sites.js';
import type { Message } from '../transcript/transcript.js';
import type { ProjectionCache } from '../view/project.js';
import { HistoryMemory } from './history-memory.js';
import { SentPrompts } from './sent-prompts.js';

/**
 * What one engine instance remembers of the conversations it served, so that a call reads only what is new in its
 * history: the previous call's message objects, the indexes of tool results, cut points and prefix hashes, the step
 * analyses and segment boundaries found so far, the edited messages and counts of placeholders, and the prompt sent
 * last (what the promise checks compare a call with). Each part is bounded; none is needed for correctness: a new
 * instance, which remembers nothing, sends the same prompts.
 */
export class ConversationMemory {
  readonly histories = new HistoryMemory();
  readonly analyses = new StepAnalyses();
  readonly siteIndex = new ResultSiteIndex();
  readonly cutIndex = new CutPointIndex();
  readonly pairings = new PairingScans();
  readonly prefixHashes: PrefixHashes;
  readonly terms = boundedCache<string, Map<string, number>>(5_000);
  readonly placeholderTokens = boundedCache<string, number>(EDITED_MESSAGE_CACHE_SIZE);
  readonly projections: ProjectionCache = {
    edits: boundedCache<string, ResultEdit | false>(EDITED_MESSAGE_CACHE_SIZE),
    messages: boundedCache<string, Message>(EDITED_MESSAGE_CACHE_SIZE),
    descriptions: new WeakMap(),
    truncations: new WeakMap(),
  };
  /** The session state pair of each state object, rendered once. */
  readonly statePairs = new WeakMap<SessionState, readonly Message[]>();
  /** Each caller's message with the edited message sent for it, so an edit keeps its object while both are the same. */
  readonly rebinds = new WeakMap<Message, { edited: Message; sent: Message }>();
  /** What this instance sent last per conversation. */
  readonly sentPrompts = new SentPrompts();
  private readonly segments = new SegmentBoundaries();
  /** The boundaries each call's facts were found to have, so a call asks the segment scan once. */
  private readonly foundBoundaries = new WeakMap<CallFacts, readonly Boundary[]>();
  private readonly resultsInUse = new ResultsInUse();

  constructor(meter: MessageMeter) {
    this.prefixHashes = new PrefixHashes(meter);
  }

  /** The segment boundaries of a call's history, found incrementally per conversation, once per call. */
  boundaries(facts: CallFacts, semantic: SemanticTriggerSettings): readonly Boundary[] {
    let found = this.foundBoundaries.get(facts);
    if (!found) {
      found = this.segments.find({
        conversation: facts.conversationKey,
        messages: facts.messages,
        steps: facts.steps,
        prefixHashes: facts.prefixHashes,
        options: semantic,
      });
      this.foundBoundaries.set(facts, found);
    }
    return found;
  }

  /** The results in `[from, to)` the assistant quoted after they came, read incrementally. */
  quoted(facts: CallFacts, from: number, to: number): readonly ResultInUse[] {
    return this.resultsInUse.find({ ...historyOf(facts), from, to });
  }

  /** The results from `from` on that the assistant messages at `readers` quote, read incrementally. */
  quotes(facts: CallFacts, from: number, readers: readonly number[]): Quotes {
    return this.resultsInUse.quotes({ ...historyOf(facts), from, readers });
  }
}

/** What reading the results in use needs of a call's history. */
function historyOf({ conversationKey, messages, prefixHashes, system, sites }: CallFacts): ScanInput {
  return { conversation: conversationKey, messages, prefixHashes, system, sites };
}
