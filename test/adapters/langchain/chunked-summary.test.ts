import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ModelProfile } from '@langchain/core/language_models/profile';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { RunnableLambda } from '@langchain/core/runnables';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { chatModelSummarizer } from '../../../adapters/langchain/chat-model-summarizer.js';
import { withContextCompression } from '../../../adapters/langchain/with-context-compression.js';
import { approximateCounter } from '../../../src/counting/token-counter.js';
import type { CompressEvent } from '../../../src/index.js';

const counter = approximateCounter();
const WINDOW = 4_096;
/** Tokens of the window a summarizer call may fill, a quarter (1024) kept for its answer. */
const READABLE = WINDOW - 1_024;

const textOf = (message: BaseMessage | undefined) => (typeof message?.content === 'string' ? message.content : '');

/**
 * A chat model whose profile gives a 4096-token window; its structured output keeps every fact it reads (those of
 * the previous memory included) and records the size of each prompt.
 */
class SmallSummarizerChat extends BaseChatModel {
  readonly prompts: number[] = [];
  constructor() {
    super({});
  }
  _llmType() {
    return 'small-summarizer';
  }
  override get profile(): ModelProfile {
    return { maxInputTokens: WINDOW };
  }
  async _generate(): Promise<ChatResult> {
    return { generations: [{ text: 'ok', message: new AIMessage('ok') }] };
  }
  // biome-ignore lint/suspicious/noExplicitAny: the overloads of withStructuredOutput are not needed by this fake
  override withStructuredOutput(): any {
    return RunnableLambda.from(async (input: BaseMessage[]) => {
      const text = input.map(textOf).join('\n');
      this.prompts.push(counter.count(text));
      const facts = [...new Set(text.match(/FACT-\d+/g) ?? [])];
      return {
        logos: facts.map((fact) => `${fact} holds.`),
        pathos: [],
        abstract: [],
        salience: [],
        conversationSummary: `${facts.length} facts so far.`,
      };
    });
  }
}

const chat = (turns: number): BaseMessage[] =>
  Array.from({ length: turns }, (_, index) =>
    index % 2 === 0
      ? new HumanMessage(`Question ${index}: FACT-${index} holds. ${'details '.repeat(90)}`)
      : new AIMessage(`Answer ${index}: FACT-${index} noted. ${'details '.repeat(90)}`),
  );

describe('a chat model summarizer with a window smaller than the fold (LangChain)', () => {
  it('reads its window from the profile and folds in chunks that fit it, into one state', async () => {
    const summarizer = new SmallSummarizerChat();
    expect(chatModelSummarizer(summarizer).contextWindow).toBe(WINDOW);
    const events: CompressEvent[] = [];
    const main = fakeModel().respond(new AIMessage('done'));
    const model = withContextCompression(main, {
      contextWindow: 16_000,
      reserveOutputTokens: 1_000,
      compressTo: 0.1,
      tokenCounter: counter,
      summarizer,
      // the fold made by the call that crosses the threshold, its summary waited for
      summarizeAhead: false,
      onCompress: (event) => events.push(event),
    });
    await model.invoke(chat(61));
    const folded = events[0]?.messagesFolded ?? 0;
    expect(folded).toBeGreaterThan(30);
    expect(summarizer.prompts.length).toBeGreaterThanOrEqual(3);
    expect(events[0]?.summarizerCalls).toBe(summarizer.prompts.length);
    expect(Math.max(...summarizer.prompts)).toBeLessThanOrEqual(READABLE);
    const stateMessage = (main.calls[0]?.messages ?? []).map(textOf).find((text) => text.startsWith('<session_state>'));
    expect(stateMessage).toContain('FACT-0 holds.');
    expect(stateMessage).toContain(`FACT-${folded - 1} holds.`);
  });
});
