import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { type FileCounting, fileCountingKey, UNKNOWN_FILE_COUNTING } from '../../src/counting/provider-family.js';
import { InvalidPromptError } from '../../src/errors.js';
import type { Message, Transcript } from '../../src/transcript/transcript.js';
import { convertMessage, convertToolDefinition, UnreadableMessage } from './convert-message.js';

interface Converted {
  readonly content: BaseMessage['content'];
  readonly message: Message;
}

/**
 * Converts LangChain messages and tools into the engine's transcript and remembers each conversion by object: an
 * agent loop sends the same message objects on every step, so they convert once and stay the same transcript
 * objects from call to call, which the engine's own caches are keyed by. One converter belongs to one engine.
 * Conversions are kept apart by the way files are counted (`fileCountingKey`), so a message converted for one
 * provider is never reused, with that provider's file counts, for another.
 */
export class TranscriptConverter {
  /** Transcript messages by LangChain message, with the content each was made from, per way of counting files. */
  private readonly conversions = new Map<string, WeakMap<BaseMessage, Converted>>();
  /** Tool groups by their first ToolMessage, so a step's results are the same transcript message from call to call. */
  private readonly toolGroups = new WeakMap<BaseMessage, { members: readonly Message[]; group: Message }>();
  /** Tool definitions in the counting shape by tool object. */
  private readonly definitions = new WeakMap<object, unknown>();

  /**
   * The transcript of a prompt: leading system messages as the system prompt, tool results grouped by step, files
   * counted for `counting` (the provider and model the prompt goes to).
   */
  toTranscript(
    messages: readonly BaseMessage[],
    tools?: readonly unknown[],
    counting: FileCounting = UNKNOWN_FILE_COUNTING,
  ): Transcript {
    const toolNames = new Map<string, string>();
    const key = fileCountingKey(counting);
    let converted = this.conversions.get(key);
    if (!converted) {
      converted = new WeakMap();
      this.conversions.set(key, converted);
    }
    const convert = (message: BaseMessage) => this.message(message, toolNames, converted, counting);
    const out: Message[] = [];
    for (const [messageIndex, message] of messages.entries()) {
      if (typeof (message as Partial<BaseMessage> | null)?.getType !== 'function')
        throw new InvalidPromptError({ messageIndex, field: '', expected: 'a LangChain message', value: message });
      const calls = (message as BaseMessage & { tool_calls?: { id?: string; name: string }[] }).tool_calls;
      if (Array.isArray(calls)) for (const call of calls) if (call?.id) toolNames.set(call.id, call.name);
      try {
        out.push(convert(message));
      } catch (error) {
        if (!(error instanceof UnreadableMessage)) throw error;
        throw new InvalidPromptError({ messageIndex, ...error });
      }
    }
    let leading = 0;
    while (leading < out.length && out[leading]?.role === 'system') leading++;
    return {
      system: out.slice(0, leading),
      messages: this.groupToolResults(out.slice(leading)),
      tools: this.toolDefinitions(tools),
    };
  }

  private message(
    message: BaseMessage,
    toolNames: ReadonlyMap<string, string>,
    converted: WeakMap<BaseMessage, Converted>,
    counting: FileCounting,
  ): Message {
    const cached = converted.get(message);
    if (cached && cached.content === message.content) return cached.message;
    const result = convertMessage(message, toolNames, counting);
    // a tool message without a name of its own borrows one from the history, which may differ from call to call
    if (result.role !== 'tool' || (message as ToolMessage).name)
      converted.set(message, { content: message.content, message: result });
    return result;
  }

  /**
   * Consecutive tool messages as one transcript message with a result part each (`original` is the array of
   * ToolMessages, each part's `original` its ToolMessage): the engine sees a step's results together, as it does
   * from the AI SDK, so both adapters count and decide alike.
   */
  private groupToolResults(messages: readonly Message[]): Message[] {
    const out: Message[] = [];
    let run: Message[] = [];
    for (const message of messages) {
      if (message.role === 'tool') {
        run.push(message);
        continue;
      }
      if (run.length > 0) out.push(this.toolGroup(run));
      run = [];
      out.push(message);
    }
    if (run.length > 0) out.push(this.toolGroup(run));
    return out;
  }

  private toolGroup(members: readonly Message[]): Message {
    const first = members[0]?.original as BaseMessage;
    const known = this.toolGroups.get(first);
    if (known?.members.length === members.length && known.members.every((member, index) => member === members[index]))
      return known.group;
    const group: Message = {
      role: 'tool',
      parts: members.flatMap((member) => member.parts),
      original: members.map((member) => member.original as BaseMessage),
    };
    this.toolGroups.set(first, { members, group });
    return group;
  }

  /** Tool definitions in one shape for counting, `{ name, description, inputSchema }`. */
  toolDefinitions(tools: readonly unknown[] | undefined): unknown[] {
    return (tools ?? []).map((tool) => this.toolDefinition(tool));
  }

  private toolDefinition(tool: unknown): unknown {
    if (typeof tool !== 'object' || tool === null) return tool;
    const known = this.definitions.get(tool);
    if (known !== undefined) return known;
    const definition = convertToolDefinition(tool);
    this.definitions.set(tool, definition);
    return definition;
  }
}
