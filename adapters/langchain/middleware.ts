import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { AgentMiddleware } from 'langchain';
import { readCallOptions } from './call-options.js';
import { compressBaseMessages } from './compress-base-messages.js';
import { createEngine, type LangChainCompressionOptions } from './create-engine.js';
import { type ModelInfo, modelInfo, reportedInputTokens } from './model-info.js';

/** Options of the `createAgent` middleware: the adapter's options. */
export type ContextCompressionMiddlewareOptions = LangChainCompressionOptions;

/** The brand `createMiddleware` puts on a middleware; set here so this module does not load `langchain`. */
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');

interface RequestLike {
  model: unknown;
  messages: BaseMessage[];
  systemMessage?: BaseMessage;
  tools?: readonly unknown[];
  runtime?: unknown;
}

/**
 * Middleware for langchain's `createAgent`: compresses what the model sees on every step, in `wrapModelCall`. The
 * agent's state is never touched, so the checkpointed history stays complete; state lives in the engine's store.
 * `request.systemMessage` is passed on as the very same object, so the awareness block goes at the head of the
 * `<session_state>` message instead of into the system prompt. Per run:
 * `agent.invoke(input, { configurable: { 'context-compression': { disable, force, namespace } } })`.
 */
export function contextCompressionMiddleware(options: ContextCompressionMiddlewareOptions = {}): AgentMiddleware {
  const engine = createEngine(options);
  const infos = new WeakMap<object, ModelInfo>();
  const infoOf = (model: unknown): ModelInfo => {
    const key = model as object;
    let info = infos.get(key);
    if (!info) {
      info = modelInfo(model as BaseChatModel);
      infos.set(key, info);
    }
    return info;
  };
  const wrapModelCall = async (request: RequestLike, handler: (request: RequestLike) => Promise<unknown>) => {
    const callOptions = readCallOptions(request.runtime);
    if (callOptions.disable) return handler(request);
    const info = infoOf(request.model);
    const system = request.systemMessage && request.systemMessage.text !== '' ? [request.systemMessage] : [];
    const compressed = await compressBaseMessages(engine, {
      messages: [...system, ...request.messages],
      tools: request.tools,
      model: info,
      callOptions,
      awareness: 'state',
    });
    const response = await handler({ ...request, messages: compressed.messages.slice(system.length) });
    const reported = reportedInputTokens(response as BaseMessage);
    if (reported !== undefined) engine.recordUsage(info.modelKey, compressed.estimatedTokens, reported);
    return response;
  };
  return {
    [MIDDLEWARE_BRAND]: true,
    name: 'ContextCompressionMiddleware',
    wrapModelCall,
  } as unknown as AgentMiddleware;
}
