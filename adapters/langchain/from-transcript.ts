import {
  AIMessage,
  type BaseMessage,
  type ContentBlock,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { type Message, messageText, type ToolResultPart } from '../../src/transcript/transcript.js';

/**
 * Where the awareness block goes. `system`: appended to the last leading system message (one system message, as
 * Gemini and others require), the same bytes on every call. `state`: at the head of the `<session_state>` message,
 * so the caller's system message is sent byte-identical (the `createAgent` middleware's contract); before the first
 * compression there is no state and no block.
 */
export type AwarenessPlacement = 'system' | 'state';

function appendToSystem(message: BaseMessage | undefined, text: string): SystemMessage {
  if (!message) return new SystemMessage(text);
  const { content } = message;
  const merged =
    typeof content === 'string'
      ? content === ''
        ? text
        : `${content}\n\n${text}`
      : [...content, { type: 'text' as const, text }];
  return new SystemMessage({
    content: merged as SystemMessage['content'],
    ...(message.id ? { id: message.id } : {}),
    ...(message.name ? { name: message.name } : {}),
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

function rebuildToolMessage(part: ToolResultPart): ToolMessage {
  const original = part.original as ToolMessage | undefined;
  return new ToolMessage({
    content: part.output,
    tool_call_id: part.callId,
    name: original?.name ?? part.name,
    status: part.isError ? 'error' : (original?.status ?? 'success'),
    ...(original?.id ? { id: original.id } : {}),
    ...(original?.artifact !== undefined ? { artifact: original.artifact } : {}),
    additional_kwargs: original?.additional_kwargs ?? {},
    response_metadata: original?.response_metadata ?? {},
  });
}

/** The ToolMessages of a (grouped) tool message: the caller's own, or rebuilt where a result was edited. */
function fromToolMessage(message: Message): BaseMessage[] {
  if (!message.edited && Array.isArray(message.original)) return message.original as BaseMessage[];
  return message.parts.map((part) => {
    if (part.type !== 'tool-result') throw new Error('context-compression: a tool message holds a non-result part');
    return part.edited || !part.original ? rebuildToolMessage(part) : (part.original as BaseMessage);
  });
}

/** Blocks of an AI message's content that repeat one of its tool calls, by the call's id. */
const TOOL_CALL_BLOCKS = new Set(['tool_use', 'tool_call', 'function_call']);

/**
 * The caller's AIMessage with only some of its tool calls (the others had no result and were left out of the prompt):
 * every field kept, the calls and the content blocks repeating them filtered.
 */
function withSomeToolCalls(message: Message): AIMessage | undefined {
  const original = message.original;
  if (!AIMessage.isInstance(original) || message.parts.some((part) => part.type === 'text' && part.edited))
    return undefined;
  const kept = new Set(message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.id] : [])));
  const content = Array.isArray(original.content)
    ? original.content.filter((block) => {
        const item = block as { type?: unknown; id?: unknown };
        return !TOOL_CALL_BLOCKS.has(String(item.type)) || typeof item.id !== 'string' || kept.has(item.id);
      })
    : original.content;
  return new AIMessage({
    content: content as AIMessage['content'],
    tool_calls: (original.tool_calls ?? []).filter((call) => kept.has(call.id ?? '')),
    ...(original.id ? { id: original.id } : {}),
    ...(original.name ? { name: original.name } : {}),
    // OpenAI's converter falls back to the raw calls of `additional_kwargs` when `tool_calls` is empty
    additional_kwargs: Array.isArray(original.additional_kwargs?.tool_calls)
      ? {
          ...original.additional_kwargs,
          tool_calls: original.additional_kwargs.tool_calls.filter((call) => kept.has(call.id)),
        }
      : original.additional_kwargs,
    response_metadata: original.response_metadata,
    ...(original.usage_metadata ? { usage_metadata: original.usage_metadata } : {}),
  });
}

function fromMessage(message: Message, prefix?: string): BaseMessage[] {
  if (message.role === 'tool') return fromToolMessage(message);
  if (!message.edited && message.original && !prefix) return [message.original as BaseMessage];
  const partial = message.role === 'assistant' && !prefix ? withSomeToolCalls(message) : undefined;
  if (partial) return [partial];
  if (message.synthetic === 'recall') return [recallMessage(message)];
  const text = messageText(message);
  if (message.role === 'assistant') return [new AIMessage(text)];
  if (message.role === 'system') return [new SystemMessage(text)];
  return [new HumanMessage(prefix ? `${prefix}\n\n${text}` : text)];
}

/** A recall block: its quoted text, then the files it brings back as the caller's own content blocks. */
function recallMessage(message: Message): HumanMessage {
  const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const files = message.parts.flatMap((part) => (part.type === 'file' && part.original ? [part.original] : []));
  if (files.length === 0) return new HumanMessage(text);
  return new HumanMessage({ content: [{ type: 'text', text }, ...(files as ContentBlock[])] });
}

/**
 * Where a converted prompt stays the same from call to call (indexes into its messages): the last system message,
 * the acknowledgement that ends the `<session_state>` pair, the message before the recall pair. Undefined where the
 * prompt has none.
 */
export interface StablePoints {
  readonly systemEnd: number | undefined;
  readonly stateEnd: number | undefined;
  readonly beforeRecall: number | undefined;
}

/**
 * Converts the engine's output back into LangChain messages. Untouched messages are the caller's own objects (ids,
 * `additional_kwargs`, `response_metadata` and all); the `<session_state>` pair becomes a HumanMessage and an
 * AIMessage; an edited tool result becomes a new ToolMessage with the same id, call id, name, status and artifact.
 */
export function fromTranscript(
  system: readonly Message[],
  messages: readonly Message[],
  awareness: AwarenessPlacement = 'system',
): BaseMessage[] {
  return convertTranscript(system, messages, awareness).messages;
}

/** `fromTranscript`, with the points where the converted prompt stays the same from call to call. */
export function convertTranscript(
  system: readonly Message[],
  messages: readonly Message[],
  awareness: AwarenessPlacement = 'system',
): { messages: BaseMessage[]; points: StablePoints } {
  const own = system.filter((message) => message.synthetic !== 'awareness');
  const block = system.find((message) => message.synthetic === 'awareness');
  const out = own.flatMap((message) => fromMessage(message));
  if (block && awareness === 'system') {
    const last = out.pop();
    out.push(appendToSystem(last, messageText(block)));
  }
  const systemEnd = out.length > 0 ? out.length - 1 : undefined;
  let stateEnd: number | undefined;
  let beforeRecall: number | undefined;
  const prefix = block && awareness === 'state' ? messageText(block) : undefined;
  for (const [index, message] of messages.entries()) {
    if (message.synthetic === 'recall' && beforeRecall === undefined && out.length > 0) beforeRecall = out.length - 1;
    out.push(...fromMessage(message, message.synthetic === 'session-state' ? prefix : undefined));
    // the pair is the state message and the acknowledgement after it
    if (index === 1 && messages[0]?.synthetic === 'session-state') stateEnd = out.length - 1;
  }
  return { messages: out, points: { systemEnd, stateEnd, beforeRecall } };
}
