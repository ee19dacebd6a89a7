import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { hashBytes, hashString } from '../../src/counting/hash.js';
import { InvalidPromptError } from '../../src/errors.js';
import {
  jsonSafe,
  type Message,
  type Part,
  type Role,
  stableStringify,
  type Transcript,
} from '../../src/transcript/transcript.js';

/** Token estimate of an image, audio or file block, whose bytes are not text. */
export const DEFAULT_FILE_TOKENS = 1_000;

type Block = Record<string, unknown>;

const FILE_BLOCKS = new Set([
  'image',
  'image_url',
  'input_image',
  'audio',
  'input_audio',
  'video',
  'file',
  'input_file',
  'document',
  'media',
]);
/** Blocks of an AI message's content that repeat its `tool_calls`; the calls are counted once, from `tool_calls`. */
const TOOL_CALL_BLOCKS = new Set(['tool_use', 'tool_call', 'function_call']);

/** A fingerprint of inline data over all of it: a base64 string hashed whole, bytes (standard blocks) every byte. */
function dataFingerprint(data: unknown): string | undefined {
  if (typeof data === 'string') return `data:${data.length}:${hashString(data)}`;
  const bytes =
    data instanceof Uint8Array
      ? data
      : ArrayBuffer.isView(data)
        ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : undefined;
  return bytes ? `bytes:${bytes.length}:${hashBytes(bytes).toString(36)}` : undefined;
}

/** A message that cannot be read; `toTranscript` turns it into an InvalidPromptError with the message's index. */
class UnreadableMessage {
  constructor(
    readonly field: string,
    readonly expected: string,
    readonly value: unknown,
  ) {}
}

function fileFingerprint(block: Block): string {
  const imageUrl = block.image_url;
  const url = typeof imageUrl === 'string' ? imageUrl : ((imageUrl as Block | undefined)?.url ?? block.url);
  if (typeof url === 'string') return url.startsWith('data:') ? (dataFingerprint(url) ?? '') : `url:${url}`;
  const source = block.source as Block | undefined;
  return (
    dataFingerprint(block.data) ??
    dataFingerprint(source?.data) ??
    (typeof block.file_id === 'string' ? `ref:${block.file_id}` : undefined) ??
    (typeof block.id === 'string' ? `ref:${block.id}` : undefined) ??
    `block:${hashString(stableStringify(block))}`
  );
}

function mediaTypeOf(block: Block): string {
  const type = String(block.type);
  const declared = block.mimeType ?? block.mime_type ?? (block.source as Block | undefined)?.media_type;
  if (typeof declared === 'string') return declared;
  return type.includes('image') ? 'image/*' : type.includes('audio') ? 'audio/*' : type === 'video' ? 'video/*' : type;
}

function blockPart(block: Block, original: unknown): Part {
  const type = String(block.type);
  if (type === 'text' || type === 'input_text' || type === 'output_text')
    return { type: 'text', text: String(block.text ?? ''), original };
  if (type === 'reasoning' || type === 'thinking') {
    const text = block.reasoning ?? block.thinking ?? block.text;
    return { type: 'reasoning', text: typeof text === 'string' ? text : stableStringify(block), original };
  }
  if (type === 'text-plain' && typeof block.text === 'string')
    return {
      type: 'file',
      mediaType: 'text/plain',
      fingerprint: `text:${hashString(block.text)}`,
      tokens: Math.ceil(block.text.length / 4),
      original,
    };
  if (FILE_BLOCKS.has(type))
    return {
      type: 'file',
      mediaType: mediaTypeOf(block),
      fingerprint: fileFingerprint(block),
      tokens: DEFAULT_FILE_TOKENS,
      original,
    };
  return { type: 'other', text: stableStringify(block), original };
}

/** Text of message content as a model reads it: text blocks joined by newlines, other blocks named by type. */
export function contentText(content: BaseMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      const item = (block ?? {}) as Block;
      return item.type === 'text' && typeof item.text === 'string' ? item.text : `[${String(item.type)}]`;
    })
    .join('\n');
}

function contentParts(message: BaseMessage, skipToolCallBlocks: boolean): Part[] {
  const { content } = message;
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content, original: content }];
  // null content (a message built or changed by hand) reads as empty, as LangChain's constructors make it
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content))
    throw new UnreadableMessage('content', 'a string or an array of content blocks', content);
  const parts: Part[] = [];
  for (const [index, block] of content.entries()) {
    if (typeof block !== 'object' || block === null)
      throw new UnreadableMessage(`content[${index}]`, 'a content block object with a type', block);
    const item = block as Block;
    if (skipToolCallBlocks && TOOL_CALL_BLOCKS.has(String(item.type))) continue;
    parts.push(blockPart(item, block));
  }
  return parts;
}

function aiParts(message: BaseMessage): Part[] {
  const ai = message as BaseMessage & { tool_calls?: { id?: string; name: string; args: unknown }[] };
  const parts: Part[] = [];
  const reasoning = message.additional_kwargs?.reasoning_content;
  if (typeof reasoning === 'string' && reasoning) parts.push({ type: 'reasoning', text: reasoning });
  const calls = Array.isArray(ai.tool_calls) ? ai.tool_calls : [];
  parts.push(...contentParts(message, calls.length > 0));
  for (const [index, call] of calls.entries()) {
    if (typeof call !== 'object' || call === null)
      throw new UnreadableMessage(`tool_calls[${index}]`, 'a tool call { id, name, args }', call);
    // jsonSafe: args with a cycle or a BigInt are read as plain data; the caller's message is what is sent
    parts.push({ type: 'tool-call', id: call.id ?? '', name: call.name, args: jsonSafe(call.args), original: call });
  }
  return parts;
}

