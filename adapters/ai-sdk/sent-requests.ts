import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { PromptContinuation } from '../../src/summarizers/prompt-continuation.js';
import { providerUsageOf } from './compression-report.js';

/** A request as it was sent: its params (the compressed prompt, with its cache breakpoints), its model, its usage. */
interface SentRequest {
  readonly params: LanguageModelV4CallOptions;
  readonly model: LanguageModelV4;
  usage?: LanguageModelV4Usage;
}

/**
 * The requests the middleware sent, by the key each call gave the engine (`CompressInput.request`), held only as
 * long as the engine keeps the key: what a later fold's summary continues (see `PromptContinuation`).
 */
export class SentRequests {
  private readonly requests = new WeakMap<object, SentRequest>();

  remember(key: object, params: LanguageModelV4CallOptions, model: LanguageModelV4): void {
    this.requests.set(key, { params, model });
  }

  /** What the provider reported of the request's tokens, once it answered. */
  answered(key: object | undefined, usage: LanguageModelV4Usage | undefined): void {
    const request = key && this.requests.get(key);
    if (request && usage) request.usage = usage;
  }

  /**
   * The summary request continuing `key`'s request from a call whose (uncompressed) params are `current`: that
   * request as sent, `current`'s messages from history index `from` up to `to`, and the instruction as a last user
   * message,
   * sent to the same model with the same settings (tools and tool choice included: a change of either would make the
   * provider read none of the messages from its cache). Undefined when the request is not known or its usage showed
   * no prompt cache (neither read nor written).
   */
  continuation(
    key: object,
    current: LanguageModelV4CallOptions,
    from: number,
    to: number,
  ): PromptContinuation['complete'] | undefined {
    const request = this.requests.get(key);
    const cache = request?.usage?.inputTokens;
    if (!request || !cache || (cache.cacheRead ?? 0) + (cache.cacheWrite ?? 0) === 0) return undefined;
    const { params, model } = request;
    let leading = 0;
    while (current.prompt[leading]?.role === 'system') leading++;
    const since = current.prompt.slice(leading + from, leading + to);
    return async (instruction, abortSignal) => {
      const last: LanguageModelV4Message = { role: 'user', content: [{ type: 'text', text: instruction }] };
      const result = await model.doGenerate({ ...params, prompt: [...params.prompt, ...since, last], abortSignal });
      const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const usage = providerUsageOf(result.usage);
      return { text, usage: usage && { ...usage, model: result.response?.modelId ?? model.modelId } };
    };
  }
}
