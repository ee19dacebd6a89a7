import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { AgentMiddleware } from 'langchain';
import { CALL_OPTIONS_KEY, readCallOptions } from './call-options.js';
import { compressBaseMessages } from './compress-base-messages.js';
import { providerUsageOf } from './compression-report.js';
import { breakpointsOn, createEngine, type LangChainCompressionOptions, requireBudget } from './create-engine.js';
import { isChatModel, type ModelInfo, modelInfo, reportedInputTokens } from './model-info.js';
import { runWithRetry } from './overflow-retry.js';
import { attachReport, dispatchReportInRun } from './report-metadata.js';
import { type SendAsBefore, SentRequests } from './sent-requests.js';
import { TranscriptConverter } from './transcript-converter.js';

/** Options of the `createAgent` middleware: the adapter's options. */
export type ContextCompressionMiddlewareOptions = LangChainCompressionOptions;

/** The brand `createMiddleware` puts on a middleware; set here so this module does not load `langchain`. */
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');

/** How an unknown context window is fixed for this middleware, named in its errors. */
const WINDOW_EXAMPLE = 'contextCompressionMiddleware({ contextWindow: 128_000 })';

type WrapModelCall = NonNullable<AgentMiddleware['wrapModelCall']>;

/**
 * Middleware for langchain's `createAgent`: compresses what the model sees on every step, in `wrapModelCall`. The
 * agent's state is never touched, so the checkpointed history stays complete; state lives in the engine's store.
 * `request.systemMessage` is passed on as the very same object, so the awareness block goes at the head of the
 * `<session_state>` message instead of into the system prompt. Per run:
 * `agent.invoke(input, { configurable: { 'context-compression': { disable, force, namespace } } })`.
 * Without `contextWindow`, the model's window comes from its profile or the built-in table; langchain shows a
 * middleware the model only at its first call, so a model whose window is unknown fails there, before it is called.
 * A model call the provider rejects as too long is compressed again to fit what the rejection showed and retried once.
 * With the agent's own model as `summarizer` (the same object), a fold's summary continues the agent's previous
 * request, read from the provider's prompt cache (see `chatModelSummarizer`'s `continueCachedPrompt`).
 */
export function contextCompressionMiddleware(options: ContextCompressionMiddlewareOptions = {}): AgentMiddleware {
  // options that are not an object (null) are left to the engine's check, which names them
  const given = (options as ContextCompressionMiddlewareOptions | null)?.summarizer;
  const own = isChatModel(given) ? (given as BaseChatModel) : undefined;
  const engine = createEngine(options, own);
  const cacheBreakpoints = breakpointsOn(options);
  const converter = new TranscriptConverter();
  const requests = new SentRequests();
  /** What each model the agent calls is, read once and checked to have a known window. */
  const modelInfos = new WeakMap<object, ModelInfo>();
  const infoOf = (model: object): ModelInfo => {
    let info = modelInfos.get(model);
    if (!info) {
      info = modelInfo(model);
      requireBudget(engine, info, WINDOW_EXAMPLE);
      modelInfos.set(model, info);
    }
    return info;
  };
  const wrapModelCall: WrapModelCall = async (request, handler) => {
    const info = infoOf(request.model);
    const callOptions = readCallOptions(request.runtime);
    if (callOptions.disable) return handler(request);
    const system = request.systemMessage && request.systemMessage.text !== '' ? [request.systemMessage] : [];
    const messages = [...system, ...request.messages];
    // a fold's summary by the agent's own model continues its previous request, sent as the agent sends it
    const send = own !== undefined && request.model === own ? sendAsTheAgent(request, own) : undefined;
    return runWithRetry({
      engine,
      info,
      compress: (retryOf) =>
        compressBaseMessages(engine, {
          messages,
          tools: request.tools,
          model: info,
          callOptions,
          awareness: 'state',
          converter,
          report: 'later',
          retryOf,
          // the system message is passed on as the very same object: its end is left unmarked
          breakpoints:
            cacheBreakpoints && info.cachesAtBreakpoints
              ? { tools: request.tools, automatic: request.modelSettings?.cache_control != null, markSystem: false }
              : undefined,
          ...(send && {
            request: {},
            continueRequest: (previous, from, to) => requests.continuation(previous, messages, from, to),
          }),
        }),
      estimate: (compressed) => compressed.estimatedTokens,
      settle: (compressed) => compressed.settled(),
      run: async (compressed) => {
        const response = await handler({ ...request, messages: compressed.messages.slice(system.length) });
        if (send && compressed.request) {
          requests.remember(compressed.request, { messages: compressed.messages, send });
          requests.answered(compressed.request, providerUsageOf(response as BaseMessage));
        }
        // told once the provider took the prompt: a rejected attempt's report is not dispatched
        await dispatchReportInRun(compressed.metadata);
        const reported = reportedInputTokens(response as BaseMessage);
        if (reported !== undefined) engine.recordUsage(info.modelKey, () => compressed.estimatedTokens, reported);
        attachReport(response as BaseMessage, compressed.metadata);
        return response;
      },
    });
  };
  const middleware: AgentMiddleware = { name: 'ContextCompressionMiddleware', wrapModelCall };
  return Object.assign(middleware, { [MIDDLEWARE_BRAND]: true });
}

type ModelRequest = Parameters<WrapModelCall>[0];

/**
 * How to send a prompt as the agent sends its model calls: its tools bound with the request's tool choice and model
 * settings, as the agent binds them when no structured response is asked for; not compressed, without the run's
 * callbacks (a summary request is not agent output). Undefined when the request asks for a structured response (its
 * tools and format change the request) or forces a tool call (the summary would be a tool call, not a state). What
 * middleware inside this one changes in the request (another model, its own `cache_control`) is not seen.
 */
function sendAsTheAgent(request: ModelRequest, model: BaseChatModel): SendAsBefore | undefined {
  if ((request as { responseFormat?: unknown }).responseFormat !== undefined || !model.bindTools) return undefined;
  const { tools, toolChoice, modelSettings } = request as {
    tools?: unknown[];
    toolChoice?: unknown;
    modelSettings?: Record<string, unknown>;
  };
  if (toolChoice && toolChoice !== 'auto' && toolChoice !== 'none') return undefined;
  return async (prompt, signal) => {
    const options = { ...modelSettings, tool_choice: toolChoice || undefined };
    const bound = model.bindTools?.((tools ?? []) as never, options as never);
    return bound?.invoke(prompt, { signal, configurable: { [CALL_OPTIONS_KEY]: { disable: true } } } as never);
  };
}
