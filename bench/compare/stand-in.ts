/**
 * The one deterministic stand-in for every summarizing LLM in the comparison: the text a system asks to summarize
 * goes through this project's offline extractive summarizer, and the fake model returns its output. So all systems
 * get the same summary quality and the comparison is about policy, not wording.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { MockLanguageModelV4 } from 'ai/test';
import { toTranscript as aiSdkTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { toTranscript as langChainTranscript } from '../../adapters/langchain/to-transcript.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { extractiveSummarizer } from '../../src/summarizers/extractive-summarizer.js';
import { messageText, type Transcript } from '../../src/transcript/transcript.js';

/** The extractive summary of a text, as a SessionState of at most `maxChars` characters. */
export async function summarizeText(text: string, maxChars?: number): Promise<SessionState> {
  return extractiveSummarizer(maxChars === undefined ? {} : { maxChars }).summarize({
    messages: [{ role: 'user', parts: [{ type: 'text', text }] }],
    previous: undefined,
    abortSignal: new AbortController().signal,
  });
}

/**
 * The extractive summary of a text as plain text, one entry a line (what a summarizing LLM would answer). Plain, not
 * JSON, so a summary that is summarized again is not escaped again.
 */
export async function summaryText(text: string, maxChars?: number): Promise<string> {
  const state = await summarizeText(text, maxChars);
  return [...state.logos, ...state.pathos, ...state.abstract, state.conversationSummary]
    .filter((entry) => entry.trim() !== '')
    .join('\n');
}

/**
 * The material a summarizer prompt asks to summarize, without the asking: system messages and a trailing user
 * instruction (context-chef) are left out, and where the prompt wraps the material in tags (this project's
 * `<previous_memory>` and `<messages_to_fold>`, LangChain's `<messages>`) only the tagged text is kept. So no
 * system's summary is padded with its own instructions.
 */
export function material({ system, messages }: Transcript): string {
  const content = [...system, ...messages].filter((message) => message.role !== 'system');
  const kept = content.length > 1 && content.at(-1)?.role === 'user' ? content.slice(0, -1) : content;
  const joined = kept.map(messageText).join('\n\n');
  const tagged = [...joined.matchAll(/<(previous_memory|messages_to_fold|messages)>([\s\S]*?)<\/\1>/g)].map(
    (match) => match[2] ?? '',
  );
  return tagged.length > 0 ? tagged.join('\n\n') : joined;
}

/**
 * An AI SDK model standing in for a summarizing LLM. Asked for JSON (structured output) it answers the SessionState
 * as JSON, otherwise the rendered summary. Every call increments `calls.count`.
 */
export function aiSdkStandIn(calls: { count: number; maxChars?: number }): LanguageModelV4 {
  return new MockLanguageModelV4({
    modelId: 'summarizer-stand-in',
    doGenerate: async ({ prompt, responseFormat }) => {
      calls.count++;
      const text = material(aiSdkTranscript(prompt, undefined));
      const answer =
        responseFormat?.type === 'json'
          ? JSON.stringify(await summarizeText(text, calls.maxChars))
          : await summaryText(text, calls.maxChars);
      return {
        content: [{ type: 'text', text: answer }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

/** A LangChain chat model standing in for a summarizing LLM: answers the rendered summary of its messages. */
export class LangChainStandIn extends BaseChatModel {
  constructor(private readonly calls: { count: number; maxChars?: number }) {
    super({});
  }

  _llmType(): string {
    return 'summarizer-stand-in';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.count++;
    const text = await summaryText(material(langChainTranscript(messages)), this.calls.maxChars);
    const message = new AIMessageChunk({ content: text });
    return { generations: [{ text, message: message as unknown as AIMessage }] };
  }
}
