import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, jsonSchema, type LanguageModel, type ModelMessage, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { withContextCompression as withAiSdkCompression } from '../../adapters/ai-sdk/index.js';
import { withContextCompression as withLangChainCompression } from '../../adapters/langchain/index.js';
import type { CompressionReport } from '../../src/engine/call-metadata.js';
import type { CompressionOptions } from '../../src/options/options.js';
import type { ProviderApi, ProviderServer } from './provider-server.js';

/**
 * The provider packages as a user calls them, each wrapped by this package's adapter: one call of a chat (its whole
 * history resent), and a tool loop, non-streamed (`generateText`, `invoke`) or streamed (`streamText`, `stream`).
 */

/** One turn of a chat, in the frameworks' neutral terms. */
export interface Turn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** What one call answered, with the report the framework carries (`providerMetadata`, `response_metadata`). */
export interface Answer {
  readonly text: string;
  readonly report: CompressionReport | undefined;
}

/** Options a client is wrapped with: the engine's listeners and limits. */
export type WrapOptions = Pick<CompressionOptions, 'onCall' | 'onError' | 'onCompress' | 'contextWindow'> & {
  summarizer?: unknown;
};

/** What a tool loop did: the model calls it made (steps) and the text it ended with. */
export interface LoopResult {
  readonly steps: number;
  readonly text: string;
}

/** A compressing client of one provider package. */
export interface Client {
  readonly name: string;
  readonly api: ProviderApi;
  readonly modelId: string;
  /** A conversation's client: a model wrapped once, so the engine (its learning, its stored state) is shared. */
  open(server: ProviderServer, options: WrapOptions, settings?: ClientSettings): Conversation;
}

/** Settings of the underlying model, as a user would give them. */
export interface ClientSettings {
  /** Anthropic beta flags (`anthropic-beta`, `betas`). */
  readonly betas?: readonly string[];
  /** Output tokens every call asks for: the model's `maxTokens` (LangChain), each call's `maxOutputTokens` (AI SDK). */
  readonly maxOutputTokens?: number;
}

export interface Conversation {
  call(history: readonly Turn[], stream: boolean): Promise<Answer>;
  /** A tool loop of at most `maxSteps` model calls, reading files with `read`. */
  loop(prompt: string, read: (path: string) => string, stream: boolean, maxSteps: number): Promise<LoopResult>;
}

const readSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } as const;

/**
 * A `streamText` result once its text is complete. The stream reports an error as a part, not by throwing: the error
 * it reported is thrown.
 */
async function streamed<R extends { text: PromiseLike<string> }>(
  start: (onError: (event: { error: unknown }) => void) => R,
): Promise<{ result: R; text: string }> {
  let failure: unknown;
  const result = start(({ error }) => {
    failure = error;
  });
  const text = await Promise.resolve(result.text).catch((error: unknown) => {
    throw failure ?? error;
  });
  if (failure) throw failure;
  return { result, text };
}

/** An AI SDK client: `generateText` / `streamText` on a model wrapped by `withContextCompression`. */
function aiSdk(
  name: string,
  api: ProviderApi,
  modelId: string,
  make: (server: ProviderServer, settings: ClientSettings) => LanguageModel,
): Client {
  return {
    name,
    api,
    modelId,
    open(server, options, settings = {}) {
      const model = withAiSdkCompression(
        make(server, settings) as Parameters<typeof withAiSdkCompression>[0],
        options as never,
      );
      const headers = settings.betas ? { 'anthropic-beta': settings.betas.join(',') } : undefined;
      const common = { model, maxRetries: 0, headers, maxOutputTokens: settings.maxOutputTokens };
      return {
        async call(history, stream) {
          const messages: ModelMessage[] = history.map((turn) => ({ role: turn.role, content: turn.text }));
          if (!stream) {
            const result = await generateText({ ...common, messages });
            return { text: result.text, report: result.providerMetadata?.['context-compression'] as never };
          }
          const { result, text } = await streamed((onError) => streamText({ ...common, messages, onError }));
          return { text, report: (await result.providerMetadata)?.['context-compression'] as never };
        },
        async loop(prompt, read, stream, maxSteps) {
          const tools = {
            readFile: tool({
              description: 'Reads a file of the repository',
              inputSchema: jsonSchema<{ path: string }>(readSchema as never),
              execute: async ({ path }) => read(path),
            }),
          };
          const loop = { ...common, prompt, tools, stopWhen: stepCountIs(maxSteps) };
          if (!stream) {
            const result = await generateText(loop);
            return { steps: result.steps.length, text: result.text };
          }
          const { result, text } = await streamed((onError) => streamText({ ...loop, onError }));
          return { steps: (await result.steps).length, text };
        },
      };
    },
  };
}

