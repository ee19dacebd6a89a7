import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  type MessageContent,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { StablePoints } from './from-transcript.js';

/**
 * Prompt-cache breakpoints for `ChatAnthropic`, the LangChain model of a provider that caches only where the request
 * says so: the same points the AI SDK adapter marks, as `cache_control` on a content block (what `@langchain/anthropic`
 * passes on). Without them a LangChain user's byte-stable prefix is never read from Anthropic's cache.
 */

/** Breakpoints Anthropic allows in one request (tools, system and messages together). */
const MAX_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

type Block = Record<string, unknown>;

const hasMark = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as Block).cache_control != null;

/** Marks in one content: on its blocks, and on the blocks inside a `tool_result` block's content. */
function contentMarks(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let count = 0;
  for (const block of content) {
    if (hasMark(block)) count++;
    const inner = (block as Block | null)?.content;
    if (Array.isArray(inner)) count += inner.filter(hasMark).length;
  }
  return count;
}

/**
 * The caller's breakpoints as Anthropic counts them: on tool definitions, on content blocks, and the request's own
 * `cache_control` (automatic caching, which `@langchain/anthropic` takes as a call option: it marks the last block).
 */
function callerMarks(messages: readonly BaseMessage[], tools: readonly unknown[] | undefined, automatic: boolean) {
  let count = automatic ? 1 : 0;
  for (const definition of tools ?? []) if (hasMark(definition)) count++;
  for (const message of messages) count += contentMarks(message.content);
  return count;
}

/** An AI message's tool calls as the `tool_use` blocks Anthropic receives (`@langchain/anthropic` makes the same). */
function toolUseBlocks(message: AIMessage, content: readonly Block[]): Block[] {
  const present = new Set(content.filter((block) => block.type === 'tool_use').map((block) => block.id));
  return (message.tool_calls ?? [])
    .filter((call) => !present.has(call.id))
    .map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args }));
}

/**
 * The content with a breakpoint on its last block, as `@langchain/anthropic` sends it: a string becomes the one text
 * block it stands for; an AI message's tool calls that are not in its content go at its end, where the provider
 * puts them. Undefined when there is no block to mark (an empty text, which Anthropic refuses as a block).
 */
function markedContent(message: BaseMessage): Block[] | undefined {
  const { content } = message;
  let blocks: Block[] =
    typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : [...(content as Block[])];
  if (AIMessage.isInstance(message)) blocks = [...blocks, ...toolUseBlocks(message, blocks)];
  const last = blocks.at(-1);
  if (!last || (last.type === 'text' && last.text === '')) return undefined;
  blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL };
  return blocks;
}

/** A copy of the message with other content and every other field kept; undefined for a kind not copied here. */
function withContent(message: BaseMessage, blocks: Block[]): BaseMessage | undefined {
  const content = blocks as MessageContent;
  const common = {
    content,
    ...(message.id ? { id: message.id } : {}),
    ...(message.name ? { name: message.name } : {}),
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  };
  if (ToolMessage.isInstance(message)) {
    return new ToolMessage({
      ...common,
      content: content as ToolMessage['content'],
      tool_call_id: message.tool_call_id,
      status: message.status,
      ...(message.artifact !== undefined ? { artifact: message.artifact } : {}),
    });
  }
  if (AIMessage.isInstance(message)) {
    return new AIMessage({
      ...common,
      tool_calls: message.tool_calls ?? [],
      invalid_tool_calls: message.invalid_tool_calls ?? [],
      ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
    });
  }
  if (HumanMessage.isInstance(message)) return new HumanMessage(common);
  if (SystemMessage.isInstance(message)) return new SystemMessage(common);
  return undefined;
}

/** What decides where a LangChain prompt gets breakpoints. */
export interface BreakpointContext {
  /** Tools bound to the call (provider definitions may carry their own `cache_control`). */
  readonly tools?: readonly unknown[] | undefined;
  /** Whether the call asks for Anthropic's automatic caching (a `cache_control` call option), which marks the end. */
  readonly automatic: boolean;
  /** Whether the system message may be replaced (not in the `createAgent` middleware, which passes it on as is). */
  readonly markSystem: boolean;
}

/**
 * The prompt with breakpoints where this package's prompts stay the same from call to call, in the order and within
 * the limit of the AI SDK adapter's: the end of the prompt, the message before a recall pair, the end of the
 * session-state pair, the end of the system prompt. The caller's own breakpoints stay and count against the limit;
 * a message with one gets no second one; marked messages are copies, the caller's objects are never changed.
 */
export function withCacheBreakpoints(
  messages: readonly BaseMessage[],
  points: StablePoints,
  { tools, automatic, markSystem }: BreakpointContext,
): BaseMessage[] {
  let room = MAX_BREAKPOINTS - callerMarks(messages, tools, automatic);
  const out = [...messages];
  if (room <= 0) return out;
  const end = automatic ? undefined : messages.length - 1;
  const positions = [end, points.beforeRecall, points.stateEnd, markSystem ? points.systemEnd : undefined].filter(
    (index, at, all): index is number =>
      index !== undefined && index >= 0 && index < messages.length && all.indexOf(index) === at,
  );
  for (const index of positions) {
    if (room <= 0) break;
    const message = out[index] as BaseMessage;
    if (contentMarks(message.content) > 0) continue;
    const blocks = markedContent(message);
    const marked = blocks && withContent(message, blocks);
    if (!marked) continue;
    out[index] = marked;
    room--;
  }
  return out;
}
