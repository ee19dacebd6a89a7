import { cutPointsFor } from './cut-point-index.js';
import { type Message, toolCallIds, toolResultIds } from './transcript.js';

/**
 * Indexes where the message list may be cut: everything before the index can leave the prompt without
 * separating a tool call from its result. A cut never lands on a tool message, and all calls made before it are
 * answered before it.
 */
export function cutPoints(messages: readonly Message[]): number[] {
  return [...cutPointsFor(messages).list];
}

/** One violation of the tool-pairing and message-shape invariants. */
export interface PairingProblem {
  readonly kind: 'orphan-result' | 'call-without-result' | 'empty-message' | 'result-before-call';
  readonly messageIndex: number;
  readonly toolCallId?: string;
}

/**
 * Checks a message list for orphan tool results, calls without results and empty messages: the invariant the
 * engine's fold points keep by construction, checked by the tests on every step of every fixture.
 * `allowOpenCallsAtEnd` accepts calls in the final assistant message that have no result yet.
 */
export function findPairingProblems(
  messages: readonly Message[],
  { allowOpenCallsAtEnd = false } = {},
): PairingProblem[] {
  const problems: PairingProblem[] = [];
  const open = new Map<string, number>();
  const seen = new Set<string>();
  messages.forEach((message, messageIndex) => {
    if (message.parts.length === 0) problems.push({ kind: 'empty-message', messageIndex });
    for (const id of toolCallIds(message)) {
      open.set(id, messageIndex);
      seen.add(id);
    }
    for (const id of toolResultIds(message)) {
      if (open.has(id)) open.delete(id);
      else problems.push({ kind: seen.has(id) ? 'result-before-call' : 'orphan-result', messageIndex, toolCallId: id });
    }
  });
  const lastIndex = messages.length - 1;
  for (const [toolCallId, messageIndex] of open) {
    if (allowOpenCallsAtEnd && messageIndex === lastIndex) continue;
    problems.push({ kind: 'call-without-result', messageIndex, toolCallId });
  }
  return problems;
}
