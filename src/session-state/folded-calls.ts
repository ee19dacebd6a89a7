import type { MessageMeter } from '../counting/message-meter.js';
import { type Message, stableStringify } from '../transcript/transcript.js';
import { escapeJsonForTag } from './render-session-state.js';
import type { SessionState } from './session-state.js';

/** Largest share of the state's bound that the list of folded tool calls may take. */
export const TOOL_CALLS_SHARE_OF_STATE = 0.15;
/** Characters of a call's arguments an entry shows: enough to tell a `cat` from a `grep`, not the whole edit. */
const ARGS_CHARS = 60;

/** The first `length` characters of a text, one fewer when the cut would split a surrogate pair. */
function cutAt(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/**
 * The entries of the tool calls in folded messages, one per call: `<call id> <tool>(<arguments, cut>)`, so a model
 * with the retrieval tool can ask for a folded result by its id. The calls of `skip` (this package's own tools) are left
 * out: their results say nothing worth retrieving.
 */
export function foldedCallEntries(span: readonly Message[], skip: ReadonlySet<string>): string[] {
  const entries: string[] = [];
  for (const message of span) {
    for (const part of message.parts) {
      if (part.type !== 'tool-call' || skip.has(part.name)) continue;
      const args = stableStringify(part.args);
      entries.push(`${part.id} ${part.name}(${args.length > ARGS_CHARS ? `${cutAt(args, ARGS_CHARS)}...` : args})`);
    }
  }
  return entries;
}

/**
 * The folded-call list after `span` leaves the prompt: the earlier list and, when the call carries the retrieval tool,
 * the span's calls (this package's own tools left out). Undefined when empty.
 */
export function nextToolCalls(
  previous: readonly string[] | undefined,
  span: readonly Message[],
  tools: { redactionToolName: string; retrievalToolName: string | undefined },
): string[] | undefined {
  const { redactionToolName, retrievalToolName } = tools;
  const added = retrievalToolName ? foldedCallEntries(span, new Set([redactionToolName, retrievalToolName])) : [];
  const list = [...(previous ?? []), ...added];
  return list.length > 0 ? list : undefined;
}

/** A state without the engine's own fields (the timeline, the folded calls and files), as summarizers get it. */
export function withoutEngineFields(state: SessionState): SessionState {
  if (state.timeline === undefined && state.toolCalls === undefined && state.files === undefined) return state;
  const { timeline: _timeline, toolCalls: _toolCalls, files: _files, ...rest } = state;
  return rest;
}

/**
 * The newest entries of an engine-kept list (folded calls, folded files) whose escaped JSON fits `maxTokens`: the
 * oldest go first.
 */
export function fitNewest(entries: readonly string[], maxTokens: number, meter: MessageMeter): string[] {
  // measured as rendered: escaped, one entry per line
  const tokens = (list: readonly string[]) => meter.countText(escapeJsonForTag(JSON.stringify(list, null, 1)));
  let kept = [...entries];
  let total = tokens(kept);
  while (kept.length > 0 && total > maxTokens) {
    // drop a share proportional to the excess (at least one), then measure again
    const count = Math.max(1, Math.ceil((kept.length * (total - maxTokens)) / total));
    kept = kept.slice(count);
    total = tokens(kept);
  }
  return kept;
}