function roleOf(message: BaseMessage): Role {
  switch (message.getType()) {
    case 'system':
    case 'developer':
      return 'system';
    case 'ai':
      return 'assistant';
    case 'tool':
      return 'tool';
    case 'generic': {
      const role = (message as BaseMessage & { role?: string }).role;
      return role === 'assistant' || role === 'ai' ? 'assistant' : role === 'system' ? 'system' : 'user';
    }
    default:
      return 'user';
  }
}

interface Converted {
  readonly content: BaseMessage['content'];
  readonly message: Message;
}

/** Conversions by message object: an agent loop sends the same objects on every step. */
const converted = new WeakMap<BaseMessage, Converted>();

function toolResultPart(tool: ToolMessage, toolNames: ReadonlyMap<string, string>): Part {
  const callId = tool.tool_call_id;
  return {
    type: 'tool-result',
    callId,
    name: tool.name ?? toolNames.get(callId) ?? '',
    output: contentText(tool.content),
    isError: tool.status === 'error',
    original: tool,
  };
}

function toMessage(message: BaseMessage, toolNames: ReadonlyMap<string, string>): Message {
  const cached = converted.get(message);
  if (cached && cached.content === message.content) return cached.message;
  const role = roleOf(message);
  const parts =
    role === 'tool'
      ? [toolResultPart(message as ToolMessage, toolNames)]
      : role === 'assistant'
        ? aiParts(message)
        : contentParts(message, false);
  const result: Message = { role, parts, ...(message.id ? { id: message.id } : {}), original: message };
  // a tool message without a name of its own borrows one from the history, which may differ from call to call
  if (role !== 'tool' || (message as ToolMessage).name)
    converted.set(message, { content: message.content, message: result });
  return result;
}

/** Groups by their first ToolMessage, so a step's results are the same transcript message from call to call. */
const groups = new WeakMap<BaseMessage, { members: readonly Message[]; group: Message }>();

function toolGroup(members: readonly Message[]): Message {
  const first = members[0]?.original as BaseMessage;
  const known = groups.get(first);
  if (known?.members.length === members.length && known.members.every((member, index) => member === members[index]))
    return known.group;
  const group: Message = {
    role: 'tool',
    parts: members.flatMap((member) => member.parts),
    original: members.map((member) => member.original as BaseMessage),
  };
  groups.set(first, { members, group });
  return group;
}

/**
 * Consecutive tool messages as one transcript message with a result part each (`original` is the array of
 * ToolMessages, each part's `original` its ToolMessage): the engine sees a step's results together, as it does
 * from the AI SDK, so both adapters count and decide alike.
 */
function groupToolResults(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let run: Message[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      run.push(message);
      continue;
    }
    if (run.length > 0) out.push(toolGroup(run));
    run = [];
    out.push(message);
  }
  if (run.length > 0) out.push(toolGroup(run));
  return out;
}

const definitions = new WeakMap<object, unknown>();

function toolDefinition(tool: unknown): unknown {
  if (typeof tool !== 'object' || tool === null) return tool;
  const known = definitions.get(tool);
  if (known !== undefined) return known;
  const item = tool as Block;
  const fn = item.function as Block | undefined;
  let definition: unknown = tool;
  if (fn && typeof fn.name === 'string')
    definition = { name: fn.name, description: fn.description, inputSchema: fn.parameters };
  else if (typeof item.name === 'string' && item.schema !== undefined) {
    let inputSchema: unknown;
    try {
      inputSchema = toJsonSchema(item.schema as Parameters<typeof toJsonSchema>[0]);
    } catch {
      inputSchema = undefined;
    }
    definition = { name: item.name, description: item.description, inputSchema };
  }
  definitions.set(tool, definition);
  return definition;
}

/**
 * Tool definitions in one shape for counting, `{ name, description, inputSchema }`, from LangChain tools or the
 * OpenAI-style definitions a model binds.
 */
export function toolDefinitions(tools: readonly unknown[] | undefined): unknown[] {
  return (tools ?? []).map(toolDefinition);
}

/**
 * Converts LangChain messages and tools into the engine's transcript. Leading system messages become the system
 * prompt; a system message later on stays a message in its place. Every message keeps its object as `original`.
 * Something that is not a LangChain message, or content blocks that are not objects, is an InvalidPromptError; null
 * content reads as empty and tool call args with a cycle or a BigInt as plain data.
 */
export function toTranscript(messages: readonly BaseMessage[], tools?: readonly unknown[]): Transcript {
  const toolNames = new Map<string, string>();
  const out: Message[] = [];
  for (const [messageIndex, message] of messages.entries()) {
    if (typeof (message as Partial<BaseMessage> | null)?.getType !== 'function')
      throw new InvalidPromptError({ messageIndex, field: '', expected: 'a LangChain message', value: message });
    const calls = (message as BaseMessage & { tool_calls?: { id?: string; name: string }[] }).tool_calls;
    if (Array.isArray(calls)) for (const call of calls) if (call?.id) toolNames.set(call.id, call.name);
    try {
      out.push(toMessage(message, toolNames));
    } catch (error) {
      if (!(error instanceof UnreadableMessage)) throw error;
      throw new InvalidPromptError({ messageIndex, ...error });
    }
  }
  let leading = 0;
  while (leading < out.length && out[leading]?.role === 'system') leading++;
  return {
    system: out.slice(0, leading),
    messages: groupToolResults(out.slice(leading)),
    tools: toolDefinitions(tools),
  };
}
