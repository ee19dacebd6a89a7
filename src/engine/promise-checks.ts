import type { CallFacts } from '../call/call-facts.js';
import type { CompressionPoint } from '../call/compression-point.js';
import type { PromiseBreak } from '../call/stage.js';
import { canonicalJson } from '../counting/canonical-json.js';
import type { StateRecord } from '../persistence/state-records.js';
import { recallCap } from '../recall/choose-recall.js';
import type { SessionState } from '../session-state/session-state.js';
import { findPairingProblems } from '../transcript/tool-pairs.js';
import type { Message } from '../transcript/transcript.js';
import { blockIdentity, extendsMark, type SentPrompt } from './sent-prompts.js';

/** What a plan says of itself: whether it reports a change, or brings back a prompt an earlier call sent. */
export interface PlanTells {
  /** The plan, or one the call took before it, reports a change the model sees. */
  readonly announces: boolean;
  readonly restores: boolean;
}

/** A prompt the checks look at: the point it is made at, its tokens, and its message hashes (made when asked). */
export interface Candidate {
  readonly point: CompressionPoint;
  readonly tokens: number;
  hashes(): readonly number[];
  /** Whether the view at the point shows edits the call reports (results newly shortened, redactions not sent). */
  editsReported(): boolean;
}

/** The finished prompt of a call, as it would be sent. */
export interface FinishedPrompt {
  /** The messages after the system prompt, and their hashes. */
  readonly messages: readonly Message[];
  readonly hashes: readonly number[];
  /** The recall blocks in it, by identity. */
  readonly blocks: ReadonlySet<string>;
  /** Whether the call reports a change (`onCompress` hears of it). */
  readonly announced: boolean;
  /** The caller's history ends with tool calls still waiting for their results. */
  readonly openCallsAtEnd: boolean;
}

/** What the checks need of a call besides its candidates. */
export interface PromiseSubject {
  readonly facts: CallFacts;
  /** What this instance sent last for the conversation. */
  readonly previous: SentPrompt | undefined;
  /** The record the call found in the store, before it was fitted to the call's cap. */
  readonly found: StateRecord | undefined;
  /** The recall choices the call found in the store, by the index of their user message. */
  readonly choices: ReadonlyMap<number, readonly string[]>;
  stateTokens(state: SessionState): number;
  /** Tokens of the recall block for the user message at `at`, 0 when it quotes nothing. */
  blockTokens(at: number, items: readonly string[]): number;
}

/**
 * The promises every prompt keeps, checked where a plan is accepted (`plan`) and on the finished prompt (`prompt`):
 * - a call whose history extends the previous call's (of this instance, with the store as that call left it: the same
 *   record and recall choices)
 *   begins with the previous prompt, message for message, unless it reports a change; a retry sends the same prompt;
 *   an edit or a shorter resend starts a branch and owes nothing;
 * - a step that changes the prompt reports it, unless it brings the prompt closer to the previous one (when owed), or
 *   brings back a prompt an earlier call sent (a drop carried from the record);
 * - no recall block comes back once a prompt of the conversation took it out (a flip rewrites the cache twice);
 * - the state and each recall block keep to their caps; the stages never end with the prompt taken over the hard
 *   limit, or further over it (the loop then ends at the last point that did not: `PointMeasure.settles`);
 * - no tool call is parted from its result.
 * The system prompt needs no check: it is part of the conversation's key, so the previous prompt had the same.
 */
export class CallPromises {
  private owes: boolean | undefined;

  constructor(private readonly subject: PromiseSubject) {}

  /** Whether this call owes the previous prompt its continuation. */
  owed(): boolean {
    if (this.owes === undefined) {
      const { previous, facts, found } = this.subject;
      this.owes =
        previous !== undefined &&
        !previous.partial &&
        extendsMark(facts.prefixHashes, previous.history) &&
        sameStoredRecord(previous.record, found) &&
        this.sameChoices(previous);
    }
    return this.owes;
  }

  /**
   * Whether the recall choices found for the user messages the previous prompt had are the ones it was sent with:
   * another instance may have stored another (a block with pieces the model redacted taken out).
   */
  private sameChoices(previous: SentPrompt): boolean {
    const sent = previous.decided?.point.recalls;
    for (const [at, items] of this.subject.choices) {
      if (at >= previous.history.length) continue;
      const before = sent?.get(at);
      if (!before || before.length !== items.length || before.some((item, index) => item !== items[index]))
        return false;
    }
    return true;
  }

  /** The break a stage's plan would make, moving the call from `current` to `next`; undefined when it keeps them. */
  plan(stage: string, current: Candidate, next: Candidate, tells: PlanTells): PromiseBreak | undefined {
    const found = this.planBreak(current, next, tells);
    return found && { ...found, stage };
  }

  private planBreak(current: Candidate, next: Candidate, { announces, restores }: PlanTells): PromiseBreak | undefined {
    const { facts, stateTokens } = this.subject;
    const { limits } = facts;
    const { state } = next.point;
    if (state && state !== current.point.state && stateTokens(state) > limits.maxStateTokens) {
      return {
        promise: 'state-over-cap',
        detail: `a state of ${stateTokens(state)} tokens, over its cap of ${limits.maxStateTokens}`,
      };
    }
    const blocks = this.newBlocks(current.point, next.point);
    if (blocks) return blocks;
    if (announces || next.point === current.point) return undefined;
    const before = current.hashes();
    const after = next.hashes();
    if (sameHashes(before, after)) return undefined;
    // owed the previous prompt, a silent step may bring the prompt closer to it, never further (a drop carried from
    // the record, before the steps that bring back the rest); else it may bring back a prompt an earlier call sent
    if (this.owed() ? this.closer(before, after) : restores) return undefined;
    // a redaction of the latest step, or a result shortened anew, is reported with the call (it is not a plan)
    if (next.editsReported()) return undefined;
    return {
      promise: 'silent-change',
      detail: `the prompt would change at message ${firstDifference(before, after)} with nothing reported`,
    };
  }

