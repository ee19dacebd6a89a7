import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';

/**
 * One message of each transcript format as the provider-level messages the AI SDK hands a model (see formats.ts,
 * which detects the format and groups the messages into a prompt).
 */

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: string): LanguageModelV4TextPart => ({ type: 'text', text: value });
/** The tool name of a result whose format names none, until its call's name is found. */
export const UNNAMED = 'tool';
const stringify = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

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

export function fromModelMessage(message: Json): LanguageModelV4Message {
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
export function fromUiMessage(message: Json): LanguageModelV4Message[] {
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

export function fromLangChain(message: Json): LanguageModelV4Message {
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

export function fromOpenAI(message: Json): LanguageModelV4Message {
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

export function fromSession(message: Json): LanguageModelV4Message {
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