/** A LangChain client: `invoke` / `stream` on a chat model wrapped by `withContextCompression`. */
function langchain(
  name: string,
  api: ProviderApi,
  modelId: string,
  make: (server: ProviderServer, settings: ClientSettings) => BaseChatModel,
): Client {
  return {
    name,
    api,
    modelId,
    open(server, options, settings = {}) {
      const model = withLangChainCompression(make(server, settings), options as never);
      const toMessages = (history: readonly Turn[]): BaseMessage[] =>
        history.map((turn) => (turn.role === 'user' ? new HumanMessage(turn.text) : new AIMessage(turn.text)));
      const answer = async (
        runnable: {
          invoke: (m: BaseMessage[]) => Promise<AIMessageChunk>;
          stream: (m: BaseMessage[]) => Promise<AsyncIterable<AIMessageChunk>>;
        },
        messages: BaseMessage[],
        stream: boolean,
      ) => {
        if (!stream) return runnable.invoke(messages);
        let whole: AIMessageChunk | undefined;
        for await (const chunk of await runnable.stream(messages)) whole = whole ? whole.concat(chunk) : chunk;
        if (!whole) throw new Error('an empty stream');
        return whole;
      };
      return {
        async call(history, stream) {
          const message = await answer(model as never, toMessages(history), stream);
          return {
            text: typeof message.content === 'string' ? message.content : message.text,
            report: message.response_metadata?.['context-compression'] as never,
          };
        },
        async loop(prompt, read, stream, maxSteps) {
          const readFile = langchainTool(async ({ path }: { path: string }) => read(path), {
            name: 'readFile',
            description: 'Reads a file of the repository',
            schema: z.object({ path: z.string() }),
          });
          const bound = model.bindTools?.([readFile]);
          if (!bound) throw new Error('the model cannot bind tools');
          const messages: BaseMessage[] = [new HumanMessage(prompt)];
          for (let step = 1; ; step++) {
            const message = await answer(bound as never, messages, stream);
            messages.push(message);
            const calls = message.tool_calls ?? [];
            if (calls.length === 0 || step >= maxSteps) return { steps: step, text: message.text };
            for (const call of calls)
              messages.push(new ToolMessage({ content: read(String(call.args.path)), tool_call_id: call.id ?? '' }));
          }
        },
      };
    },
  };
}

/** LangChain's gpt-4o on the server, through the Responses API or Chat Completions. */
function chatOpenAI(useResponsesApi: boolean) {
  return (server: ProviderServer, settings: ClientSettings) =>
    new ChatOpenAI({
      model: 'gpt-4o',
      apiKey: 'test',
      maxRetries: 0,
      useResponsesApi,
      ...(settings.maxOutputTokens && { maxTokens: settings.maxOutputTokens }),
      configuration: { baseURL: server.baseURL('openai') },
    });
}

/** Every provider package the adapters are tested through, each a model a user would pick. */
export const CLIENTS: readonly Client[] = [
  aiSdk('@ai-sdk/openai (Responses)', 'openai-responses', 'gpt-4o', (server) =>
    createOpenAI({ baseURL: server.baseURL('openai'), apiKey: 'test' }).responses('gpt-4o'),
  ),
  aiSdk('@ai-sdk/openai (Chat Completions)', 'openai-chat', 'gpt-4o', (server) =>
    createOpenAI({ baseURL: server.baseURL('openai'), apiKey: 'test' }).chat('gpt-4o'),
  ),
  aiSdk('@ai-sdk/anthropic', 'anthropic', 'claude-sonnet-4-5', (server) =>
    createAnthropic({ baseURL: server.baseURL('anthropic'), apiKey: 'test' })('claude-sonnet-4-5'),
  ),
  aiSdk('@ai-sdk/google', 'google', 'gemini-2.5-flash', (server) =>
    createGoogleGenerativeAI({ baseURL: server.baseURL('google'), apiKey: 'test' })('gemini-2.5-flash'),
  ),
  langchain('@langchain/openai (Chat Completions)', 'openai-chat', 'gpt-4o', chatOpenAI(false)),
  langchain('@langchain/openai (Responses)', 'openai-responses', 'gpt-4o', chatOpenAI(true)),
  langchain(
    '@langchain/anthropic',
    'anthropic',
    'claude-sonnet-4-5',
    (server, settings) =>
      new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'test',
        maxRetries: 0,
        clientOptions: { baseURL: server.baseURL('anthropic', 'langchain') },
        ...(settings.betas && { betas: [...settings.betas] as never }),
        ...(settings.maxOutputTokens && { maxTokens: settings.maxOutputTokens }),
      }),
  ),
];
