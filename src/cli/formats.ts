import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';

/**
 * Reading users' own transcripts: AI SDK `ModelMessage[]` and `UIMessage[]`, LangChain messages (`toJSON()` or the
 * stored `{ type, data }` form), OpenAI chat messages (a list, or a request body `{ messages }`) and this project's
 * session files, as JSON or JSON lines. Each conversation becomes a provider-level prompt (what the AI SDK hands a
 * model), which the replay sends through the engine as the AI SDK adapter would. Types only from `@ai-sdk/provider`:
 * nothing here needs `ai` or LangChain installed.
 */

/** The formats a transcript may be in, as named in reports and errors. */
export const TRANSCRIPT_FORMATS = [
  'AI SDK ModelMessage[]',
  'chat messages',
  'AI SDK UIMessage[]',
  'LangChain messages',
  'OpenAI chat messages',
  'context-compression session',
] as const;

export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** One conversation read from a file. */
export interface Conversation {
  readonly id: string;
  readonly format: TranscriptFormat;
  /** System messages first, then the conversation, as the AI SDK passes a prompt to a model. */
  readonly prompt: LanguageModelV4Prompt;
}

/** A file that is none of the formats above. */
export class TranscriptFormatError extends Error {
  constructor(file: string, detail: string) {
    super(
      `${file}: not a transcript this command reads (${detail}). Accepted, as JSON or JSON lines: ` +
        'AI SDK ModelMessage[] or UIMessage[], LangChain messages (message.toJSON() or stored { type, data }), ' +
        'OpenAI chat messages ([{ role, content, tool_calls }] or a request body { messages }), ' +
        'or context-compression sessions ({ id, messages }, one per line)',
    );
    this.name = 'TranscriptFormatError';
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: string): LanguageModelV4TextPart => ({ type: 'text', text: value });
/** The tool name of a result whose format names none, until its call's name is found. */
const UNNAMED = 'tool';
const stringify = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** Parses a file's text (JSON, or JSON lines) into its conversations. */
export function readConversations(source: string, file: string): Conversation[] {
  const values = parseJsonOrLines(source, file);
  // a list of conversations: sessions or request bodies, one per line or in an array
  if (values.length > 0 && values.every((value) => isObject(value) && Array.isArray(value.messages))) {
    return values.map((value, index) => {
      const body = value as Json;
      const id = typeof body.id === 'string' ? body.id : `${index + 1}`;
      return conversationOf(body.messages as unknown[], file, id);
    });
  }
  return [conversationOf(values, file, '1')];
}

function parseJsonOrLines(source: string, file: string): unknown[] {
  const trimmed = source.trim();
  if (trimmed.length === 0) throw new TranscriptFormatError(file, 'the file is empty');
  try {
    const whole = JSON.parse(trimmed) as unknown;
    return Array.isArray(whole) ? whole : [whole];
  } catch {
    return trimmed
      .split('\n')
      .map((line, index) => [line.trim(), index + 1] as const)
      .filter(([line]) => line.length > 0)
      .map(([line, number]) => {
        try {
          return JSON.parse(line) as unknown;
        } catch (error) {
          throw new TranscriptFormatError(file, `line ${number} is not JSON: ${(error as Error).message}`);
        }
      });
  }
}

function conversationOf(messages: unknown[], file: string, id: string): Conversation {
  if (messages.length === 0) throw new TranscriptFormatError(file, `conversation ${id} has no messages`);
  const format = detect(messages, file);
  const prompt = convert(format, messages as Json[]);
  return { id, format, prompt: systemFirst(prompt) };
}

function detect(messages: unknown[], file: string): TranscriptFormat {
  const bad = messages.findIndex((message) => !isObject(message));
  if (bad >= 0) throw new TranscriptFormatError(file, `message ${bad + 1} is not an object`);
  const all = messages as Json[];
  const some = (test: (message: Json) => boolean) => all.some(test);
  const parts = (message: Json) => (Array.isArray(message.content) ? (message.content as unknown[]) : []);
  if (some((message) => message.lc === 1 || (typeof message.type === 'string' && isObject(message.data)))) {
    return 'LangChain messages';
  }
  if (all.every((message) => typeof message.type === 'string' && 'content' in message && !('role' in message))) {
    return 'LangChain messages';
  }
  // UIMessages: parts (a stored system message may carry `content` instead; each is read by its own shape)
  if (some((message) => typeof message.role === 'string' && Array.isArray(message.parts))) {
    return 'AI SDK UIMessage[]';
  }
  if (some((message) => Array.isArray(message.toolCalls) || typeof message.toolCallId === 'string')) {
    return 'context-compression session';
  }
  if (
    some(
      (message) =>
        Array.isArray(message.tool_calls) ||
        typeof message.tool_call_id === 'string' ||
        message.role === 'developer' ||
        parts(message).some(
          (part) => isObject(part) && ['image_url', 'input_audio', 'refusal'].includes(`${part.type}`),
        ),
    )
  ) {
    return 'OpenAI chat messages';
  }
  const roles = new Set(['system', 'user', 'assistant', 'tool']);
  const unknownRole = all.findIndex((message) => !roles.has(`${message.role}`));
  if (unknownRole >= 0) {
    const role = all[unknownRole]?.role;
    throw new TranscriptFormatError(
      file,
      role === undefined
        ? `message ${unknownRole + 1} has no role, type or parts`
        : `message ${unknownRole + 1} has the role ${JSON.stringify(role)}`,
    );
  }
  // { role, content: string } only: the same in the AI SDK's and OpenAI's formats (and this project's sessions)
  if (all.every((message) => typeof message.content === 'string')) return 'chat messages';
  return 'AI SDK ModelMessage[]';
}

function convert(format: TranscriptFormat, messages: Json[]): LanguageModelV4Message[] {
  switch (format) {
    case 'AI SDK ModelMessage[]':
    case 'chat messages':
      return messages.map(fromModelMessage);
    case 'AI SDK UIMessage[]':
      return messages.flatMap(fromUiMessage);
    case 'LangChain messages':
      return messages.map(fromLangChain);
    case 'OpenAI chat messages':
      return messages.map(fromOpenAI);
    case 'context-compression session':
      return messages.map(fromSession);
  }
}

/**
 * Tool results answered in one message, as the AI SDK groups them: consecutive tool messages merged; a result whose
 * format names no tool (OpenAI's, LangChain's without `name`) takes its call's name.
 */
function systemFirst(messages: LanguageModelV4Message[]): LanguageModelV4Prompt {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) if (part.type === 'tool-call') names.set(part.toolCallId, part.toolName);
  }
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    message.content = message.content.map((part) =>
      part.type === 'tool-result' && part.toolName === UNNAMED
        ? { ...part, toolName: names.get(part.toolCallId) ?? UNNAMED }
        : part,
    );
  }
  const system = messages.filter((message) => message.role === 'system');
  const rest: LanguageModelV4Message[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const previous = rest.at(-1);
    if (message.role === 'tool' && previous?.role === 'tool') previous.content.push(...message.content);
    else rest.push(message);
  }
  return [...system, ...rest];
}

