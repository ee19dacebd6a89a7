import type { BaseMessage } from '@langchain/core/messages';
import type { CompressionEngine } from '../../src/engine.js';
import type { ContextCompressionCallOptions } from './call-options.js';
import { type AwarenessPlacement, fromTranscript } from './from-transcript.js';
import type { ModelInfo } from './model-info.js';
import { toTranscript } from './to-transcript.js';

/** One LangChain prompt to compress. */
export interface CompressBaseMessagesInput {
  readonly messages: readonly BaseMessage[];
  /** Tools bound to the call (LangChain tools or provider definitions), counted as prompt tokens. */
  readonly tools?: readonly unknown[];
  readonly model: ModelInfo;
  readonly callOptions: ContextCompressionCallOptions;
  readonly awareness: AwarenessPlacement;
}

/** The compressed prompt and our estimate of its tokens, to learn from the provider's count. */
export interface CompressedBaseMessages {
  readonly messages: BaseMessage[];
  readonly estimatedTokens: number;
}

/** Runs one LangChain prompt through the engine and back. */
export async function compressBaseMessages(
  engine: CompressionEngine,
  { messages, tools, model, callOptions, awareness }: CompressBaseMessagesInput,
): Promise<CompressedBaseMessages> {
  const result = await engine.compress({
    transcript: toTranscript(messages, tools),
    modelId: model.modelId,
    modelKey: model.modelKey,
    contextWindow: model.contextWindow,
    namespace: callOptions.namespace,
    force: callOptions.force,
  });
  return {
    messages: fromTranscript(result.system, result.messages, awareness),
    estimatedTokens: result.estimatedTokens,
  };
}
