import type { ToolPairingIssue } from '../errors.js';
import { continues } from './same-message.js';
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

/** Where a soundness scan of a history stopped: the calls still open (by id, how many) and the last turn seen. */
interface PairingScan {
  readonly messages: readonly Message[];
  readonly open: ReadonlyMap<string, number>;
  readonly lastTurn: number;
}

/**
 * Whether histories need `repairToolPairs` at all, read incrementally: the scan of a conversation's last history is
 * kept under its first message object, and a history that continues it (the same message objects first, as the
 * adapters pass a resent history) is read from where that scan stopped. Sound means `repairToolPairs` would leave
 * nothing out: every result answers an open call, and the calls still open are all the latest turn's.
 */
export class PairingScans {
  private readonly scans = new WeakMap<Message, PairingScan>();

  isSound(messages: readonly Message[]): boolean {
    const first = messages[0];
    if (!first) return true;
    const cached = this.scans.get(first);
    const length = cached?.messages.length ?? 0;
    const resumable = cached !== undefined && continues(cached.messages, messages);
    const open = new Map(resumable ? cached?.open : undefined);
    let lastTurn = resumable ? (cached?.lastTurn ?? -1) : -1;
    for (let index = resumable ? length : 0; index < messages.length; index++) {
      const message = messages[index] as Message;
      if (message.role === 'user' || message.role === 'assistant') lastTurn = index;
      for (const part of message.parts) {
        if (part.type === 'tool-call') open.set(part.id, (open.get(part.id) ?? 0) + 1);
        else if (part.type === 'tool-result') {
          const calls = open.get(part.callId);
          if (!calls) {
            this.scans.delete(first);
            return false;
          }
          if (calls === 1) open.delete(part.callId);
          else open.set(part.callId, calls - 1);
        }
      }
    }
    this.scans.set(first, { messages, open, lastTurn });
    return open.size === 0 || openCallsAreTheLatestTurns(messages[lastTurn], open);
  }
}

/** Whether the open calls (each id's newest, as results answer the oldest first) are all calls of the latest turn. */
function openCallsAreTheLatestTurns(latest: Message | undefined, open: ReadonlyMap<string, number>): boolean {
  const calls = new Map<string, number>();
  for (const part of latest?.parts ?? [])
    if (part.type === 'tool-call') calls.set(part.id, (calls.get(part.id) ?? 0) + 1);
  for (const [id, count] of open) if ((calls.get(id) ?? 0) < count) return false;
  return true;
}
