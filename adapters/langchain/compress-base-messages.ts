import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { type BaseMessage, type BaseMessageLike, coerceMessageLikeToMessage } from '@langchain/core/messages';
import { type CompressionReport, callMetadata } from '../../src/engine/call-metadata.js';
import type { CompressInput } from '../../src/engine/compress-call.js';
import type { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError, type ProviderOverflowError } from '../../src/errors.js';
import { type BreakpointContext, withCacheBreakpoints } from './cache-breakpoints.js';
import type { ContextCompressionCallOptions } from './call-options.js';
import { type AwarenessPlacement, convertTranscript } from './from-transcript.js';
import type { ModelInfo } from './model-info.js';
import type { TranscriptConverter } from './transcript-converter.js';

/** The messages of a model or chain input: messages, a prompt value (from a ChatPromptTemplate) or a string. */
export function inputMessages(input: BaseLanguageModelInput): BaseMessage[] {
  if (typeof input === 'string') return [coerceMessageLikeToMessage(input)];
  if (Array.isArray(input)) return input.map((item) => coerceMessageLikeToMessage(item as BaseMessageLike));
  if (input && typeof (input as { toChatMessages?: unknown }).toChatMessages === 'function')
    return input.toChatMessages();
  throw new InvalidOptionError({
    option: 'input',
    message: 'expected messages, a prompt value (from a ChatPromptTemplate) or a string',
  });
}

/** One LangChain prompt to compress. */
export interface CompressBaseMessagesInput {
  readonly messages: readonly BaseMessage[];
  /** Tools bound to the call (LangChain tools or provider definitions), counted as prompt tokens. */
  readonly tools?: readonly unknown[];
  readonly model: ModelInfo;
  readonly callOptions: ContextCompressionCallOptions;
  readonly awareness: AwarenessPlacement;
  /** The converter of the wrapper, chain step or middleware: messages it has seen keep their transcript objects. */
  readonly converter: TranscriptConverter;
  /**
   * When `onCall` hears of the call: at once, or `later`, through `CompressedBaseMessages.settled`, once the provider
   * took it (a call rejected for length and retried is reported by its retry alone). @default 'now'
   */
  readonly report?: 'now' | 'later';
  /** The provider's rejection this compression retries after (see `CompressInput.retryOf`). */
  readonly retryOf?: ProviderOverflowError | undefined;
  /** Cache breakpoints for a provider that caches only at them (see `withCacheBreakpoints`); none when undefined. */
  readonly breakpoints?: BreakpointContext | undefined;
  /** The key of the request the call sends and how an earlier one is continued (see `CompressInput.request`). */
  readonly request?: object;
  readonly continueRequest?: CompressInput['continueRequest'];
}

/** The compressed prompt, our estimate of its tokens (to learn from the provider's count) and the call's report. */
export interface CompressedBaseMessages {
  readonly messages: BaseMessage[];
  readonly estimatedTokens: number;
  /** What the call did, for the answer's `response_metadata` and the custom callback event. */
  readonly metadata: CompressionReport;
  /** Tells `onCall` of the call, for one compressed with `report: 'later'`; at most once, however often called. */
  readonly settled: () => void;
  /** The key of the request (`CompressBaseMessagesInput.request`), when the call gave one. */
  readonly request?: object | undefined;
}

/** Runs one LangChain prompt through the engine and back. */
export async function compressBaseMessages(
  engine: CompressionEngine,
  {
    messages,
    tools,
    model,
    callOptions,
    awareness,
    converter,
    report = 'now',
    retryOf,
    breakpoints,
    request,
    continueRequest,
  }: CompressBaseMessagesInput,
): Promise<CompressedBaseMessages> {
  const result = await engine.compress({
    transcript: converter.toTranscript(messages, tools, model.files),
    modelId: model.modelId,
    modelKey: model.modelKey,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    namespace: callOptions.namespace,
    force: callOptions.force,
    deferReport: report === 'later',
    retryOf,
    ...(request && { request }),
    ...(continueRequest && { continueRequest }),
  });
  const converted = convertTranscript(result.system, result.messages, awareness);
  return {
    messages: breakpoints
      ? withCacheBreakpoints(converted.messages, converted.points, breakpoints)
      : converted.messages,
    // read once the provider answered: a call decided without counting it all counts the rest then, if not before
    get estimatedTokens() {
      return result.estimatedTokens;
    },
    metadata: callMetadata(result.report),
    settled: reportedOnce(() => engine.reportCall(result.report)),
    request,
  };
}

/** `report`, run at its first call only: an attempt that settles in several ways is reported once. */
function reportedOnce(report: () => void): () => void {
  let reported = false;
  return () => {
    if (reported) return;
    reported = true;
    report();
  };
}
