import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatGeneration } from '@langchain/core/outputs';
import type { ProviderUsage } from '../../src/reports/compression-report.js';
import type { PromptContinuation } from '../../src/summarizers/prompt-continuation.js';
import { providerUsageOf } from './compression-report.js';

/**
 * Sends a prompt as the request it continues was sent: through the same model with the same options and tools, not
 * compressed; the answer's message.
 */
export type SendAsBefore = (prompt: BaseMessage[], signal: AbortSignal | undefined) => Promise<BaseMessage | undefined>;

/**
 * Sending as a compressing model's call did: through the model's own `generate` (`base`, which compresses nothing) on
 * the wrapper (`self`), with the call's options (its tools among them) but not its callbacks: a summary request is
 * not part of the caller's run.
 */
export function sendThrough(base: BaseChatModel, self: BaseChatModel, options: unknown): SendAsBefore {
  return async (prompt, signal) => {
    // not the caller's run either: its callbacks, id and name stay with the call it made
    const own = { ...(options as object), callbacks: undefined, runId: undefined, runName: undefined, signal };
    const answer = await base.generate.call(self, [prompt], own);
    return (answer.generations[0]?.[0] as ChatGeneration | undefined)?.message;
  };
}

/** A request as it was sent: its messages (compressed, with their cache marks), how to send another like it, its usage. */
interface SentRequest {
  readonly messages: readonly BaseMessage[];
  readonly send: SendAsBefore;
  usage?: ProviderUsage;
}

/**
 * The requests a compressing model sent, by the key each call gave the engine (`CompressInput.request`): what a later
 * fold's summary continues (see `PromptContinuation`), as the AI SDK adapter's do.
 */
export class SentRequests {
  private readonly requests = new WeakMap<object, SentRequest>();

  remember(key: object, request: SentRequest): void {
    this.requests.set(key, request);
  }

  /** What the provider reported of the request's tokens, from its answer (see `providerUsageOf`). */
  answered(key: object | undefined, usage: ProviderUsage | undefined): void {
    const request = key && this.requests.get(key);
    if (request && usage) request.usage = usage;
  }

  /**
   * The summary request continuing `key`'s request from a call whose (uncompressed) messages are `current`: that
   * request's messages as sent, `current`'s messages from history index `from` up to `to`, and the instruction as a
   * last human message, sent as that request was (the same model, options and tools). Undefined when the
   * request is not known or its usage showed no prompt cache (neither read nor written).
   */
  continuation(
    key: object,
    current: readonly BaseMessage[],
    from: number,
    to: number,
  ): PromptContinuation['complete'] | undefined {
    const request = this.requests.get(key);
    const cache = request?.usage;
    if (!request || !cache || (cache.cacheReadTokens ?? 0) + (cache.cacheWriteTokens ?? 0) === 0) return undefined;
    let leading = 0;
    while (current[leading]?._getType() === 'system') leading++;
    const since = current.slice(leading + from, leading + to);
    const { messages, send } = request;
    return async (instruction, abortSignal) => {
      const message = await send([...messages, ...since, new HumanMessage(instruction)], abortSignal);
      const usage = providerUsageOf(message);
      const named = (message?.response_metadata ?? {}) as { model_name?: unknown; model?: unknown };
      const model = [named.model_name, named.model].find((name) => typeof name === 'string') as string | undefined;
      return { text: message?.text ?? '', usage: usage && { ...usage, model: model ?? 'unknown' } };
    };
  }
}
