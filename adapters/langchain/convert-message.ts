import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { fileTokens } from '../../src/counting/file-tokens.js';
import { hashBytes, hashString } from '../../src/counting/hash.js';
import { type FileCounting, UNKNOWN_FILE_COUNTING } from '../../src/counting/provider-family.js';
import { jsonSafe, type Message, type Part, type Role, stableStringify } from '../../src/transcript/transcript.js';

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

/** Bytes given as a Uint8Array, another typed array or an ArrayBuffer. */
function bytesOf(data: unknown): Uint8Array | undefined {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : undefined;
}

/** A fingerprint of inline data over all of it: a base64 string hashed whole, bytes (standard blocks) every byte. */
function dataFingerprint(data: unknown): string | undefined {
  if (typeof data === 'string') return `data:${data.length}:${hashString(data)}`;
  const bytes = bytesOf(data);
  return bytes ? `bytes:${bytes.length}:${hashBytes(bytes).toString(36)}` : undefined;
}

/**
 * The content of a file block for counting: its URL (`image_url` as a string or `{ url }`, a standard block's
 * `url`; a `data:` URL is read), else its inline data (a standard or `source_type` block's `data`, an Anthropic
 * `source`, an OpenAI `file.file_data` or `input_audio.data`).
 */
function blockContent(block: Block): Uint8Array | string | undefined {
  const imageUrl = block.image_url;
  const url = typeof imageUrl === 'string' ? imageUrl : ((imageUrl as Block | undefined)?.url ?? block.url);
  if (typeof url === 'string') return url;
  const source = block.source as Block | undefined;
  const inline = [
    block.data,
    source?.data,
    source?.url,
    (block.file as Block | undefined)?.file_data,
    block.file_data,
    (block.input_audio as Block | undefined)?.data,
  ];
  for (const value of inline) {
    const content = typeof value === 'string' ? value : bytesOf(value);
    if (content !== undefined) return content;
  }
  return undefined;
}

/** OpenAI's image detail of a block: `image_url.detail`, or `detail` of an `input_image` block. */
function detailOf(block: Block): string | undefined {
  const detail = (block.image_url as Block | undefined)?.detail ?? block.detail;
  return typeof detail === 'string' ? detail : undefined;
}

/** A message that cannot be read; `toTranscript` turns it into an InvalidPromptError with the message's index. */
export class UnreadableMessage {
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

/** A file block's name, where LangChain's formats carry one (`metadata.filename`, `filename`, `name`). */
function nameOf(block: Block): { name?: string } {
  const metadata = block.metadata as Block | undefined;
  const name = metadata?.filename ?? metadata?.name ?? block.filename ?? block.name;
  return typeof name === 'string' && name !== '' ? { name } : {};
}

function blockPart(block: Block, original: unknown, counting: FileCounting): Part {
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
  if (FILE_BLOCKS.has(type)) {
    const mediaType = mediaTypeOf(block);
    return {
      type: 'file',
      mediaType,
      fingerprint: fileFingerprint(block),
      tokens: fileTokens({ mediaType, data: blockContent(block), detail: detailOf(block) }, counting),
      ...nameOf(block),
      original,
    };
  }
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

function contentParts(message: BaseMessage, skipToolCallBlocks: boolean, counting: FileCounting): Part[] {
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
    parts.push(blockPart(item, block, counting));
  }
  return parts;
}

function aiParts(message: BaseMessage, counting: FileCounting): Part[] {
  const ai = message as BaseMessage & { tool_calls?: { id?: string; name: string; args: unknown }[] };
  const parts: Part[] = [];
  const reasoning = message.additional_kwargs?.reasoning_content;
  if (typeof reasoning === 'string' && reasoning) parts.push({ type: 'reasoning', text: reasoning });
  const calls = Array.isArray(ai.tool_calls) ? ai.tool_calls : [];
  parts.push(...contentParts(message, calls.length > 0, counting));
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

function toolResultPart(tool: ToolMessage, toolNames: ReadonlyMap<string, string>, counting: FileCounting): Part {
  const callId = tool.tool_call_id;
  // the image and file blocks of the content, counted as a user message's are (a recall block sends them back so)
  const files = Array.isArray(tool.content)
    ? tool.content.flatMap((block) => {
        if (typeof block !== 'object' || block === null) return [];
        const part = blockPart(block as Block, block, counting);
        return part.type === 'file' ? [part] : [];
      })
    : [];
  return {
    type: 'tool-result',
    callId,
    name: tool.name ?? toolNames.get(callId) ?? '',
    output: contentText(tool.content),
    isError: tool.status === 'error',
    ...(files.length > 0 ? { files } : {}),
    original: tool,
  };
}

/**
 * One LangChain message as a transcript message; `toolNames` names results whose message has no name, `counting` the
 * provider its files are counted for.
 */
export function convertMessage(
  message: BaseMessage,
  toolNames: ReadonlyMap<string, string>,
  counting: FileCounting = UNKNOWN_FILE_COUNTING,
): Message {
  const role = roleOf(message);
  const parts =
    role === 'tool'
      ? [toolResultPart(message as ToolMessage, toolNames, counting)]
      : role === 'assistant'
        ? aiParts(message, counting)
        : contentParts(message, false, counting);
  return { role, parts, ...(message.id ? { id: message.id } : {}), original: message };
}

/** A LangChain tool or an OpenAI-style definition as `{ name, description, inputSchema }`, for counting. */
export function convertToolDefinition(tool: object): unknown {
  const item = tool as Block;
  const fn = item.function as Block | undefined;
  if (fn && typeof fn.name === 'string')
    return { name: fn.name, description: fn.description, inputSchema: fn.parameters };
  if (typeof item.name !== 'string' || item.schema === undefined) return tool;
  let inputSchema: unknown;
  try {
    inputSchema = toJsonSchema(item.schema as Parameters<typeof toJsonSchema>[0]);
  } catch {
    inputSchema = undefined;
  }
  return { name: item.name, description: item.description, inputSchema };
}
