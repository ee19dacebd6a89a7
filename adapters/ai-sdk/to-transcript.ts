import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';
import { hashString } from '../../src/counting/hash.js';
import { ConversionMemory } from '../../src/transcript/conversion-memory.js';
import { type Message, type Part, stableStringify, type Transcript } from '../../src/transcript/transcript.js';

/** Token estimate of an image or file part, whose bytes are not text. */
export const DEFAULT_FILE_TOKENS = 1_000;

type FileData = LanguageModelV4FilePart['data'];

function fileFingerprint(data: FileData | { type: string }): string {
  const file = data as FileData;
  switch (file.type) {
    case 'url':
      return `url:${file.url.toString()}`;
    case 'text':
      return `text:${hashString(file.text)}`;
    case 'reference':
      return `ref:${stableStringify(file.reference)}`;
    case 'data': {
      if (typeof file.data === 'string') return `data:${file.data.length}:${hashString(file.data)}`;
      let sample = '';
      const step = Math.max(1, Math.floor(file.data.length / 4096));
      for (let index = 0; index < file.data.length; index += step) sample += String.fromCharCode(file.data[index] ?? 0);
      return `bytes:${file.data.length}:${hashString(sample)}`;
    }
    default:
      return stableStringify(file);
  }
}

/** Text rendering of a tool output, for counting and summarizing; the original output is kept on the part. */
export function toolOutputText(output: LanguageModelV4ToolResultOutput): { text: string; isError: boolean } {
  switch (output.type) {
    case 'text':
      return { text: output.value, isError: false };
    case 'error-text':
      return { text: output.value, isError: true };
    case 'json':
      return { text: stableStringify(output.value), isError: false };
    case 'error-json':
      return { text: stableStringify(output.value), isError: true };
    case 'execution-denied':
      return { text: `Execution denied${output.reason ? `: ${output.reason}` : ''}`, isError: true };
    case 'content':
      return {
        text: output.value.map((item) => (item.type === 'text' ? item.text : `[${item.type}]`)).join('\n'),
        isError: false,
      };
    default:
      return { text: stableStringify(output), isError: false };
  }
}

function toParts(message: LanguageModelV4Message): Part[] {
  if (message.role === 'system') return [{ type: 'text', text: message.content, original: message }];
  const parts: Part[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', text: part.text, original: part });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: part.text, original: part });
        break;
      case 'file':
      case 'reasoning-file':
        parts.push({
          type: 'file',
          mediaType: part.mediaType,
          fingerprint: fileFingerprint(part.data),
          tokens: part.data.type === 'text' ? Math.ceil(part.data.text.length / 4) : DEFAULT_FILE_TOKENS,
          original: part,
        });
        break;
      case 'tool-call':
        parts.push({ type: 'tool-call', id: part.toolCallId, name: part.toolName, args: part.input, original: part });
        break;
      case 'tool-result': {
        const { text, isError } = toolOutputText(part.output);
        parts.push({
          type: 'tool-result',
          callId: part.toolCallId,
          name: part.toolName,
          output: text,
          isError,
          original: part,
        });
        break;
      }
      default:
        parts.push({ type: 'other', text: stableStringify(part), original: part });
    }
  }
  return parts;
}

function toMessage(message: LanguageModelV4Message): Message {
  return { role: message.role, parts: toParts(message), original: message };
}

/** A memory of conversions for one middleware: a resent history is compared, not converted again. */
export function promptConversions(): ConversionMemory<LanguageModelV4Message> {
  return new ConversionMemory(toMessage, (first) =>
    typeof first.content === 'string'
      ? `${first.role}:${first.content}`
      : `${first.role}:${JSON.stringify(first.content)}`,
  );
}

/**
 * Converts an AI SDK call's prompt and tools into the engine's transcript. Leading system messages become the
 * system prompt; a system message later in the prompt stays a message in its place. With `conversions`, messages
 * equal to those of the conversation's previous call are not converted again.
 */
export function toTranscript(
  prompt: LanguageModelV4Prompt,
  tools: LanguageModelV4CallOptions['tools'],
  conversions?: ConversionMemory<LanguageModelV4Message>,
): Transcript {
  let leading = 0;
  while (leading < prompt.length && prompt[leading]?.role === 'system') leading++;
  const messages = prompt.slice(leading);
  return {
    system: prompt.slice(0, leading).map(toMessage),
    messages: conversions ? conversions.convertAll(messages) : messages.map(toMessage),
    tools: (tools ?? []).map((tool) =>
      tool.type === 'function'
        ? { name: tool.name, description: tool.description, inputSchema: tool.inputSchema }
        : { id: tool.id, name: tool.name, args: tool.args },
    ),
  };
}
