import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import { recordFor, sameRecord } from '../call/record-for.js';
import type { MessageMeasure, MessageMeter } from '../counting/message-meter.js';
import type { StateRecord, StateRecords } from '../persistence/state-records.js';
import type { CompressionErrorEvent } from '../reports/events.js';
import { fitState } from '../session-state/fit-state.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { Decided } from './decide.js';
import { fittedRecord } from './fitted-record.js';
import { checkedRecord } from './input-checks.js';
import type { PromptAssembly } from './prompt-assembly.js';

/**
 * How many earlier user messages the first call of a turn looks up recall choices for (besides the latest): the ones
 * since the record's last block. A choice is moved into the record by the next turn's first call, so more than a
 * few are found only when many user messages arrive at once.
 */
const MAX_RECALL_LOOKUPS = 16;

/** The stored record a call starts from: as found, as checked against the history, and fitted to its cap. */
export interface LoadedRecord {
  readonly found: StateRecord | undefined;
  readonly stored: StateRecord | undefined;
  /**
   * The stored record with its states cut to this call's cap: the stored one when they fit. A call sends it only when
   * the prompt needs it (see `startOf`): a cap that moved with the calibration alone rewrites no cached prefix.
   */
  readonly fitted: StateRecord | undefined;
}

/**
 * A call's reads and writes of its conversation's records: the record it starts from and the recall choices stored
 * for its user messages, then what it leaves (the record when it changed, the recall choice it made, and what it sent,
 * for the next call's promise checks).
 */
export class CallRecords {
  constructor(
    private readonly records: StateRecords,
    private readonly memory: ConversationMemory,
    private readonly assembly: PromptAssembly,
    private readonly meter: MessageMeter,
    private readonly acknowledgement: string,
    private readonly onError: (event: CompressionErrorEvent) => void,
  ) {}

  /** The record found for a call's history, checked against it, and as fitted to the call's state cap. */
  async load(facts: CallFacts): Promise<LoadedRecord> {
    const found = await this.records.find({
      scope: facts.scope,
      anchor: facts.anchor,
      prefixHashes: facts.prefixHashes,
      maxThrough: facts.messages.length,
    });
    // a record found covers less than this history (see `StateRecords.find`)
    const checked = found && checkedRecord(found, facts, this.onError);
    // fitted when first read: a call sends a stored state over its cap as it is unless the prompt needs the cut, so
    // most calls never fit it (a state over a cap that moved stays so for many calls)
    let fitted: { record: StateRecord | undefined } | undefined;
    const fitRecord = () =>
      fittedRecord(checked, facts.limits.maxStateTokens, {
        stateTokens: (state) => this.assembly.stateTokens(state),
        fitTo: (state, maxTokens) => fitState(state, maxTokens, this.meter, this.acknowledgement),
      });
    return {
      found,
      stored: checked,
      get fitted() {
        fitted ??= { record: fitRecord() };
        return fitted.record;
      },
    };
  }

  /**
   * The stored recall choices the call needs: those of the latest user message (made by an earlier call of its turn:
   * a tool step, a retry) and of the user messages before it since the record's last block (the previous turn's, or
   * several when user messages came in a row, or a user message that came with the steps after it), whose blocks this
   * call keeps or takes out (a kept block is then in the record). Looked up whatever the history ends with: the choice
   * an earlier call made for a user message is found by every later call until it is in the record. None when recall
   * is off or nothing was stored yet.
   */
  async recallChoices(facts: CallFacts, stored: StateRecord | undefined) {
    if (facts.limits.maxRecallTokens <= 0 || !stored) return new Map<number, string[]>();
    const { messages } = facts;
    const latest = messages.findLastIndex((message) => message.role === 'user');
    const users = latest >= stored.coveredCount ? [latest] : [];
    const from = Math.max(stored.coveredCount, ...(stored.recalls ?? []).map(([at]) => at + 1));
    for (let at = latest - 1; at >= from && users.length <= MAX_RECALL_LOOKUPS; at--) {
      if (messages[at]?.role === 'user') users.push(at);
    }
    return this.records.findRecalls(facts.scope, users, facts.prefixHashes);
  }

  /**
   * Save: the record of where the call left its conversation (when it changed), the recall choice made for its latest
   * user message, and what it sent, for the next call's promise checks.
   */
  async save(
    facts: CallFacts,
    {
      start,
      decided,
      found,
      stored,
      sent,
      blocks,
    }: {
      start: CompressionPoint;
      decided: Decided;
      found: StateRecord | undefined;
      stored: StateRecord | undefined;
      sent: readonly MessageMeasure[];
      /** The recall blocks the prompt sent carries (see `PromptAssembly.blocks`). */
      blocks: ReadonlySet<string>;
    },
  ): Promise<void> {
    const { point, lasting } = decided;
    const record = recordFor(facts, point, lasting === point ? undefined : lasting);
    // a call that changes nothing still stores the recall blocks it keeps for earlier user messages: the next tool
    // step of the turn no longer looks those choices up, and the blocks must stay in its prompt
    const changed = point !== start || record.recalls !== undefined || decided.restored || decided.stateRefitted;
    // a refitted state is saved even when the record is otherwise the stored one: the store still holds the uncut one
    const saved = changed && (decided.stateRefitted === true || !sameRecord(record, stored));
    if (saved) await this.records.save({ scope: facts.scope, anchor: facts.anchor, record });
    await this.saveRecallChoice(facts, start, decided);
    this.memory.sentPrompts.remember(
      facts.conversationKey,
      {
        history: { length: facts.messages.length, hash: facts.prefixHashes[facts.messages.length] as number },
        hashes: sent.map((measure) => measure.hash),
        request: facts.request,
        tokens: sent.reduce((sum, measure) => sum + measure.tokens, facts.fixedTokens),
        decided: { point, lasting },
        record: saved ? record : found,
        partial: !saved && partlyApplied(found, start, facts.messages.length),
        blocks,
      },
      facts.prefixHashes,
    );
  }

  /**
   * Stores the recall block chosen for the latest user message when the call made a new choice; also after a drop a
   * failed summary forced: later calls send that drop again (the record's provisional drop), and with it the same
   * block, or none when the block left with its message. Not when the message left the prompt for good (folded, or
   * dropped by design): the choice stays the one made for it, which a shorter resend that keeps the message sends.
   */
  private async saveRecallChoice(
    facts: CallFacts,
    start: CompressionPoint,
    { point, lasting }: Pick<Decided, 'point' | 'lasting'>,
  ): Promise<void> {
    const latest = facts.messages.findLastIndex((message) => message.role === 'user');
    const choice = point.recalls.get(latest);
    if (choice && start.recalls.get(latest) !== choice && latest >= lasting.coveredCount) {
      await this.records.saveRecall(facts.scope, latest, facts.prefixHashes, choice);
    }
  }
}

/**
 * Whether a call applied its stored record only in part: a record a longer history made (the call is a shorter resend)
 * masks results this history keeps, or carries a drop that would leave it nothing to send.
 */
function partlyApplied(found: StateRecord | undefined, start: CompressionPoint, historyLength: number): boolean {
  if (!found) return false;
  return start.masked.size < found.masked.length || (found.provisional?.coveredCount ?? 0) >= historyLength;
}
