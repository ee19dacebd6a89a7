import type { ToolPairingIssue } from '../errors.js';
import type { Message, Part } from './transcript.js';

/** A history with its unpaired tool parts left out, and what was left out. */
export interface RepairedHistory {
  /** The caller's messages where nothing was wrong (the same array then); edited copies where parts left. */
  readonly messages: readonly Message[];
  readonly issues: readonly ToolPairingIssue[];
}

/**
 * Leaves out the tool parts a provider would reject and the engine could not fold around: a result whose call is not
 * in an earlier message (`orphan-result`, or `result-before-call` when the call comes later), a second result for one
 * call (`duplicate-result`), and a call with no result although the history goes on after it with a user or assistant
 * message (`call-without-result`). Calls of the last user or assistant message still waiting for their results are a
 * loop in progress and stay. Ids may repeat across a conversation: each result answers the oldest open call of its id.
 * A message left without parts is left out; the others are copies marked `edited`, so adapters rebuild them from
 * the caller's remaining parts. One pass without allocation when the history is sound (the usual case).
 */
export function repairToolPairs(messages: readonly Message[]): RepairedHistory {
  const issues: ToolPairingIssue[] = [];
  const removed = new Set<Part>();
  /** Open calls by id: the message index and part of each, oldest first. */
  const open = new Map<string, { messageIndex: number; part: Part }[]>();
  const answered = new Set<string>();
  let firstCall: Map<string, number> | undefined;
  let lastTurn = -1;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role === 'user' || message.role === 'assistant') lastTurn = index;
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        const calls = open.get(part.id);
        if (calls) calls.push({ messageIndex: index, part });
        else open.set(part.id, [{ messageIndex: index, part }]);
      } else if (part.type === 'tool-result') {
        const calls = open.get(part.callId);
        if (calls && calls.length > 0) {
          calls.shift();
          answered.add(part.callId);
          continue;
        }
        firstCall ??= firstCallIndexes(messages);
        const kind = answered.has(part.callId)
          ? 'duplicate-result'
          : (firstCall.get(part.callId) ?? -1) > index
            ? 'result-before-call'
            : 'orphan-result';
        issues.push({ kind, messageIndex: index, toolCallId: part.callId });
        removed.add(part);
      }
    }
  }
  for (const [toolCallId, calls] of open) {
    for (const { messageIndex, part } of calls) {
      if (messageIndex >= lastTurn) continue;
      issues.push({ kind: 'call-without-result', messageIndex, toolCallId });
      removed.add(part);
    }
  }
  if (issues.length === 0) return { messages, issues };
  issues.sort((a, b) => a.messageIndex - b.messageIndex);
  const repaired: Message[] = [];
  for (const message of messages) {
    if (!message.parts.some((part) => removed.has(part))) {
      repaired.push(message);
      continue;
    }
    const parts = message.parts.filter((part) => !removed.has(part));
    if (parts.length > 0) repaired.push({ ...message, parts, edited: true });
  }
  return { messages: repaired, issues };
}

function firstCallIndexes(messages: readonly Message[]): Map<string, number> {
  const first = new Map<string, number>();
  messages.forEach((message, index) => {
    for (const part of message.parts) if (part.type === 'tool-call' && !first.has(part.id)) first.set(part.id, index);
  });
  return first;
}
