import type { MessageMeter } from './message-meter.js';
import { describeToolCall, maskedResultPlaceholder, redactedResultPlaceholder } from './prompts.js';
import type { Message, ToolResultPart } from './transcript.js';

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
          tokens: meter.countText(part.output),
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
 * The results one masking step may clear now: those older than the `keepRecent` newest, not of an excluded tool, not
 * of the current step (after the last assistant message), not the latest failed attempt of a tool, not already
 * masked or redacted, not folded, and whose placeholder is shorter than the result.
 */
export function planMaskingStep({
  messages,
  sites,
  covered,
  hidden,
  options,
  redactionToolName,
  meter,
}: {
  messages: readonly Message[];
  sites: readonly ResultSite[];
  covered: number;
  hidden: ReadonlySet<string>;
  options: Required<MaskingOptions>;
  redactionToolName: string;
  meter: MessageMeter;
}): MaskingStep {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const laterOfTool = new Set<string>();
  const latestErrors = new Set<string>();
  for (let index = sites.length - 1; index >= 0; index--) {
    const site = sites[index] as ResultSite;
    if (site.isError && !laterOfTool.has(site.name)) latestErrors.add(site.key);
    laterOfTool.add(site.name);
  }
  const keys: string[] = [];
  let freed = 0;
  let firstMessageIndex = messages.length;
  for (const site of sites.slice(0, Math.max(0, sites.length - options.keepRecent))) {
    if (site.messageIndex < covered || site.messageIndex > lastAssistant || hidden.has(site.key)) continue;
    if (site.name === redactionToolName || options.excludeTools.includes(site.name) || latestErrors.has(site.key)) {
      continue;
    }
    const saved = site.tokens - meter.countText(maskPlaceholderFor(site, options.keepRecent));
    if (saved <= 0) continue;
    keys.push(site.key);
    freed += saved;
    firstMessageIndex = Math.min(firstMessageIndex, site.messageIndex);
  }
  return { keys, freed, firstMessageIndex };
}

/** The placeholder of a masked result. */
export function maskPlaceholderFor(site: ResultSite, keepRecent: number): string {
  return maskedResultPlaceholder({ call: describeToolCall(site.name, site.args), tokens: site.tokens, keepRecent });
}

/** What replaces a tool result: a masked or redacted placeholder. */
export interface ResultEdit {
  readonly kind: 'masked' | 'redacted';
  readonly text: string;
}

/** Builds the edits for masked (by key) and redacted (by call id) results; a redaction wins over a mask. */
export function resultEdits({
  sites,
  masked,
  redactions,
  keepRecent,
  meter,
}: {
  sites: readonly ResultSite[];
  masked: ReadonlySet<string>;
  redactions: ReadonlyMap<string, string>;
  keepRecent: number;
  meter: MessageMeter;
}): Map<string, ResultEdit> {
  const edits = new Map<string, ResultEdit>();
  for (const site of sites) {
    const reason = redactions.get(site.callId);
    const edit: ResultEdit | undefined =
      reason !== undefined
        ? {
            kind: 'redacted',
            text: redactedResultPlaceholder({ call: describeToolCall(site.name, site.args), reason }),
          }
        : masked.has(site.key)
          ? { kind: 'masked', text: maskPlaceholderFor(site, keepRecent) }
          : undefined;
    // a placeholder is never longer than what it replaces
    if (edit && meter.countText(edit.text) < site.tokens) edits.set(site.key, edit);
  }
  return edits;
}

/**
 * Replaces the outputs of edited tool results (keyed by `ResultSite.key`) from `from` on. Messages without an edited
 * result are returned as the same objects; the call parts are never touched, so ids, names, arguments and pairing
 * stay.
 */
export function applyResultEdits(
  messages: readonly Message[],
  edits: ReadonlyMap<string, ResultEdit>,
  from = 0,
): Message[] {
  if (edits.size === 0) return [...messages];
  const replaced = new Map<ToolResultPart, ResultEdit>();
  forEachResult(messages, (part, key, messageIndex) => {
    const edit = messageIndex >= from ? edits.get(key) : undefined;
    if (edit) replaced.set(part, edit);
  });
  return messages.map((message) => {
    if (!message.parts.some((part) => part.type === 'tool-result' && replaced.has(part))) return message;
    const parts = message.parts.map((part) => {
      const edit = part.type === 'tool-result' ? replaced.get(part) : undefined;
      if (!edit) return part;
      return { ...(part as ToolResultPart), output: edit.text, edited: true, edit: edit.kind } satisfies ToolResultPart;
    });
    return { ...message, parts, edited: true };
  });
}
