import type { CallFacts } from '../call/call-facts.js';
import { EMPTY_STAGE_REPORT, type PointAt } from '../call/stage.js';
import type { MessageMeter } from '../counting/message-meter.js';
import { BrokenPromiseError } from '../errors.js';
import type { StateRecord } from '../persistence/state-records.js';
import type { CompressionErrorEvent } from '../reports/events.js';
import type { Message } from '../transcript/transcript.js';
import type { CallReporter } from './call-report.js';
import type { CompressOutput } from './compress-call.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { Decided } from './decide.js';
import { CallPromises, type Candidate, type PromiseBreak } from './promise-checks.js';
import type { PromptAssembly } from './prompt-assembly.js';

/**
 * Where the engine keeps its promises: it makes a call's checks (`CallPromises`, against what this instance sent last
 * for the conversation), shows them each candidate prompt, and checks the finished one; a break is reported to
 * `onError`, or thrown with `onBrokenPromise: 'throw'`.
 */
export class PromiseKeeper {
  constructor(
    private readonly meter: MessageMeter,
    private readonly assembly: PromptAssembly,
    private readonly reporter: CallReporter,
    private readonly memory: ConversationMemory,
    private readonly onError: (event: CompressionErrorEvent) => void,
    private readonly throws: boolean,
  ) {}

  /** The promise checks of a call, against what this instance sent last for its conversation. */
  promises(
    facts: CallFacts,
    found: StateRecord | undefined,
    choices: ReadonlyMap<number, readonly string[]> = new Map(),
  ): CallPromises {
    return new CallPromises({
      facts,
      previous: this.memory.sentPrompts.previous(facts.conversationKey),
      found,
      choices,
      stateTokens: (state) => this.assembly.stateTokens(state),
      blockTokens: (at, items) => this.assembly.blockTokens(facts, at, items),
    });
  }

  /** A break found where a plan is accepted: thrown with `onBrokenPromise: 'throw'`, else kept for the report. */
  rejected(found: PromiseBreak | undefined): PromiseBreak | undefined {
    if (found && this.throws) throw new BrokenPromiseError(found);
    return found;
  }

  /** What the checks see of a point: its tokens, and the hashes of the prompt made there (when asked). */
  candidate(facts: CallFacts, at: PointAt): Candidate {
    return {
      point: at.point,
      tokens: at.tokens,
      hashes: () =>
        this.assembly.messages(facts, at.point, at.projection).map(({ message }) => this.meter.hash(message)),
      editsReported: () => {
        const { edits } = this.reporter.edits(facts, at);
        return edits.redacted.count + edits.truncated.count > 0;
      },
    };
  }

  /**
   * The finished prompt of the stages' outcome, checked: when it would break continuity or bring back a recall block
   * that left, and this instance knows the prompt it sent last for the conversation, that prompt's point stands
   * instead (continued by the new messages).
   */
  checked(facts: CallFacts, promises: CallPromises, decided: Decided) {
    const finish = (outcome: Decided) => {
      const output = this.assembly.assemble(facts, outcome.point, outcome.projection);
      const edits = this.reporter.edits(facts, outcome);
      const blocks = this.assembly.blocks(facts, outcome.point);
      const breaks = promises.prompt({
        messages: output.messages,
        hashes: output.measures.map((measure) => measure.hash),
        blocks,
        announced: edits.announced,
        openCallsAtEnd: openCallsAtEnd(facts.messages),
      });
      return { decided: outcome, output, edits, blocks, breaks };
    };
    const first = finish(decided);
    this.report(decided.broken, 'plan-rejected');
    const previous = this.memory.sentPrompts.previous(facts.conversationKey)?.decided;
    const recoverable = first.breaks.some((each) => each.promise === 'continuity' || each.promise === 'recall-flip');
    if (first.breaks.length > 0) this.rejected(first.breaks[0]);
    if (!recoverable || !previous || !promises.owed()) {
      this.report(first.breaks, 'continued');
      return first;
    }
    const { point, lasting } = previous;
    const projection = this.assembly.project(facts, point);
    const fallback = finish({ ...EMPTY_STAGE_REPORT, point, lasting, projection });
    const kept = fallback.breaks.every((each) => each.promise !== 'continuity' && each.promise !== 'recall-flip');
    this.report(first.breaks, kept ? 'previous-prompt' : 'continued');
    return kept ? fallback : first;
  }

  /** A call sent as it came: checked against the previous prompt, and remembered. */
  sentAsItCame(
    facts: CallFacts,
    found: StateRecord | undefined,
    promises: CallPromises,
    output: CompressOutput,
  ): CompressOutput {
    const hashes = facts.messages.map((message) => this.meter.hash(message));
    const breaks = promises.continuity(hashes, false);
    if (breaks.length > 0) this.rejected(breaks[0]);
    this.report(breaks, 'continued');
    this.memory.sentPrompts.remember(
      facts.conversationKey,
      {
        history: { length: facts.messages.length, hash: facts.prefixHashes[facts.messages.length] as number },
        hashes,
        // its count is left to a fold that continues it: a call sent as it came counts only what it must
        request: facts.request,
        decided: undefined,
        record: found,
        // a record found but not usable here (it covers or drops more than this history has) was applied not at all
        partial: found !== undefined,
        blocks: new Set(),
      },
      facts.prefixHashes,
    );
    return output;
  }

  /** Tells `onError` of promise breaks, with what the engine did instead. */
  private report(breaks: readonly PromiseBreak[], fallback: 'plan-rejected' | 'previous-prompt' | 'continued') {
    for (const found of breaks) this.onError({ error: new BrokenPromiseError(found), fallback });
  }
}

/** Whether a history ends with an assistant message whose tool calls have no results yet (allowed at the end). */
function openCallsAtEnd(messages: readonly Message[]): boolean {
  return (
    messages.at(-1)?.role === 'assistant' && (messages.at(-1)?.parts.some((part) => part.type === 'tool-call') ?? false)
  );
}
