import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';

/** Options of the recording model. */
export interface RecordingOptions {
  model?: string;
  /** Input tokens to report in `usage_metadata`, from the messages received. */
  inputTokens?: (messages: BaseMessage[]) => number;
  /** The reply; `ok` by default. */
  reply?: (messages: BaseMessage[]) => AIMessage;
}

function usageOf(tokens: number | undefined) {
  return tokens === undefined
    ? {}
    : { usage_metadata: { input_tokens: tokens, output_tokens: 1, total_tokens: tokens + 1 } };
}

/** A LangChain chat model that answers every call with a fixed text and records the messages it received. */
export class RecordingChatModel extends BaseChatModel {
  readonly model: string;
  readonly calls: BaseMessage[][] = [];
  readonly recording: RecordingOptions;

  constructor(options: RecordingOptions = {}) {
    super({});
    this.model = options.model ?? 'replay-model';
    this.recording = options;
  }

  _llmType(): string {
    return 'recording';
  }

  override bindTools(tools: unknown[]) {
    return this.withConfig({ tools } as Record<string, unknown>);
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const reply = this.recording.reply?.(messages) ?? new AIMessage('ok');
    const tokens = this.recording.inputTokens?.(messages);
    const message = new AIMessageChunk({ content: reply.content, tool_calls: reply.tool_calls, ...usageOf(tokens) });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

/** The recording model, streaming its reply word by word with usage on the last chunk. */
export class StreamingRecordingChatModel extends RecordingChatModel {
  override async *_streamResponseChunks(messages: BaseMessage[]): AsyncGenerator<ChatGenerationChunk> {
    this.calls.push(messages);
    const words = ['streamed ', 'reply'];
    for (const [index, text] of words.entries()) {
      const last = index === words.length - 1;
      const tokens = last ? this.recording.inputTokens?.(messages) : undefined;
      yield new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text, ...usageOf(tokens) }) });
    }
  }
}
