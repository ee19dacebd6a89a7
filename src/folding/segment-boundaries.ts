import { LRUCache } from 'lru-cache';
import type { StepSignals } from '../signals/step-signals.js';
import type { Message } from '../transcript/transcript.js';
import {
  type Boundary,
  type BoundaryScan,
  boundariesOf,
  EMPTY_BOUNDARY_SCAN,
  type SemanticTriggerSettings,
  scanBoundaries,
} from './semantic-triggers.js';

/** Whether a result of one of the first `count` steps is at or after `through`: it would change a scanned step. */
function resultArrivedAfter(steps: readonly StepSignals[], count: number, through: number): boolean {
  for (let index = 0; index < count; index++) {
    for (const result of (steps[index] as StepSignals).resultIndexes) if (result >= through) return true;
  }
  return false;
}

/** A stored scan and the prefix of the history it read. */
interface Checkpoint {
  readonly scan: BoundaryScan;
  /** Messages the scanned steps read (their assistant messages and results all come before it). */
  readonly through: number;
  /** Hash of the first `through` messages, to tell a continuation from a fork. */
  readonly hash: number;
}

/**
 * `findBoundaries` per conversation, resumed from the scan of the previous call when the history continues it: the
 * scan of every step but the last (which may still get results) is stored with the hash of the messages it read, so a
 * call that adds a step scans one or two steps. Equal to `findBoundaries` of the whole history.
 */
export class SegmentBoundaries {
  private readonly checkpoints: LRUCache<string, Checkpoint>;

  constructor(maxConversations = 1_000) {
    this.checkpoints = new LRUCache({ max: maxConversations });
  }

  find({
    conversation,
    messages,
    steps,
    prefixHashes,
    options,
  }: {
    conversation: string;
    messages: readonly Message[];
    steps: readonly StepSignals[];
    /** `prefixHashes[k]` is the hash of the first k messages. */
    prefixHashes: readonly number[];
    options: SemanticTriggerSettings;
  }): Boundary[] {
    const stored = this.checkpoints.get(conversation);
    const resumable =
      stored !== undefined &&
      stored.scan.count < steps.length &&
      stored.through <= messages.length &&
      prefixHashes[stored.through] === stored.hash &&
      !resultArrivedAfter(steps, stored.scan.count, stored.through);
    const from = resumable ? stored.scan : EMPTY_BOUNDARY_SCAN;
    const finished = Math.max(from.count, steps.length - 1);
    const scan = scanBoundaries(messages, steps, from, finished, options);
    const through = steps[finished]?.messageIndex ?? messages.length;
    // only a scan whose steps read nothing at or after `through` can be continued by a longer history
    const readAfter = steps
      .slice(from.count, finished)
      .some((step) => step.resultIndexes.some((index) => index >= through) || step.messageIndex >= through);
    if (finished > from.count && !readAfter) {
      this.checkpoints.set(conversation, { scan, through, hash: prefixHashes[through] as number });
    }
    return boundariesOf(scanBoundaries(messages, steps, scan, steps.length, options), steps);
  }
}
