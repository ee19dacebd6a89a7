import { LRUCache } from 'lru-cache';
import type { Message } from '../transcript/transcript.js';
import { createStepAnalyzer, type StepCarry, type StepMemo, startingCarry } from './step-analyzer.js';
import type { StepSignals } from './step-signals.js';

/** How many conversations a `StepAnalyses` remembers before it forgets the least recently analyzed. */
export const DEFAULT_MAX_CONVERSATIONS = 1_000;

/** Where the analysis of a conversation resumes: the steps before message `through` and the state carried there. */
interface Checkpoint {
  readonly through: number;
  /** Hash of the first `through` messages, to tell a continuation from a fork. */
  readonly hash: number;
  readonly steps: readonly StepSignals[];
  readonly carry: StepCarry;
  /**
   * The call ids of `steps`. Shared with the checkpoints that continue this one, which add theirs: an older
   * checkpoint may see more ids than its steps have, which only makes a resume from it less likely, never wrong.
   */
  readonly callIds: Set<string>;
}

/**
 * Step signals of conversations, equal to `analyzeSteps` of the whole history. The analysis of each conversation
 * stops at its last resumable step, so a call that adds one step analyzes one step. Bounded: the least recently
 * analyzed conversations are forgotten.
 */
export class StepAnalyses {
  private readonly checkpoints: LRUCache<string, Checkpoint>;
  /** The steps after each checkpoint, read again on every call until their results are all in. */
  private readonly memo: StepMemo = new WeakMap();

  constructor(maxConversations = DEFAULT_MAX_CONVERSATIONS) {
    this.checkpoints = new LRUCache({ max: maxConversations });
  }

  /**
   * The step signals of a history; `prefixHashes[k]` is the hash of its first k messages. `system` is the system
   * prompt, read for a repository root it states (the same on every call of a conversation).
   */
  analyze(
    conversation: string,
    messages: readonly Message[],
    prefixHashes: readonly number[],
    system: readonly Message[] = [],
  ): StepSignals[] {
    const resumed = this.resumable(conversation, messages, prefixHashes);
    const from = resumed?.through ?? 0;
    const analyzer = createStepAnalyzer(messages, {
      from,
      carry: resumed?.carry ?? startingCarry(system),
      memo: this.memo,
    });
    const steps = [...(resumed?.steps ?? [])];
    let next: { through: number; count: number; carry: StepCarry } | undefined;
    // every step before a checkpoint has its results before it (true of resumed steps when they were stored)
    let latestResult = -1;
    for (let index = from; index < messages.length; index++) {
      const carry = analyzer.carry;
      const step = analyzer.analyzeStep(index);
      if (!step) continue;
      // a fork may drop or change a result that comes after the checkpoint, so only steps whose results all come
      // before it may be stored; the last step always stays out, as more of its results may still arrive
      if (latestResult < index) next = { through: index, count: steps.length, carry };
      steps.push(step);
      for (const result of step.resultIndexes) latestResult = Math.max(latestResult, result);
    }
    if (next && next.through > from) {
      const callIds = resumed?.callIds ?? new Set<string>();
      for (let index = resumed?.steps.length ?? 0; index < next.count; index++) {
        for (const id of (steps[index] as StepSignals).callIds) callIds.add(id);
      }
      this.checkpoints.set(conversation, {
        through: next.through,
        hash: prefixHashes[next.through] as number,
        steps: steps.slice(0, next.count),
        carry: next.carry,
        callIds,
      });
    }
    return steps;
  }

  /** The stored checkpoint of a conversation if this history continues it and answers none of its calls again. */
  private resumable(
    conversation: string,
    messages: readonly Message[],
    prefixHashes: readonly number[],
  ): Checkpoint | undefined {
    const checkpoint = this.checkpoints.get(conversation);
    if (!checkpoint || checkpoint.through > messages.length) return undefined;
    if (prefixHashes[checkpoint.through] !== checkpoint.hash) return undefined;
    for (let index = checkpoint.through; index < messages.length; index++) {
      for (const part of (messages[index] as Message).parts) {
        if (part.type === 'tool-result' && checkpoint.callIds.has(part.callId)) return undefined;
      }
    }
    return checkpoint;
  }
}
