import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import { fileTokens } from '../../src/counting/file-tokens.js';
import { hashBytes, hashString } from '../../src/counting/hash.js';
import { type FileCounting, fileCountingKey, UNKNOWN_FILE_COUNTING } from '../../src/counting/provider-family.js';
import { InvalidPromptError } from '../../src/errors.js';
import { ConversionMemory } from '../../src/transcript/conversion-memory.js';
import {
  type FilePart,
  jsonSafe,
  type Message,
  type Part,
  stableStringify,
  type Transcript,
} from '../../src/transcript/transcript.js';

type FileData = LanguageModelV4FilePart['data'];

/** Text of a field a JavaScript caller may have left null: `''` for null or undefined, JSON for anything else. */
const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : value === null || value === undefined ? '' : stableStringify(value);

function bytesOf(data: unknown): Uint8Array | undefined {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : undefined;
}

/** A fingerprint of a file's whole content (every byte, the whole string or URL), so different files never share one. */
function fileFingerprint(data: FileData | { type: string }): string {
  const file = data as FileData;
  switch (file.type) {
    case 'url': {
      const href = String(file.url);
      return href.startsWith('data:') ? `data:${href.length}:${hashString(href)}` : `url:${href}`;
    }
    case 'text':
      return `text:${hashString(textOf(file.text))}`;
    case 'reference':
      return `ref:${stableStringify(file.reference)}`;
    case 'data': {
      if (typeof file.data === 'string') return `data:${file.data.length}:${hashString(file.data)}`;
      const bytes = bytesOf(file.data);
      return bytes
        ? `bytes:${bytes.length}:${hashBytes(bytes).toString(36)}`
        : `data:${hashString(stableStringify(file.data))}`;
    }
    default:
      return `other:${hashString(stableStringify(file))}`;
  }
}

/** The bytes of a file part as `fileTokens` reads them: bytes, base64 or a URL (a `data:` URL is read). */
function fileContent(data: FileData): Uint8Array | string | undefined {
  if (data.type === 'url') return String(data.url);
  if (data.type !== 'data') return undefined;
  return typeof data.data === 'string' ? data.data : bytesOf(data.data);
}

/** A file part: its estimate counted as the provider of `counting` counts it (a text file by its length). */
function filePart(part: LanguageModelV4FilePart, counting: FileCounting): FilePart {
  const data = part.data;
  const detail = (part.providerOptions?.openai as { imageDetail?: unknown } | undefined)?.imageDetail;
  return {
    type: 'file',
    mediaType: part.mediaType,
    fingerprint: fileFingerprint(data),
    tokens:
      data.type === 'text'
        ? Math.ceil(textOf(data.text).length / 4)
        : fileTokens(
            { mediaType: String(part.mediaType ?? ''), data: fileContent(data), detail: String(detail ?? '') },
            counting,
          ),
    ...(part.filename ? { name: part.filename } : {}),
    original: part,
  };
}

/** Text rendering of a tool output, for counting and summarizing; the original output is kept on the part. */
export function toolOutputText(output: LanguageModelV4ToolResultOutput): { text: string; isError: boolean } {
  switch (output.type) {
    case 'text':
      return { text: textOf(output.value), isError: false };
    case 'error-text':
      return { text: textOf(output.value), isError: true };
    case 'json':
      return { text: stableStringify(output.value), isError: false };
    case 'error-json':
      return { text: stableStringify(output.value), isError: true };
    case 'execution-denied':
      return { text: `Execution denied${output.reason ? `: ${output.reason}` : ''}`, isError: true };
    case 'content':
      if (!Array.isArray(output.value)) return { text: textOf(output.value), isError: false };
      return {
        text: output.value.map((item) => (item?.type === 'text' ? textOf(item.text) : `[${item?.type}]`)).join('\n'),
        isError: false,
      };
    default:
      return { text: stableStringify(output), isError: false };
  }
}

