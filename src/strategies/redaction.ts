import { z } from 'zod';
import { forEachResult } from '../masking/observation-masking.js';
import type { RedactionRules } from '../options/engine-settings.js';
import { DEFAULT_REDACTION_TOOL_NAME } from '../options/prompts.js';
import type { RedactionToolOptionsSchema } from '../options/tool-options.js';
import type { Message } from '../transcript/transcript.js';

export type { RedactionRules } from '../options/engine-settings.js';
export { DEFAULT_REDACTION_TOOL_NAME } from '../options/prompts.js';

/** Longest reason accepted, in characters: one to three sentences. */
export const MAX_REDACTION_REASON_CHARS = 500;

/** Most tool results one directive may name. */
export const MAX_REDACTION_IDS = 100;

/**
 * The description of the `toolCallIds` argument. Compression recognizes the redaction tool among a call's tools by
 * it, under whatever name the tool is registered.
 */
export const REDACTION_IDS_DESCRIPTION = `Ids of earlier tool calls whose results are no longer needed (1 to ${MAX_REDACTION_IDS}).`;

/** What the model sends to the redaction tool. */
export const RedactionInputSchema = z.object({
  toolCallIds: z.array(z.string()).describe(REDACTION_IDS_DESCRIPTION),
  reason: z
    .string()
    .describe(
      `One to three sentences: why these results are no longer needed (at most ${MAX_REDACTION_REASON_CHARS} characters).`,
    ),
});

/** A redaction directive as the model sent it. */
export type RedactionInput = z.infer<typeof RedactionInputSchema>;

/** Why an id of a directive was not accepted. */
export interface RejectedRedaction {
  readonly toolCallId: string;
  readonly reason: string;
}

/** The answer of the redaction tool, and what the middleware replays. */
export interface RedactionOutcome {
  readonly accepted: readonly string[];
  readonly rejected: readonly RejectedRedaction[];
  /** The model's reason, trimmed; empty when the whole directive was rejected. */
  readonly reason: string;
  /** A sentence for the model: what happened and what to fix. */
  readonly message: string;
}

/** What the redaction tool tells the model: when to use it, and what it may not redact. */
export const DEFAULT_REDACTION_TOOL_DESCRIPTION = `Frees context by hiding results of earlier tool calls that you no longer need: file contents you have already used or that are outdated (the file changed since), superseded test or command output, search results you have acted on, dead ends. Pass their tool call ids and a one to three sentence reason; each result is replaced by your reason from the next step on, while the calls themselves stay visible. Call it alongside your other tool calls, whenever you notice stale results; it does not interrupt your work. Only results of earlier steps can be redacted: not results of the calls you are making now, not user or system messages, and not results you still rely on. Repeating a redaction is harmless.`;

/**
 * Checks a directive against the messages before it: every id must be an earlier tool call that has a result, is not
 * a redaction itself and is not of an excluded tool; user and system content can never be redacted. Deterministic,
 * so the middleware replays exactly what the tool accepted.
 */
export function validateRedaction(
  messages: readonly Message[],
  input: unknown,
  rules: RedactionRules = {},
): RedactionOutcome {
  const toolName = rules.toolName ?? DEFAULT_REDACTION_TOOL_NAME;
  const parsed = RedactionInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return reject([], `The directive is invalid: ${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}.`);
  }
  const ids = [...new Set(parsed.data.toolCallIds)];
  if (ids.length === 0 || ids.length > MAX_REDACTION_IDS) {
    return reject(
      ids.slice(0, MAX_REDACTION_IDS),
      `Name 1 to ${MAX_REDACTION_IDS} tool call ids (got ${ids.length}); nothing was redacted.`,
    );
  }
  const reason = parsed.data.reason.trim();
  if (reason.length === 0 || reason.length > MAX_REDACTION_REASON_CHARS) {
    return reject(
      parsed.data.toolCallIds,
      `The reason must be one to three sentences of 1 to ${MAX_REDACTION_REASON_CHARS} characters (got ${reason.length}); nothing was redacted.`,
    );
  }
  const calls = new Map<string, string>();
  const results = new Set<string>();
  const messageIds = new Map<string, string>();
  for (const message of messages) {
    if (message.id) messageIds.set(message.id, message.role);
    for (const part of message.parts) {
      if (part.type === 'tool-call') calls.set(part.id, part.name);
      else if (part.type === 'tool-result') results.add(part.callId);
    }
  }
  const accepted: string[] = [];
  const rejected: RejectedRedaction[] = [];
  for (const id of ids) {
    const name = calls.get(id);
    const why =
      name === undefined
        ? messageIds.has(id)
          ? `it is ${messageIds.get(id) === 'assistant' ? 'an' : 'a'} ${messageIds.get(id)} message; only tool results can be redacted`
          : 'no earlier tool call has this id (results of the current step cannot be redacted yet)'
        : !results.has(id)
          ? 'this tool call has no result yet'
          : name === toolName
            ? 'redaction directives cannot be redacted'
            : rules.excludeTools?.includes(name)
              ? `results of ${name} are protected`
              : undefined;
    if (why) rejected.push({ toolCallId: id, reason: why });
    else accepted.push(id);
  }
  const parts = [
    `Redacted ${accepted.length} tool result${accepted.length === 1 ? '' : 's'}${accepted.length ? ` (${accepted.join(', ')})` : ''}.`,
  ];
  if (rejected.length > 0) {
    parts.push(`Rejected: ${rejected.map((entry) => `${entry.toolCallId} (${entry.reason})`).join('; ')}.`);
  }
  return { accepted, rejected, reason, message: parts.join(' ') };
}

