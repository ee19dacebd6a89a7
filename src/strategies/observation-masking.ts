import { DEFAULT_MESSAGE_OVERHEAD_TOKENS, type MessageMeter } from '../counting/message-meter.js';
import {
  describeToolCall,
  maskedResultPlaceholder,
  redactedResultPlaceholder,
  staleResultPlaceholder,
} from '../options/prompts.js';
import type { Message, ToolResultPart } from '../transcript/transcript.js';

/** Options of observation masking: old tool results become short placeholders, their calls stay. */
export interface MaskingOptions {
  /** Tool results kept verbatim, counted from the newest. @default 10 */
  keepRecent?: number;
  /** A masking step must free at least this many tokens, so the masked boundary moves in batches. @default 2000 */
  clearAtLeast?: number;
  /** Tools whose results are never masked or redacted. @default [] */
  excludeTools?: string[];
}

/** Defaults of observation masking. */
export const DEFAULT_MASKING_OPTIONS = Object.freeze({ keepRecent: 10, clearAtLeast: 2_000, excludeTools: [] });

/** One tool result of the transcript, where it is and what it is. */
export interface ResultSite {
  /** Identifies this result: its call id, with `#n` added for the n-th repeat of an id (some agents reuse ids). */
  readonly key: string;
  readonly callId: string;
  readonly name: string;
  readonly args: unknown;
  readonly messageIndex: number;
  readonly isError: boolean;
  readonly tokens: number;
}

/** Calls `visit` for every tool result with its key (see `ResultSite.key`), in order. */
export function forEachResult(
  messages: readonly Message[],
  visit: (part: ToolResultPart, key: string, messageIndex: number) => void,
): void {
  const seen = new Map<string, number>();
  messages.forEach((message, messageIndex) => {
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      const occurrence = seen.get(part.callId) ?? 0;
      seen.set(part.callId, occurrence + 1);
      visit(part, occurrence === 0 ? part.callId : `${part.callId}#${occurrence}`, messageIndex);
    }
  });
}

/** Every tool result of the transcript in order, with its call's name and arguments. */
export function resultSites(messages: readonly Message[], meter: MessageMeter): ResultSite[] {
  const calls = new Map<string, unknown>();
  const sites: ResultSite[] = [];
  const keys = new Map<ToolResultPart, string>();
  forEachResult(messages, (part, key) => keys.set(part, key));
  messages.forEach((message, messageIndex) => {
    for (const part of message.parts) {
      if (part.type === 'tool-call') calls.set(part.id, part.args);
      else if (part.type === 'tool-result') {
        sites.push({
          key: keys.get(part) as string,
          callId: part.callId,
          name: part.name,
          args: calls.get(part.callId),
          messageIndex,
          isError: part.isError === true,
          // a message holding one result: its output's tokens are the message's, less the framing
          tokens:
            message.parts.length === 1
              ? meter.measure(message).tokens - DEFAULT_MESSAGE_OVERHEAD_TOKENS
              : meter.countText(part.output),
        });
      }
    }
  });
  return sites;
}

/** A planned masking step: the results to mask (by `ResultSite.key`), and the tokens it frees. */
export interface MaskingStep {
  readonly keys: readonly string[];
  readonly freed: number;
  /** Index of the first message the step changes: everything from there on is a cache write. */
  readonly firstMessageIndex: number;
}

/**
 * The results this history allows to mask at all: those older than the `keepRecent` newest, not of an excluded tool
 * or the redaction tool, not of the current step (after the last assistant message), and not the latest failed
 * attempt of a tool. As a history grows a result only becomes more maskable, never less; a shorter history (a retry,
 * a fork) may allow fewer, so masks loaded from a record are filtered through this set.
 */
export function maskableKeys(
  messages: readonly Message[],
  sites: readonly ResultSite[],
  options: Required<MaskingOptions>,
  redactionToolName: string,
): Set<string> {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const laterOfTool = new Set<string>();
  const latestErrors = new Set<string>();
  for (let index = sites.length - 1; index >= 0; index--) {
    const site = sites[index] as ResultSite;
    if (site.isError && !laterOfTool.has(site.name)) latestErrors.add(site.key);
    laterOfTool.add(site.name);
  }
  const keys = new Set<string>();
  for (const site of sites.slice(0, Math.max(0, sites.length - options.keepRecent))) {
    if (site.messageIndex > lastAssistant || latestErrors.has(site.key)) continue;
    if (site.name === redactionToolName || options.excludeTools.includes(site.name)) continue;
    keys.add(site.key);
  }
  return keys;
}

