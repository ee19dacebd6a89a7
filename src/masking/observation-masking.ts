import type { MessageMeter } from '../counting/message-meter.js';
import type { MaskingSettings } from '../options/compression-options.js';
import {
  describeToolCall,
  maskedResultPlaceholder,
  type RetrievalHint,
  redactedResultPlaceholder,
  staleResultPlaceholder,
} from '../options/prompts.js';
import { forEachResult, type ResultSite } from '../transcript/result-sites.js';
import type { Message, ToolResultPart } from '../transcript/transcript.js';

export {
  DEFAULT_MASKING_OPTIONS,
  type MaskingOptions,
  type MaskingSettings,
} from '../options/compression-options.js';
export { forEachResult, type ResultSite, resultSites } from '../transcript/result-sites.js';

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
  options: MaskingSettings,
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
function placeholderFloor(meter: MessageMeter, keepRecent: number, retrievalToolName: string | undefined): number {
  return meter.countText(
    maskedResultPlaceholder({
      call: '',
      tokens: 0,
      keepRecent,
      retrieval: retrievalToolName === undefined ? undefined : { toolName: retrievalToolName, callId: '' },
    }),
  );
}

/** The retrieval hint of a site's placeholder: the retrieval tool's name and the call's id; none without the tool. */
function hintFor(site: ResultSite, retrievalToolName: string | undefined): RetrievalHint | undefined {
  return retrievalToolName === undefined ? undefined : { toolName: retrievalToolName, callId: site.callId };
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
  descriptions,
  retrievalToolName,
  maxShownTokens = Number.POSITIVE_INFINITY,
}: {
  /**
   * The most tokens a result shows in the prompt: a longer one is shortened (`maxToolResultTokens`), and masking it
   * frees only what it shows. @default no limit
   */
  maxShownTokens?: number;
  /** Memo of call descriptions, kept by the engine across calls. */
  descriptions?: CallDescriptions;
  /** Memo of placeholder token counts by result, reason and size, shared across calls. */
  placeholderTokens?: Memo<number>;
  /** The retrieval tool's name when the call carries it: placeholders then name it and the call id. */
  retrievalToolName?: string | undefined;
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
  const floor = placeholderFloor(meter, keepRecent, retrievalToolName);
  const shown = (site: ResultSite) => Math.min(site.tokens, maxShownTokens);
  const eligible = sites.filter(
    (site) => site.messageIndex >= covered && maskable.has(site.key) && !hidden.has(site.key) && shown(site) > floor,
  );
  const none: MaskingStep = { keys: [], freed: 0, firstMessageIndex: Number.POSITIVE_INFINITY };
  if (eligible.length === 0) return none;
  const bound: MaskingStep = {
    keys: eligible.map((site) => site.key),
    freed: eligible.reduce((sum, site) => sum + shown(site) - floor, 0),
    firstMessageIndex: eligible[0]?.messageIndex ?? Number.POSITIVE_INFINITY,
  };
  if (!worthPlanning(bound)) return none;
  const keys: string[] = [];
  let freed = 0;
  let firstMessageIndex = Number.POSITIVE_INFINITY;
  for (const site of eligible) {
    const reason = reasons?.get(site.key);
    const memoKey = `${site.key}\u0001${site.tokens}\u0001${reason ?? ''}\u0001${retrievalToolName ?? ''}`;
    let tokens = placeholderTokens?.get(memoKey);
    if (tokens === undefined) {
      tokens = meter.countText(maskPlaceholderFor(site, keepRecent, reason, descriptions, retrievalToolName));
      placeholderTokens?.set(memoKey, tokens);
    }
    const saved = shown(site) - tokens;
    if (saved <= 0) continue;
    keys.push(site.key);
    freed += saved;
    firstMessageIndex = Math.min(firstMessageIndex, site.messageIndex);
  }
  return { keys, freed, firstMessageIndex };
}

/** Descriptions of tool calls by arguments object, kept by the engine across calls. */
export type CallDescriptions = WeakMap<object, string>;

/** `describeToolCall`, memoized per arguments object when a memo is given (the engine keeps one). */
function describeSite(site: ResultSite, descriptions: CallDescriptions | undefined): string {
  if (!descriptions || typeof site.args !== 'object' || site.args === null) {
    return describeToolCall(site.name, site.args);
  }
  let description = descriptions.get(site.args);
  if (description === undefined || !description.startsWith(`${site.name}(`)) {
    description = describeToolCall(site.name, site.args);
    descriptions.set(site.args, description);
  }
  return description;
}

/** The placeholder of a masked result: old, or stale for the given reason. */
export function maskPlaceholderFor(
  site: ResultSite,
  keepRecent: number,
  reason?: string,
  descriptions?: CallDescriptions,
  retrievalToolName?: string,
): string {
  const call = describeSite(site, descriptions);
  const retrieval = hintFor(site, retrievalToolName);
  return reason === undefined
    ? maskedResultPlaceholder({ call, tokens: site.tokens, keepRecent, retrieval })
    : staleResultPlaceholder({ call, tokens: site.tokens, reason, retrieval });
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
  descriptions,
  retrievalToolName,
}: {
  /** Memo of call descriptions, kept by the engine across calls. */
  descriptions?: CallDescriptions;
  /** The retrieval tool's name when the call carries it: placeholders then name it and the call id. */
  retrievalToolName?: string | undefined;
  sites: readonly ResultSite[];
  masked: ReadonlySet<string>;
  redactions: ReadonlyMap<string, string>;
  /** Reasons of masks that were stale rather than old. */
  maskReasons?: ReadonlyMap<string, string>;
  keepRecent: number;
  meter: MessageMeter;
  /** Edits of earlier calls by result and reason, so placeholders are not rebuilt and counted on every call. */
  memo?: Memo<ResultEdit | false>;
}): Map<string, ResultEdit> {
  const edits = new Map<string, ResultEdit>();
  for (const site of sites) {
    const reason = redactions.get(site.key);
    if (reason === undefined && !masked.has(site.key)) continue;
    const staleReason = reason === undefined ? maskReasons?.get(site.key) : undefined;
    const memoKey =
      memo &&
      `${site.key}\u0001${site.tokens}\u0001${describeSite(site, descriptions)}\u0001${reason ?? ''}\u0001${staleReason ?? ''}\u0001${retrievalToolName ?? ''}`;
    let edit = memoKey === undefined ? undefined : memo?.get(memoKey);
    if (edit === undefined) {
      const candidate: ResultEdit =
        reason !== undefined
          ? {
              kind: 'redacted',
              text: redactedResultPlaceholder({
                call: describeSite(site, descriptions),
                reason,
                retrieval: hintFor(site, retrievalToolName),
              }),
            }
          : {
              kind: 'masked',
              text: maskPlaceholderFor(site, keepRecent, staleReason, descriptions, retrievalToolName),
            };
      // a placeholder is never longer than what it replaces
      edit = meter.countText(candidate.text) < site.tokens ? candidate : false;
      if (memo && memoKey !== undefined) memo.set(memoKey, edit);
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
  cache?: { key: (message: Message, edits: readonly ResultEdit[]) => string; map: Memo<Message> },
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
    }
    return edited;
  });
}

/** Edited messages, edits and placeholder counts kept for reuse across calls (each memo's bound). */
export const EDITED_MESSAGE_CACHE_SIZE = 20_000;

/** A bounded memo by string key; the engine passes an LRU cache. */
export interface Memo<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): unknown;
}
