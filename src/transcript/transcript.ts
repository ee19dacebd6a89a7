/**
 * The engine's neutral transcript. Adapters convert their framework's prompt into it and back.
 * Every part and message keeps the framework object it came from (`original`), so an adapter can
 * hand back exactly what it received for anything the engine did not change.
 */

/** Role of a transcript message. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** Plain text written by a user or the assistant. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  /** True when the engine replaced the text; adapters then rebuild the part from `text`. */
  readonly edited?: boolean;
  readonly original?: unknown;
}

/** Model reasoning attached to an assistant message; it always stays with its message. */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly original?: unknown;
}

/** A file or image. `tokens` is the adapter's estimate, since its bytes are not text. */
export interface FilePart {
  readonly type: 'file';
  readonly mediaType: string;
  /** A stable description of the data for hashing (a URL, or a length and sample of the bytes). */
  readonly fingerprint: string;
  readonly tokens: number;
  /** The file's name when the framework carries one (not hashed: it names the data, the fingerprint is the data). */
  readonly name?: string;
  readonly original?: unknown;
}

/** A tool invocation by the assistant. */
export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  readonly original?: unknown;
}

/** The result of a tool invocation, rendered as text for counting and summarizing. */
export interface ToolResultPart {
  readonly type: 'tool-result';
  readonly callId: string;
  readonly name: string;
  readonly output: string;
  readonly isError?: boolean;
  /** True when the engine replaced the output; adapters then rebuild the part from `output`. */
  readonly edited?: boolean;
  /** How the output was replaced. */
  readonly edit?: 'masked' | 'redacted' | 'truncated';
  /**
   * The files and images the output holds (an AI SDK `content` output's file items, a LangChain tool message's image
   * and file blocks), counted as their provider counts them; `output` names each `[file]`. They leave with the output
   * when the engine replaces it (`edited`).
   */
  readonly files?: readonly FilePart[];
  readonly original?: unknown;
}

/** Anything else a framework carries (approvals, provider parts); kept as is, counted by its text. */
export interface OtherPart {
  readonly type: 'other';
  readonly text: string;
  readonly original?: unknown;
}

/** One part of a message. */
export type Part = TextPart | ReasoningPart | FilePart | ToolCallPart | ToolResultPart | OtherPart;

/** One message of the transcript. */
export interface Message {
  readonly role: Role;
  readonly parts: readonly Part[];
  /** True when any part was rewritten, so adapters rebuild the message instead of reusing the original. */
  readonly edited?: boolean;
  /** Marks the synthetic `<session_state>` pair and other engine-made messages. */
  readonly synthetic?: 'session-state' | 'recall' | 'acknowledgement' | 'awareness';
  /** The framework's message id, where it has one (LangChain, UI messages). */
  readonly id?: string;
  readonly original?: unknown;
}

/** A whole prompt: system text, tool definitions and messages. */
export interface Transcript {
  /** Leading system messages, in order. Never rewritten by the engine. */
  readonly system: readonly Message[];
  readonly messages: readonly Message[];
  /** Tool definitions as sent to the model (name, description, schema), counted as prompt tokens. */
  readonly tools: readonly unknown[];
}

/** Text of a part as the model reads it, used for counting, hashing and summarizing. */
export function partText(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'other':
      return part.text;
    case 'file':
      return `[file ${part.mediaType}]`;
    case 'tool-call':
      return `${part.name}(${stableStringify(part.args)})`;
    case 'tool-result':
      return part.output;
  }
}

/** Text of a whole message, parts joined by newlines. */
export function messageText(message: Message): string {
  return message.parts.map(partText).join('\n');
}

/** What a reference back to an enclosing object reads as in `stableStringify` and `jsonSafe`. */
export const CIRCULAR_PLACEHOLDER = '[circular]';

/**
 * JSON with sorted object keys, so equal values always give equal strings. It never throws on what a JavaScript
 * caller may put in a message: a reference back to an enclosing object reads as `CIRCULAR_PLACEHOLDER` and a BigInt
 * as its decimal string (the text is for counting, hashing and summarizing, never sent).
 */
export function stableStringify(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  // JSON.stringify's own cycle check cannot see through the sorted copies, so the path is tracked here: `holders`
  // are the objects JSON.stringify walks (the copies), `path` the caller's objects they stand for
  const holders: unknown[] = [];
  const path: unknown[] = [];
  return JSON.stringify(value, function (this: unknown, _key, inner: unknown) {
    if (typeof inner === 'bigint') return inner.toString();
    if (!inner || typeof inner !== 'object') return inner;
    while (holders.length > 0 && holders[holders.length - 1] !== this) {
      holders.pop();
      path.pop();
    }
    if (path.includes(inner)) return CIRCULAR_PLACEHOLDER;
    let holder: unknown = inner;
    if (!Array.isArray(inner) && !(inner instanceof Uint8Array)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(inner as Record<string, unknown>).sort()) {
        sorted[key] = (inner as Record<string, unknown>)[key];
      }
      holder = sorted;
    }
    holders.push(holder);
    path.push(inner);
    return holder;
  });
}

/**
 * `value` itself when `JSON.stringify` takes it (the usual case), else a plain JSON copy of it as `stableStringify`
 * reads it (cycles as `CIRCULAR_PLACEHOLDER`, BigInts as decimal strings). Adapters give it to the engine as tool call
 * arguments, so counting, hashing and every strategy read plain data; the caller's object is what goes out.
 */
export function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  try {
    JSON.stringify(value);
    return value;
  } catch {
    return JSON.parse(stableStringify(value));
  }
}

/** Tool call ids of an assistant message, in order. */
export function toolCallIds(message: Message): string[] {
  const ids: string[] = [];
  for (const part of message.parts) if (part.type === 'tool-call') ids.push(part.id);
  return ids;
}

/** Tool call ids answered by a message's tool results. */
export function toolResultIds(message: Message): string[] {
  const ids: string[] = [];
  for (const part of message.parts) if (part.type === 'tool-result') ids.push(part.callId);
  return ids;
}