/** Tokens of the fixed text of a mask placeholder: a result this small can never be masked. */
function placeholderFloor(meter: MessageMeter, keepRecent: number): number {
  return meter.countText(maskedResultPlaceholder({ call: '', tokens: 0, keepRecent }));
}

/**
 * The results one masking step may clear now: the maskable ones (see `maskableKeys`) that are not already masked or
 * redacted, not folded, and whose placeholder is shorter than the result.
 */
export function planMaskingStep({
  sites,
  covered,
  hidden,
  maskable,
  keepRecent,
  meter,
  reasons,
  worthPlanning = () => true,
  placeholderTokens,
}: {
  /** Memo of placeholder token counts by result, reason and size, shared across calls. */
  placeholderTokens?: Map<string, number>;
  sites: readonly ResultSite[];
  covered: number;
  hidden: ReadonlySet<string>;
  maskable: ReadonlySet<string>;
  keepRecent: number;
  meter: MessageMeter;
  /** Why a result is masked, when it is not simply old (staleness); changes its placeholder. */
  reasons?: ReadonlyMap<string, string>;
  /** Called with an upper bound of the step (every candidate freed whole); false skips building placeholders. */
  worthPlanning?: (bound: MaskingStep) => boolean;
}): MaskingStep {
  const floor = placeholderFloor(meter, keepRecent);
  const eligible = sites.filter(
    (site) => site.messageIndex >= covered && maskable.has(site.key) && !hidden.has(site.key) && site.tokens > floor,
  );
  const none: MaskingStep = { keys: [], freed: 0, firstMessageIndex: Number.POSITIVE_INFINITY };
  if (eligible.length === 0) return none;
  const bound: MaskingStep = {
    keys: eligible.map((site) => site.key),
    freed: eligible.reduce((sum, site) => sum + site.tokens - floor, 0),
    firstMessageIndex: eligible[0]?.messageIndex ?? Number.POSITIVE_INFINITY,
  };
  if (!worthPlanning(bound)) return none;
  const keys: string[] = [];
  let freed = 0;
  let firstMessageIndex = Number.POSITIVE_INFINITY;
  for (const site of eligible) {
    const reason = reasons?.get(site.key);
    const memoKey = `${site.key}\u0001${site.tokens}\u0001${reason ?? ''}`;
    let tokens = placeholderTokens?.get(memoKey);
    if (tokens === undefined) {
      tokens = meter.countText(maskPlaceholderFor(site, keepRecent, reason));
      placeholderTokens?.set(memoKey, tokens);
      if (placeholderTokens && placeholderTokens.size > EDITED_MESSAGE_CACHE_SIZE) {
        placeholderTokens.delete(placeholderTokens.keys().next().value as string);
      }
    }
    const saved = site.tokens - tokens;
    if (saved <= 0) continue;
    keys.push(site.key);
    freed += saved;
    firstMessageIndex = Math.min(firstMessageIndex, site.messageIndex);
  }
  return { keys, freed, firstMessageIndex };
}

const descriptions = new WeakMap<object, string>();

/** `describeToolCall`, memoized per arguments object (frameworks pass the caller's objects on from call to call). */
function describeSite(site: ResultSite): string {
  if (typeof site.args !== 'object' || site.args === null) return describeToolCall(site.name, site.args);
  let description = descriptions.get(site.args);
  if (description === undefined || !description.startsWith(`${site.name}(`)) {
    description = describeToolCall(site.name, site.args);
    descriptions.set(site.args, description);
  }
  return description;
}

/** The placeholder of a masked result: old, or stale for the given reason. */
export function maskPlaceholderFor(site: ResultSite, keepRecent: number, reason?: string): string {
  return reason === undefined
    ? maskedResultPlaceholder({ call: describeSite(site), tokens: site.tokens, keepRecent })
    : staleResultPlaceholder({ call: describeSite(site), tokens: site.tokens, reason });
}