  /** A recall block the step adds or changes that is over its cap, or that a prompt took out before. */
  private newBlocks(current: CompressionPoint, next: CompressionPoint): PromiseBreak | undefined {
    const { facts, blockTokens } = this.subject;
    for (const [at, items] of next.recalls) {
      if (at < next.coveredCount || current.recalls.get(at) === items || items.length === 0) continue;
      const tokens = blockTokens(at, items);
      const cap = recallCap(facts, at);
      if (tokens > cap) {
        return {
          promise: 'recall-over-cap',
          detail: `a recall block of ${tokens} tokens before message ${at}, over its cap of ${cap}`,
        };
      }
      if (tokens > 0 && this.tookOut(blockIdentity(at, facts.prefixHashes, items))) {
        return { promise: 'recall-flip', detail: `the recall block before message ${at} would come back` };
      }
    }
    return undefined;
  }

  /** Whether an earlier prompt of this history took the block out. */
  private tookOut(block: string): boolean {
    const mark = this.subject.previous?.left.get(block);
    return mark !== undefined && extendsMark(this.subject.facts.prefixHashes, mark);
  }

  /** Whether `after` shares at least as many leading messages with the previous prompt as `before` does. */
  private closer(before: readonly number[], after: readonly number[]): boolean {
    const previous = this.subject.previous?.hashes ?? [];
    return firstDifference(previous, after) >= firstDifference(previous, before);
  }

  /** Whether prompt hashes begin with the previous prompt's (equal them, for the same history). */
  private continues(hashes: readonly number[]): boolean {
    const { previous, facts } = this.subject;
    if (!previous) return true;
    const before = previous.hashes;
    if (facts.messages.length === previous.history.length && hashes.length !== before.length) return false;
    return before.length <= hashes.length && before.every((hash, index) => hashes[index] === hash);
  }

  /** The break of stages that would end with the prompt taken over the hard limit, or further over it. */
  unsettled(start: { readonly tokens: number }, end: { readonly tokens: number }): PromiseBreak {
    const { hardLimit } = this.subject.facts.limits;
    return {
      promise: 'over-hard-limit',
      detail: `the stages took the prompt from ${start.tokens} to ${end.tokens} tokens, over the hard limit of ${hardLimit}; they end at the last point that did not`,
    };
  }

  /** The breaks of a finished prompt: continuity (when owed and nothing is reported), flips, tool pairs. */
  prompt(finished: FinishedPrompt): PromiseBreak[] {
    const breaks = this.continuity(finished.hashes, finished.announced);
    for (const block of finished.blocks) {
      if (this.tookOut(block))
        breaks.push({ promise: 'recall-flip', detail: `a recall block taken out earlier would come back (${block})` });
    }
    const options = { allowOpenCallsAtEnd: finished.openCallsAtEnd };
    const problems = findPairingProblems(finished.messages, options).filter(({ kind }) => kind !== 'empty-message');
    // the caller's own (calls at the end whose results have not all come yet) are theirs, not a break
    const own =
      problems.length > 0
        ? new Set(findPairingProblems(this.subject.facts.messages, options).map(pairingKey))
        : new Set<string>();
    for (const problem of problems) {
      if (own.has(pairingKey(problem))) continue;
      breaks.push({
        promise: 'tool-pairs',
        detail: `${problem.kind} at message ${problem.messageIndex} (tool call id "${problem.toolCallId}")`,
      });
    }
    return breaks;
  }

  /** The continuity break of a prompt (its message hashes), when the call owes it and reports nothing. */
  continuity(hashes: readonly number[], announced: boolean): PromiseBreak[] {
    const { previous } = this.subject;
    if (!previous || announced || !this.owed() || this.continues(hashes)) return [];
    const at = firstDifference(previous.hashes, hashes);
    return [
      {
        promise: 'continuity',
        detail: `message ${at} of the previous prompt (${previous.hashes.length} messages) would change with nothing reported`,
      },
    ];
  }
}

/** A pairing problem by what it is about, wherever it is in the prompt. */
function pairingKey(problem: { kind: string; toolCallId?: string }): string {
  return `${problem.kind}:${problem.toolCallId ?? ''}`;
}

/**
 * Whether two stored records say the same: the same object, or the same JSON whatever the order of keys (a store that
 * keeps text gives back what its schema parsed).
 */
function sameStoredRecord(before: StateRecord | undefined, now: StateRecord | undefined): boolean {
  if (before === now) return true;
  if (!before || !now) return false;
  return before.through === now.through && canonicalJson(before) === canonicalJson(now);
}

function sameHashes(before: readonly number[], after: readonly number[]): boolean {
  return before.length === after.length && before.every((hash, index) => after[index] === hash);
}

/** The first index at which two prompts differ (the shorter one's length when one begins the other). */
function firstDifference(before: readonly number[], after: readonly number[]): number {
  let at = 0;
  while (at < before.length && at < after.length && before[at] === after[at]) at++;
  return at;
}

export type { PromiseBreak } from '../call/stage.js';