/** Options every adapter's redaction tool takes. */
export type RedactionToolOptions = z.input<typeof RedactionToolOptionsSchema>;

/** What a redaction tool answers the model. */
export interface RedactionToolOutput {
  accepted: string[];
  rejected: RejectedRedaction[];
  message: string;
}

/** The redaction tool's answer to a directive, checked against the messages before it. */
export function redactionAnswer(
  messages: readonly Message[],
  input: unknown,
  rules: RedactionRules = {},
): RedactionToolOutput {
  const outcome = validateRedaction(messages, input, rules);
  return { accepted: [...outcome.accepted], rejected: [...outcome.rejected], message: outcome.message };
}

function reject(ids: readonly string[], message: string): RedactionOutcome {
  return { accepted: [], rejected: ids.map((toolCallId) => ({ toolCallId, reason: message })), reason: '', message };
}

/** Redactions replayed from a conversation: results by key (see `ResultSite.key`), and which are new. */
export interface ReplayedRedactions {
  /** The redacted results, by key, with the model's reason; the latest reason wins. */
  readonly reasons: Map<string, string>;
  /** Keys redacted by directives of the latest step (whose results come after the last assistant message). */
  readonly latest: Set<string>;
}

/**
 * Finds every redaction directive in a conversation (a call of the redaction tool that has its result, so it was
 * executed) and replays it against the messages before it. Each accepted id stands for the results with that id
 * before the directive, never for a later call that reused the id. No server state: the directives live in the
 * conversation itself.
 */
export function collectRedactions(messages: readonly Message[], rules: RedactionRules = {}): ReplayedRedactions {
  const toolName = rules.toolName ?? DEFAULT_REDACTION_TOOL_NAME;
  const executed = new Map<string, number>();
  for (const [index, message] of messages.entries()) {
    for (const part of message.parts)
      if (part.type === 'tool-result' && part.name === toolName) executed.set(part.callId, index);
  }
  const replayed: ReplayedRedactions = { reasons: new Map(), latest: new Set() };
  if (executed.size === 0) return replayed;
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const keysById = new Map<string, Array<{ key: string; messageIndex: number }>>();
  forEachResult(messages, (part, key, messageIndex) => {
    const keys = keysById.get(part.callId) ?? [];
    keys.push({ key, messageIndex });
    keysById.set(part.callId, keys);
  });
  messages.forEach((message, index) => {
    for (const part of message.parts) {
      const resultIndex = part.type === 'tool-call' && part.name === toolName ? executed.get(part.id) : undefined;
      if (part.type !== 'tool-call' || resultIndex === undefined) continue;
      const outcome = validateRedaction(messages.slice(0, index), part.args, rules);
      for (const id of outcome.accepted) {
        for (const { key, messageIndex } of keysById.get(id) ?? []) {
          if (messageIndex >= index) continue;
          replayed.reasons.set(key, outcome.reason);
          if (resultIndex > lastAssistant) replayed.latest.add(key);
        }
      }
    }
  });
  return replayed;
}