/** What replaces a tool result: a masked or redacted placeholder. */
export interface ResultEdit {
  readonly kind: 'masked' | 'redacted';
  readonly text: string;
}

/** Builds the edits for masked and redacted results (both by `ResultSite.key`); a redaction wins over a mask. */
export function resultEdits({
  sites,
  masked,
  redactions,
  keepRecent,
  meter,
  memo,
  maskReasons,
}: {
  sites: readonly ResultSite[];
  masked: ReadonlySet<string>;
  redactions: ReadonlyMap<string, string>;
  /** Reasons of masks that were stale rather than old. */
  maskReasons?: ReadonlyMap<string, string>;
  keepRecent: number;
  meter: MessageMeter;
  /** Edits of earlier calls by result and reason, so placeholders are not rebuilt and counted on every call. */
  memo?: Map<string, ResultEdit | null>;
}): Map<string, ResultEdit> {
  const edits = new Map<string, ResultEdit>();
  for (const site of sites) {
    const reason = redactions.get(site.key);
    if (reason === undefined && !masked.has(site.key)) continue;
    const staleReason = reason === undefined ? maskReasons?.get(site.key) : undefined;
    const memoKey =
      memo &&
      `${site.key}\u0001${site.tokens}\u0001${describeSite(site)}\u0001${reason ?? ''}\u0001${staleReason ?? ''}`;
    let edit = memoKey === undefined ? undefined : memo?.get(memoKey);
    if (edit === undefined) {
      const candidate: ResultEdit =
        reason !== undefined
          ? { kind: 'redacted', text: redactedResultPlaceholder({ call: describeSite(site), reason }) }
          : { kind: 'masked', text: maskPlaceholderFor(site, keepRecent, staleReason) };
      // a placeholder is never longer than what it replaces
      edit = meter.countText(candidate.text) < site.tokens ? candidate : null;
      if (memo && memoKey !== undefined) {
        memo.set(memoKey, edit);
        if (memo.size > EDITED_MESSAGE_CACHE_SIZE) memo.delete(memo.keys().next().value as string);
      }
    }
    if (edit) edits.set(site.key, edit);
  }
  return edits;
}

/**
 * Replaces the outputs of edited tool results (keyed by `ResultSite.key`) from `from` on. Messages without an edited
 * result are returned as the same objects; the call parts are never touched, so ids, names, arguments and pairing
 * stay. `cache` (keyed by a message's content hash and its edits) hands back the same edited objects on later calls,
 * so they are not rebuilt and measured again; two messages that differ only in provider options share an entry.
 */
export function applyResultEdits(
  messages: readonly Message[],
  edits: ReadonlyMap<string, ResultEdit>,
  from = 0,
  cache?: { key: (message: Message, edits: readonly ResultEdit[]) => string; map: Map<string, Message> },
): Message[] {
  if (edits.size === 0) return [...messages];
  const replaced = new Map<ToolResultPart, ResultEdit>();
  forEachResult(messages, (part, key, messageIndex) => {
    const edit = messageIndex >= from ? edits.get(key) : undefined;
    if (edit) replaced.set(part, edit);
  });
  return messages.map((message) => {
    if (!message.parts.some((part) => part.type === 'tool-result' && replaced.has(part))) return message;
    const applied = message.parts.flatMap((part) => (part.type === 'tool-result' ? (replaced.get(part) ?? []) : []));
    const cacheKey = cache?.key(message, applied);
    const cached = cacheKey === undefined ? undefined : cache?.map.get(cacheKey);
    if (cached) return cached;
    const parts = message.parts.map((part) => {
      const edit = part.type === 'tool-result' ? replaced.get(part) : undefined;
      if (!edit) return part;
      return { ...(part as ToolResultPart), output: edit.text, edited: true, edit: edit.kind } satisfies ToolResultPart;
    });
    const edited: Message = { ...message, parts, edited: true };
    if (cacheKey !== undefined && cache) {
      cache.map.set(cacheKey, edited);
      if (cache.map.size > EDITED_MESSAGE_CACHE_SIZE) cache.map.delete(cache.map.keys().next().value as string);
    }
    return edited;
  });
}

/** Edited messages kept for reuse across calls. */
export const EDITED_MESSAGE_CACHE_SIZE = 20_000;
