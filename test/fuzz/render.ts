/**
 * Renders the intermediate messages of `turns.ts` into what a user sends: an AI SDK prompt (`LanguageModelV4Prompt`),
 * a `ModelMessage[]` history with instructions for `generateText`, or LangChain messages.
 */
import type { LanguageModelV4Message, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { ModelMessage, SystemModelMessage } from 'ai';
import type { FileSpec, ProviderOptionsSpec } from './arbitraries.js';
import { base64Of, bytesOf, clone, MEDIA_TYPES, type Output, type Part, type Turn, urlOf } from './turns.js';

const withOptions = <T extends object>(value: T, providerOptions: ProviderOptionsSpec): T =>
  providerOptions ? { ...value, providerOptions: clone(providerOptions) } : value;

type V4Content = Exclude<LanguageModelV4Message['content'], string>[number];

function v4FileData(file: FileSpec) {
  if (file.source === 'url') return { type: 'url' as const, url: new URL(urlOf(file)) };
  if (file.source === 'inline') return { type: 'text' as const, text: `inline document ${file.seed}` };
  return { type: 'data' as const, data: file.source === 'bytes' ? bytesOf(file) : base64Of(file) };
}

function v4File(file: FileSpec) {
  return {
    type: 'file' as const,
    mediaType: file.source === 'inline' ? 'text/plain' : MEDIA_TYPES[file.kind],
    data: v4FileData(file),
    ...(file.filename ? { filename: `${file.kind}-${file.seed}` } : {}),
  };
}

function v4Output(output: Output) {
  switch (output.type) {
    case 'content':
      return {
        type: 'content' as const,
        value: [{ type: 'text' as const, text: output.text }, ...(output.file ? [{ ...v4File(output.file) }] : [])],
      };
    case 'execution-denied':
      return output.reason === undefined ? { type: output.type } : { type: output.type, reason: output.reason };
    default:
      return output;
  }
}

function v4Part(part: Part): V4Content {
  switch (part.kind) {
    case 'text':
      return withOptions({ type: 'text', text: part.text }, part.providerOptions);
    case 'reasoning':
      return { type: 'reasoning', text: part.text };
    case 'file':
      return v4File(part.file);
    case 'call':
      return {
        type: 'tool-call',
        toolCallId: part.id,
        toolName: part.name,
        input: part.input,
        ...(part.providerExecuted ? { providerExecuted: true } : {}),
      };
    case 'result':
      return {
        type: 'tool-result',
        toolCallId: part.id,
        toolName: part.name,
        output: v4Output(part.output),
      } as V4Content;
  }
}

/** The intermediate messages as an AI SDK prompt. */
export function toV4Prompt(turns: readonly Turn[]): LanguageModelV4Prompt {
  return turns.map((turn) => {
    if (turn.role === 'system') {
      const [first] = turn.parts;
      return { role: 'system', content: first?.kind === 'text' ? first.text : '' };
    }
    return withOptions(
      { role: turn.role, content: turn.parts.map(v4Part) },
      turn.providerOptions,
    ) as LanguageModelV4Message;
  });
}

function modelPart(part: Part): unknown {
  if (part.kind === 'file') {
    const { file } = part;
    const data =
      file.source === 'url' ? new URL(urlOf(file)) : file.source === 'bytes' ? bytesOf(file) : base64Of(file);
    if (file.kind === 'image') return { type: 'image', image: data, mediaType: MEDIA_TYPES.image };
    if (file.source === 'inline')
      return { type: 'file', data: { type: 'text', text: `inline document ${file.seed}` }, mediaType: 'text/plain' };
    return {
      type: 'file',
      data,
      mediaType: MEDIA_TYPES[file.kind],
      ...(file.filename ? { filename: `f-${file.seed}` } : {}),
    };
  }
  return v4Part(part);
}

/** The intermediate messages as `generateText` takes them: instructions and `ModelMessage[]`. */
export function toModelMessages(turns: readonly Turn[]): {
  instructions: string | SystemModelMessage[] | undefined;
  messages: ModelMessage[];
} {
  let leading = 0;
  while (turns[leading]?.role === 'system') leading++;
  const textOf = (turn: Turn) => (turn.parts[0]?.kind === 'text' ? turn.parts[0].text : '');
  const texts = turns.slice(0, leading).map(textOf);
  const instructions =
    texts.length === 0
      ? undefined
      : texts.length === 1
        ? texts[0]
        : texts.map((content) => ({ role: 'system' as const, content }));
  const messages = turns
    .slice(leading)
    .map((turn) =>
      turn.role === 'system'
        ? { role: 'system' as const, content: textOf(turn) }
        : (withOptions({ role: turn.role, content: turn.parts.map(modelPart) }, turn.providerOptions) as ModelMessage),
    );
  return { instructions, messages };
}

type Block = Record<string, unknown>;

function langChainFile(file: FileSpec, variant: number): Block {
  const mimeType = MEDIA_TYPES[file.kind];
  if (file.kind === 'text' && file.source === 'inline')
    return { type: 'text-plain', text: `inline document ${file.seed}`, mimeType: 'text/plain' };
  if (file.kind === 'image') {
    const url = file.source === 'url' ? urlOf(file) : `data:image/png;base64,${base64Of(file)}`;
    if (variant % 3 === 0) return { type: 'image_url', image_url: { url } };
    if (variant % 3 === 1) return { type: 'image_url', image_url: url };
    return file.source === 'url' ? { type: 'image', url } : { type: 'image', data: base64Of(file), mimeType };
  }
  return file.source === 'url'
    ? { type: 'file', url: urlOf(file), mimeType }
    : { type: 'file', data: base64Of(file), mimeType };
}

function langChainText(parts: readonly Part[], blocks: boolean): string | Block[] {
  const simple = parts.every((part) => part.kind === 'text');
  if (simple && !blocks) return parts.map((part) => (part.kind === 'text' ? part.text : '')).join('\n');
  return parts.flatMap((part, index): Block[] => {
    if (part.kind === 'text') return [{ type: 'text', text: part.text }];
    if (part.kind === 'reasoning') return [{ type: 'reasoning', reasoning: part.text }];
    if (part.kind === 'file') return [langChainFile(part.file, index)];
    return [];
  });
}

function langChainOutput(output: Output): { content: string | Block[]; status: 'success' | 'error' } {
  switch (output.type) {
    case 'text':
      return { content: output.value, status: 'success' };
    case 'error-text':
      return { content: output.value, status: 'error' };
    case 'json':
      return { content: JSON.stringify(output.value) ?? 'null', status: 'success' };
    case 'content':
      return {
        content: [{ type: 'text', text: output.text }, ...(output.file ? [langChainFile(output.file, 0)] : [])],
        status: 'success',
      };
    case 'execution-denied':
      return { content: `Execution denied${output.reason ? `: ${output.reason}` : ''}`, status: 'error' };
  }
}

/** Arguments as LangChain holds them: an object, or null as a JavaScript caller may leave them. */
const asArgs = (input: unknown): Record<string, unknown> =>
  (input === null || (typeof input === 'object' && !Array.isArray(input)) ? input : { value: input }) as Record<
    string,
    unknown
  >;

/**
 * The intermediate messages as LangChain messages; `blocks` picks content blocks over strings where both work, and
 * every third message gets an id starting with `idPrefix`.
 */
export function toLangChain(turns: readonly Turn[], blocks: boolean, idPrefix = 'msg'): BaseMessage[] {
  let serial = 0;
  return turns.flatMap((turn): BaseMessage[] => {
    serial++;
    const id = serial % 3 === 0 ? { id: `${idPrefix}-${serial}` } : {};
    if (turn.role === 'system')
      return [new SystemMessage({ content: langChainText(turn.parts, blocks) as string, ...id })];
    if (turn.role === 'user')
      return [new HumanMessage({ content: langChainText(turn.parts, blocks) as string, ...id })];
    if (turn.role === 'tool')
      return turn.parts.flatMap((part) => {
        if (part.kind !== 'result') return [];
        const { content, status } = langChainOutput(part.output);
        const named = serial % 2 === 0 ? { name: part.name } : {};
        return [new ToolMessage({ content: content as string, tool_call_id: part.id, status, ...named })];
      });
    const calls = turn.parts.flatMap((part) =>
      part.kind === 'call' && !part.providerExecuted
        ? [{ id: part.id, name: part.name, args: asArgs(part.input), type: 'tool_call' as const }]
        : [],
    );
    const server = turn.parts.flatMap((part): Block[] => {
      if (part.kind === 'call' && part.providerExecuted)
        return [{ type: 'server_tool_use', id: part.id, name: part.name, input: part.input }];
      if (part.kind === 'result')
        return [
          { type: 'web_search_tool_result', tool_use_id: part.id, content: langChainOutput(part.output).content },
        ];
      return [];
    });
    const reasoning = turn.parts.find((part) => part.kind === 'reasoning');
    const visible = turn.parts.filter((part) => part.kind === 'text' || (blocks && part.kind === 'reasoning'));
    const anthropicStyle = blocks && calls.length > 0 && serial % 2 === 0;
    const text = langChainText(visible, blocks || server.length > 0);
    const content =
      anthropicStyle || server.length > 0
        ? [
            ...(text as Block[]),
            ...server,
            ...(anthropicStyle
              ? calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args }))
              : []),
          ]
        : // from JavaScript: an OpenAI response's content is null beside tool calls
          text === '' && calls.length > 0 && serial % 2 === 1
          ? null
          : text;
    const kwargs =
      reasoning?.kind === 'reasoning' && !blocks
        ? { reasoning_content: reasoning.text }
        : serial % 4 === 0
          ? { reasoning_content: null, function_call: null, refusal: null }
          : {};
    return [
      new AIMessage({
        content: content as string,
        tool_calls: calls,
        additional_kwargs: kwargs as AIMessage['additional_kwargs'],
        ...id,
      }),
    ];
  });
}
