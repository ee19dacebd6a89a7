import type { CallFacts } from '../call/call-facts.js';
import { StoreError, ToolPairingError } from '../errors.js';
import type { StateRecord } from '../persistence/state-records.js';
import type { CompressionErrorEvent } from '../reports/events.js';
import { type PairingScans, repairToolPairs } from '../transcript/repair-tool-pairs.js';
import type { CompressInput } from './compress-call.js';

/**
 * The call with the tool parts a provider would reject left out (results without their call, calls never answered
 * before the history goes on), reported through `onError`; the same input when the history is sound (with `scans`,
 * a resent history is read from where its previous call's scan stopped).
 */
export function pairedInput(
  input: CompressInput,
  onError: (event: CompressionErrorEvent) => void,
  scans?: PairingScans,
): CompressInput {
  if (scans?.isSound(input.transcript.messages)) return input;
  const { messages, issues } = repairToolPairs(input.transcript.messages);
  if (issues.length === 0) return input;
  onError({ error: new ToolPairingError({ issues }), fallback: 'left-out-unpaired' });
  return { ...input, transcript: { ...input.transcript, messages } };
}

/**
 * A stored record, when it fits the history it was found for: its fold point never separates a tool call from its
 * result (a record of another format or a store that mixed values up), nor covers more than it speaks of. Otherwise
 * reported, and the call starts from nothing stored.
 */
export function checkedRecord(
  record: StateRecord,
  facts: CallFacts,
  onError: (event: CompressionErrorEvent) => void,
): StateRecord | undefined {
  const { coveredCount, through, droppedCount, provisional } = record;
  const problem =
    coveredCount > through || droppedCount > coveredCount
      ? `it covers ${coveredCount} messages (${droppedCount} dropped) of the ${through} it speaks of`
      : coveredCount > 0 && !facts.cuts.has(coveredCount)
        ? `its fold point at message ${coveredCount} would separate a tool call from its result`
        : provisional &&
            (provisional.coveredCount <= coveredCount ||
              provisional.coveredCount > through ||
              provisional.droppedCount - droppedCount !== provisional.coveredCount - coveredCount)
          ? `its drop to message ${provisional.coveredCount} does not follow its fold point at ${coveredCount}`
          : undefined;
  if (!problem) {
    // a provisional drop that would split this history's tool pairs (or leave nothing) does not apply to it; the
    // record's lasting point does
    if (provisional && !facts.cuts.has(provisional.coveredCount)) {
      const { provisional: _, ...lasting } = record;
      return lasting;
    }
    return record;
  }
  onError({
    error: new StoreError({
      operation: 'get',
      reason: 'invalid-record',
      detail: `the record does not fit: ${problem}`,
    }),
    fallback: 'without-store',
  });
  return undefined;
}
