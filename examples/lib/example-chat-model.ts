import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';

interface ExampleCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

/**
 * The chat model the LangChain examples use: an offline stand-in named gpt-4o-mini that answers without a network,
 * so every example runs without an API key. Its answer says how many messages it was sent, and it reports
 * `usage_metadata` with a rough input count (characters / 4) as a provider reports its own count, which is what the
 * wrapper calibrates against. To use a real model, pass e.g. `new ChatOpenAI({ model: 'gpt-4o-mini' })` from
 * `@langchain/openai` instead.
 */
export class ExampleChatModel extends BaseChatModel<ExampleCallOptions> {
  model = 'gpt-4o-mini';
  /** Shared by the copies LangChain makes of the model (bound tools, compression), so every call is counted once. */
  readonly state = { calls: 0 };

  constructor() {
    super({});
  }

  _llmType(): string {
    return 'example';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const text = `(mock answer ${++this.state.calls}; the prompt had ${messages.length} messages)`;
    const inputTokens = Math.ceil(messages.reduce((sum, message) => sum + message.text.length, 0) / 4);
    const message = new AIMessage({
      content: text,
      usage_metadata: { input_tokens: inputTokens, output_tokens: 10, total_tokens: inputTokens + 10 },
    });
    return { generations: [{ text, message }] };
  }

  override bindTools(tools: BindToolsInput[]): Runnable<BaseLanguageModelInput, AIMessageChunk, ExampleCallOptions> {
    return this.withConfig({ tools });
  }
}