/**
 * The files of a `content` tool output, as file parts counted for the provider: a file item has the shape of a user
 * message's file part, so the part a recall block brings back is the item itself. Items whose data is not an object
 * are counted by their placeholder text alone.
 */
function resultFiles(output: LanguageModelV4ToolResultOutput, counting: FileCounting): FilePart[] {
  if (output.type !== 'content' || !Array.isArray(output.value)) return [];
  return output.value.flatMap((item) =>
    item?.type === 'file' && isObject(item.data) ? [filePart(item as LanguageModelV4FilePart, counting)] : [],
  );
}

/** A message that cannot be read; `toTranscript` turns it into an InvalidPromptError with the message's index. */
class UnreadableMessage {
  constructor(
    readonly message: unknown,
    readonly field: string,
    readonly expected: string,
    readonly value: unknown,
  ) {}
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * A provider-executed tool call or result (the result sits in the assistant message, see the V4 prompt types) as an
 * `other` part: counted, folded and dropped with its turn, never masked, shortened or redacted. Providers read these
 * results by their own schema (OpenAI's Responses API validates shell, tool search and programmatic results as JSON,
 * or sends an item reference by the `itemId` that a rebuilt part loses; Anthropic's server tool results need their
 * typed content), so a placeholder in any shape would be rejected or silently dropped: they are left as they are.
 */
function providerExecutedPart(part: LanguageModelV4ToolCallPart | LanguageModelV4ToolResultPart): Part {
  const text =
    part.type === 'tool-call' ? `${part.toolName}(${stableStringify(part.input)})` : toolOutputText(part.output).text;
  return { type: 'other', text, original: part };
}

type ContentPart = Exclude<LanguageModelV4Message['content'], string>[number];

/** An object with a string `type`: a content part as far as this reading checks it; each case checks its fields. */
const isContentPart = (value: unknown): value is ContentPart => isObject(value) && typeof value.type === 'string';

function contentPart(message: LanguageModelV4Message, part: unknown, index: number, counting: FileCounting): Part {
  if (!isContentPart(part))
    throw new UnreadableMessage(message, `content[${index}]`, 'a part object with a type', part);
  const typed = part;
  switch (typed.type) {
    case 'text':
    case 'reasoning':
      return { type: typed.type, text: textOf(typed.text), original: part };
    case 'file':
    case 'reasoning-file': {
      if (!isObject(typed.data))
        throw new UnreadableMessage(
          message,
          `content[${index}].data`,
          'file data such as { type: "data", data }',
          typed.data,
        );
      return filePart(typed as LanguageModelV4FilePart, counting);
    }
    case 'tool-call':
      if (typed.providerExecuted) return providerExecutedPart(typed);
      // jsonSafe: input with a cycle or a BigInt is read as plain data; the caller's part is what is sent
      return {
        type: 'tool-call',
        id: typed.toolCallId,
        name: typed.toolName,
        args: jsonSafe(typed.input),
        original: part,
      };
    case 'tool-result': {
      if (!isObject(typed.output) || typeof typed.output.type !== 'string')
        throw new UnreadableMessage(
          message,
          `content[${index}].output`,
          'a tool output such as { type: "text", value }',
          typed.output,
        );
      if (message.role === 'assistant') return providerExecutedPart(typed);
      const { text, isError } = toolOutputText(typed.output);
      const files = resultFiles(typed.output, counting);
      return {
        type: 'tool-result',
        callId: typed.toolCallId,
        name: typed.toolName,
        output: text,
        isError,
        ...(files.length > 0 ? { files } : {}),
        original: part,
      };
    }
    default:
      return { type: 'other', text: stableStringify(part), original: part };
  }
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function toMessage(message: LanguageModelV4Message, counting: FileCounting): Message {
  if (!isObject(message)) throw new UnreadableMessage(message, '', 'a message object { role, content }', message);
  if (!ROLES.has(message.role))
    throw new UnreadableMessage(message, 'role', '"system", "user", "assistant" or "tool"', message.role);
  if (message.role === 'system') {
    if (typeof message.content !== 'string')
      throw new UnreadableMessage(message, 'content', 'a string in a system message', message.content);
    return { role: 'system', parts: [{ type: 'text', text: message.content, original: message }], original: message };
  }
  if (!Array.isArray(message.content))
    throw new UnreadableMessage(message, 'content', `an array of parts in a ${message.role} message`, message.content);
  const parts = (message.content as unknown[]).map((part, index) => contentPart(message, part, index, counting));
  return { role: message.role, parts, original: message };
}

/**
 * A memory of conversions for one middleware and one way of counting files: a resent history is compared, not
 * converted again.
 */
export function promptConversions(
  counting: FileCounting = UNKNOWN_FILE_COUNTING,
): ConversionMemory<LanguageModelV4Message> {
  return new ConversionMemory((message) => toMessage(message, counting), conversationKey);
}

/**
 * The conversion memories of one middleware, one per way of counting files (see `fileCountingKey`): a history
 * converted for Claude is not served, with Claude's image counts, to a call to gpt-4o.
 */
export function promptConversionsByCounting(): (counting: FileCounting) => ConversionMemory<LanguageModelV4Message> {
  const memories = new Map<string, ConversionMemory<LanguageModelV4Message>>();
  return (counting) => {
    const key = fileCountingKey(counting);
    let memory = memories.get(key);
    if (!memory) {
      memory = promptConversions(counting);
      memories.set(key, memory);
    }
    return memory;
  };
}

/**
 * The key a conversation's conversions are kept under: its first message's role and content, texts as they are (no
 * JSON of a long text on every call). Only finds the history to compare with: two conversations under one key are
 * still told apart by the comparison.
 */
function conversationKey(first: LanguageModelV4Message): string {
  if (!isObject(first)) return String(first);
  if (!Array.isArray(first.content)) return `${first.role}:${String(first.content)}`;
  let key = `${first.role}:`;
  for (const part of first.content as unknown[]) {
    key +=
      isObject(part) && part.type === 'text' && typeof part.text === 'string'
        ? `\u0000${part.text}`
        : `\u0001${stableStringify(part)}`;
  }
  return key;
}

/**
 * Converts an AI SDK call's prompt and tools into the engine's transcript. Leading system messages become the
 * system prompt; a system message later in the prompt stays a message in its place. With `conversions`, messages
 * equal to those of the conversation's previous call are not converted again (`conversions` counts files its own
 * way; without it, files are counted for `counting`: the provider and model they go to). A message that cannot be read at all
 * (not an object, content that is not an array of parts, a part without a type, a tool result without an output) is
 * an InvalidPromptError; null texts read as empty and tool inputs with a cycle or a BigInt as plain data.
 */
export function toTranscript(
  prompt: LanguageModelV4Prompt,
  tools: LanguageModelV4CallOptions['tools'],
  conversions?: ConversionMemory<LanguageModelV4Message>,
  counting: FileCounting = UNKNOWN_FILE_COUNTING,
): Transcript {
  let leading = 0;
  while (leading < prompt.length && prompt[leading]?.role === 'system') leading++;
  const messages = prompt.slice(leading);
  let system: Message[];
  let converted: Message[];
  try {
    const convert = (message: LanguageModelV4Message) => toMessage(message, counting);
    system = prompt.slice(0, leading).map(convert);
    converted = conversions ? conversions.convertAll(messages) : messages.map(convert);
  } catch (error) {
    if (!(error instanceof UnreadableMessage)) throw error;
    const { message, field, expected, value } = error;
    throw new InvalidPromptError({
      messageIndex: prompt.indexOf(message as LanguageModelV4Message),
      field,
      expected,
      value,
    });
  }
  return {
    system,
    messages: converted,
    tools: (tools ?? []).map((tool) =>
      tool.type === 'function'
        ? { name: tool.name, description: tool.description, inputSchema: tool.inputSchema }
        : { id: tool.id, name: tool.name, args: tool.args },
    ),
  };
}
