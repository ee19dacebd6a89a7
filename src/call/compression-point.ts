import type { StateRecord } from '../persistence/state-records.js';
import type { SessionState } from '../session-state/session-state.js';
import type { CallFacts } from './call-facts.js';

/**
 * Where a conversation's compression stands: how many leading messages left the prompt, the state that replaces
 * them, and the masked tool results. A value: each stage that changes it returns a new one, and the engine stores
 * the last one of a call.
 */
export interface CompressionPoint {
  /** How many leading messages left the prompt (folded or dropped). */
  readonly coveredCount: number;
  readonly state: SessionState | undefined;
  /** Messages dropped without a summary, all calls together. */
  readonly droppedCount: number;
  /** Keys (`ResultSite.key`) of the masked tool results, in the order they were masked. */
  readonly masked: ReadonlySet<string>;
  /** Why a masked result was masked when it was stale rather than old, by key. */
  readonly maskReasons: ReadonlyMap<string, string>;
  /** The history length a staleness decision looked at (later steps may supersede a result); 0 when none. */
  readonly staleThrough: number;
  /** The `through` of the record this call started from: the record it stores never goes below it. */
  readonly minThrough: number;
  /**
   * Recall blocks chosen so far, by the index of the user message each one precedes: the ids (`message:chunk`) of the
   * recalled chunks, possibly none. A block leaves the prompt with its user message.
   */
  readonly recalls: ReadonlyMap<number, readonly string[]>;
}

/**
 * The point a call starts from: the stored record found for its history, or nothing compressed yet, with the recall
 * blocks it keeps and the `choices` stored for the latest user messages.
 */
export function startingPoint(
  facts: CallFacts,
  stored: StateRecord | undefined,
  choices: ReadonlyMap<number, readonly string[]> = new Map(),
): CompressionPoint {
  const covered = stored?.coveredCount ?? 0;
  return {
    coveredCount: covered,
    state: stored?.state,
    droppedCount: stored?.droppedCount ?? 0,
    // a record found for a longer history may mask results this one does not allow (a retry, a fork)
    masked: new Set(stored?.masked.filter((key) => facts.maskable.has(key) || stored.maskReasons?.[key] !== undefined)),
    maskReasons: new Map(Object.entries(stored?.maskReasons ?? {})),
    staleThrough: stored?.maskReasons ? stored.through : 0,
    minThrough: stored?.through ?? 0,
    recalls: new Map(
      [...(stored?.recalls ?? []), ...choices].filter(([at]) => at >= covered && facts.messages[at]?.role === 'user'),
    ),
  };
}
