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
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { toTranscript as aiSdkTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { toTranscript as langChainTranscript } from '../../adapters/langchain/to-transcript.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { extractiveSummarizer } from '../../src/summarizers/extractive-summarizer.js';
import { messageText, type Transcript } from '../../src/transcript/transcript.js';
import type { SummarizerCalls } from './types.js';

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
/** o200k tokens of a text, special tokens as text. */
const tokensOf = (text: string) => countTokens(text, PLAIN_TEXT);

/** A transcript's text as a provider receives it (every message, its role included), for counting. */
const sentText = ({ system, messages }: Transcript) =>
  [...system, ...messages].map((message) => `${message.role}: ${messageText(message)}`).join('\n');

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
export function aiSdkStandIn(calls: SummarizerCalls): LanguageModelV4 {
  return new MockLanguageModelV4({
    modelId: 'summarizer-stand-in',
    doGenerate: async ({ prompt, responseFormat }) => {
      calls.count++;
      const transcript = aiSdkTranscript(prompt, undefined);
      const text = material(transcript);
      const answer =
        responseFormat?.type === 'json'
          ? JSON.stringify(await summarizeText(text, calls.maxChars))
          : await summaryText(text, calls.maxChars);
      // the schema of structured output is sent too
      const schema = responseFormat?.type === 'json' ? JSON.stringify(responseFormat.schema ?? {}) : '';
      calls.inputTokens += tokensOf(sentText(transcript)) + tokensOf(schema);
      calls.outputTokens += tokensOf(answer);
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
  constructor(private readonly calls: SummarizerCalls) {
    super({});
  }

  _llmType(): string {
    return 'summarizer-stand-in';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.count++;
    const transcript = langChainTranscript(messages);
    const text = await summaryText(material(transcript), this.calls.maxChars);
    this.calls.inputTokens += tokensOf(sentText(transcript));
    this.calls.outputTokens += tokensOf(text);
    const message = new AIMessageChunk({ content: text });
    return { generations: [{ text, message: message as unknown as AIMessage }] };
  }
}