function resultOf(
  toolCallId: string,
  toolName: string,
  value: unknown,
  isError = false,
): LanguageModelV4ToolResultPart {
  const output =
    typeof value === 'string'
      ? ({ type: isError ? 'error-text' : 'text', value } as const)
      : ({ type: isError ? 'error-json' : 'json', value: (value ?? null) as never } as const);
  return { type: 'tool-result', toolCallId, toolName, output };
}

function callOf(toolCallId: string, toolName: string, input: unknown): LanguageModelV4ToolCallPart {
  return { type: 'tool-call', toolCallId, toolName, input: input ?? {} };
}

/** A file as a prompt carries it: a URL (http, data:) or its data as a string (base64). */
function fileOf(data: unknown, mediaType: unknown): LanguageModelV4FilePart {
  const value = typeof data === 'string' ? data : stringify(data);
  let url: URL | undefined;
  try {
    url = /^(https?|data):/.test(value) ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  return {
    type: 'file',
    data: url ? { type: 'url', url } : { type: 'data', data: value },
    mediaType: typeof mediaType === 'string' ? mediaType : 'application/octet-stream',
  };
}

/** OpenAI's arguments: a JSON string, read back as the object it holds (kept as text when it is not JSON). */
function parsedArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function fromModelMessage(message: Json): LanguageModelV4Message {
  const role = message.role as LanguageModelV4Message['role'];
  if (role === 'system') return { role, content: stringify(message.content) };
  const content: Json[] =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : ((message.content ?? []) as Json[]);
  const parts = content.map((part) => {
    switch (part.type) {
      case 'image':
        return fileOf(part.image, part.mediaType ?? 'image/*');
      case 'file':
        return fileOf(part.data, part.mediaType);
      case 'tool-call':
        return callOf(`${part.toolCallId}`, `${part.toolName}`, part.input ?? part.args);
      case 'tool-result': {
        const output = isObject(part.output) ? part.output : { type: 'json', value: part.output ?? part.result };
        return { type: 'tool-result', toolCallId: `${part.toolCallId}`, toolName: `${part.toolName}`, output };
      }
      default:
        return part;
    }
  });
  return { role, content: parts } as LanguageModelV4Message;
}

/** A UIMessage: text, reasoning and files as they are; each tool part a call in the assistant's step and its result. */
function fromUiMessage(message: Json): LanguageModelV4Message[] {
  const parts = (
    Array.isArray(message.parts)
      ? message.parts
      : typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : []
  ) as Json[];
  if (message.role === 'system') {
    return [{ role: 'system', content: parts.map((part) => (part.type === 'text' ? `${part.text}` : '')).join('') }];
  }
  if (message.role === 'user') {
    return [
      {
        role: 'user',
        content: parts.flatMap(
          (part): Array<LanguageModelV4TextPart | LanguageModelV4FilePart> =>
            part.type === 'text'
              ? [text(`${part.text}`)]
              : part.type === 'file'
                ? [fileOf(part.url, part.mediaType)]
                : [],
        ),
      },
    ];
  }
  // an assistant message: one model step per `step-start`; a step's tool results follow it in a tool message
  const out: LanguageModelV4Message[] = [];
  let step: LanguageModelV4Message & { role: 'assistant' } = { role: 'assistant', content: [] };
  let results: LanguageModelV4ToolResultPart[] = [];
  const flush = () => {
    if (step.content.length > 0) out.push(step);
    if (results.length > 0) out.push({ role: 'tool', content: results });
    step = { role: 'assistant', content: [] };
    results = [];
  };
  for (const part of parts) {
    const type = `${part.type}`;
    if (type === 'step-start') flush();
    else if (type === 'text') step.content.push(text(`${part.text}`));
    else if (type === 'reasoning') step.content.push({ type: 'reasoning', text: `${part.text}` });
    else if (type === 'file') step.content.push(fileOf(part.url, part.mediaType));
    else if (type === 'dynamic-tool' || type.startsWith('tool-')) {
      const name = type === 'dynamic-tool' ? `${part.toolName}` : type.slice('tool-'.length);
      const id = `${part.toolCallId}`;
      // a call with no outcome yet (input streaming or available, awaiting approval) never reached the model with a
      // result: left out, as the AI SDK leaves it out of the next request
      if (part.state === 'output-available') results.push(resultOf(id, name, part.output));
      else if (part.state === 'output-error') results.push(resultOf(id, name, `${part.errorText}`, true));
      else if (part.state === 'output-denied') {
        results.push({ type: 'tool-result', toolCallId: id, toolName: name, output: { type: 'execution-denied' } });
      } else continue;
      step.content.push(callOf(id, name, part.input));
    }
  }
  flush();
  return out;
}

/** The text of a LangChain or OpenAI content: a string, or the text of its parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return stringify(content);
  return content
    .map((part) => (isObject(part) ? (typeof part.text === 'string' ? part.text : '') : `${part}`))
    .filter((piece) => piece.length > 0)
    .join('\n');
}

const LANGCHAIN_ROLES: Record<string, LanguageModelV4Message['role']> = {
  human: 'user',
  HumanMessage: 'user',
  HumanMessageChunk: 'user',
  ai: 'assistant',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  tool: 'tool',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  system: 'system',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
};

function fromLangChain(message: Json): LanguageModelV4Message {
  // `toJSON()`: { lc, type: 'constructor', id: [..., 'AIMessage'], kwargs }; stored: { type: 'ai', data }; plain
  const serialized = message.lc === 1 && Array.isArray(message.id);
  const fields = (serialized ? message.kwargs : isObject(message.data) ? message.data : message) as Json;
  const kind = serialized ? `${(message.id as unknown[]).at(-1)}` : `${message.type}`;
  const role = LANGCHAIN_ROLES[kind];
  if (!role) throw new Error(`a LangChain message of type ${JSON.stringify(kind)} is not one this command reads`);
  const body = contentText(fields.content);
  if (role === 'system') return { role, content: body };
  if (role === 'user') return { role, content: [text(body)] };
  if (role === 'tool') {
    const id = `${fields.tool_call_id ?? ''}`;
    return { role, content: [resultOf(id, `${fields.name ?? 'tool'}`, body, fields.status === 'error')] };
  }
  const calls = (Array.isArray(fields.tool_calls) ? fields.tool_calls : []) as Json[];
  return {
    role,
    content: [...(body ? [text(body)] : []), ...calls.map((call) => callOf(`${call.id}`, `${call.name}`, call.args))],
  };
}

function fromOpenAI(message: Json): LanguageModelV4Message {
  const role = message.role === 'developer' ? 'system' : `${message.role}`;
  const body = contentText(message.content ?? '');
  if (role === 'system') return { role, content: body };
  if (role === 'user') return { role, content: [text(body)] };
  if (role === 'tool')
    return { role, content: [resultOf(`${message.tool_call_id}`, `${message.name ?? 'tool'}`, body)] };
  if (role !== 'assistant') throw new Error(`an OpenAI message with the role ${JSON.stringify(role)}`);
  const calls = (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[];
  return {
    role,
    content: [
      ...(body ? [text(body)] : []),
      ...calls.map((call) => {
        const fn = (call.function ?? {}) as Json;
        return callOf(`${call.id}`, `${fn.name}`, parsedArguments(fn.arguments));
      }),
    ],
  };
}

function fromSession(message: Json): LanguageModelV4Message {
  const body = `${message.content ?? ''}`;
  if (message.role === 'system') return { role: 'system', content: body };
  if (message.role === 'user') return { role: 'user', content: [text(body)] };
  if (message.role === 'tool') {
    return { role: 'tool', content: [resultOf(`${message.toolCallId}`, `${message.toolName ?? 'tool'}`, body)] };
  }
  const calls = (Array.isArray(message.toolCalls) ? message.toolCalls : []) as Json[];
  return {
    role: 'assistant',
    content: [...(body ? [text(body)] : []), ...calls.map((call) => callOf(`${call.id}`, `${call.name}`, call.args))],
  };
}
