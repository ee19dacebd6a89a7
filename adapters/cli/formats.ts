import type { LanguageModelV4Message, LanguageModelV4Prompt } from '@ai-sdk/provider';
import {
  fromLangChain,
  fromModelMessage,
  fromOpenAI,
  fromSession,
  fromUiMessage,
  isObject,
  type Json,
  UNNAMED,
} from './message-formats.js';

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
