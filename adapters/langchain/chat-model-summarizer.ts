import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { lookupContextWindow } from '../../src/options/context-windows.js';
import { DEFAULT_SUMMARIZER_INSTRUCTIONS, DEFAULT_SUMMARIZER_PROMPT } from '../../src/options/prompts.js';
import type { SummarizerUsage } from '../../src/reports/usage.js';
import {
  type SessionState,
  SessionStateSchema,
  summarizerOutputJsonSchema,
} from '../../src/session-state/session-state.js';
import { continuationInstruction, stateFromText } from '../../src/summarizers/prompt-continuation.js';
import { fixedSummarizerPrompt, renderSummarizerPrompt } from '../../src/summarizers/render-transcript.js';
import type { Summarizer } from '../../src/summarizers/summarizer.js';
import { CALL_OPTIONS_KEY } from './call-options.js';
import { providerUsageOf } from './compression-report.js';
import { modelInfo } from './model-info.js';

/** Options of a summarizer backed by a LangChain chat model. */
export interface ChatModelSummarizerOptions {
  /** System instructions for the summarizer. @default DEFAULT_SUMMARIZER_INSTRUCTIONS */
  instructions?: string;
  /** Prompt template with `{previous}` and `{messages}`. @default DEFAULT_SUMMARIZER_PROMPT */
  prompt?: string;
  /**
   * Tokens one call of the model can take in: a fold larger than that is summarized in chunks.
   * @default the model profile's `maxInputTokens`, else looked up from its name; none when unknown
   */
  contextWindow?: number;
  /**
   * Make a fold's summary as a continuation of the call's cached prompt when the model is the one being called (see
   * the AI SDK's `modelSummarizer`); `withContextCompression(model, { summarizer: model })` turns it on. @default false
   */
  continueCachedPrompt?: boolean;
}

/**
 * A summarizer that asks any LangChain chat model for a SessionState through `withStructuredOutput` with the
 * engine's zod schema. The engine gives it a timeout (`summarizerTimeoutMs`, passed on as the abort signal) and,
 * when it fails or times out, keeps the call going without a new state. The call opts out of this package's
 * compression, so a model wrapped with `withContextCompression` is never compressed twice.
 */
export function chatModelSummarizer(
  model: BaseChatModel,
  {
    instructions = DEFAULT_SUMMARIZER_INSTRUCTIONS,
    prompt = DEFAULT_SUMMARIZER_PROMPT,
    contextWindow,
    continueCachedPrompt = false,
  }: ChatModelSummarizerOptions = {},
): Summarizer {
  if (typeof model?.withStructuredOutput !== 'function')
    throw new TypeError(
      'context-compression: chatModelSummarizer needs a LangChain chat model with withStructuredOutput',
    );
  // every field required in what the model is asked for; read leniently below (a model may leave the quotes out)
  // with the raw answer, whose usage_metadata the report gives
  const structured = model.withStructuredOutput(summarizerOutputJsonSchema(), {
    name: 'session_state',
    includeRaw: true,
  });
  const info = modelInfo(model);
  return {
    name: `model:${info.modelId}`,
    contextWindow: contextWindow ?? info.contextWindow ?? lookupContextWindow(info.modelId),
    fixedPrompt: fixedSummarizerPrompt(instructions, prompt),
    ...(continueCachedPrompt && { continuesPrompts: true }),
    async summarize({ messages, previous, abortSignal, reportUsage, continuation }) {
      if (continuation && continuation.modelId === info.modelId) {
        const { text, usage } = await continuation.complete(
          continuationInstruction(instructions, continuation),
          abortSignal,
        );
        if (usage) reportUsage?.({ ...usage, model: usage.model === 'unknown' ? info.modelId : usage.model });
        const state = stateFromText(text, previous);
        // the engine makes the summary as a separate request instead
        if (!state) throw new Error('the continued prompt was answered without a session state');
        return state;
      }
      const text = renderSummarizerPrompt(prompt, { messages, previous });
      const output = await structured.invoke([new SystemMessage(instructions), new HumanMessage(text)], {
        signal: abortSignal,
        configurable: { [CALL_OPTIONS_KEY]: { disable: true } },
      });
      // a model of a test or a wrapper may answer with the parsed output alone
      const answer = output as { raw?: BaseMessage; parsed?: unknown };
      const withRaw = typeof answer === 'object' && answer !== null && 'parsed' in answer && 'raw' in answer;
      if (withRaw) reportUsage?.(usageOf(answer.raw, info.modelId));
      return SessionStateSchema.parse(withRaw ? answer.parsed : output) as SessionState;
    },
  };
}

/** What a summarizer call's answer reported of its tokens (`usage_metadata`), and the model that answered. */
function usageOf(raw: BaseMessage | undefined, modelId: string): SummarizerUsage {
  const named = (raw?.response_metadata ?? {}) as { model_name?: unknown; model?: unknown };
  const model = [named.model_name, named.model].find((name) => typeof name === 'string') as string | undefined;
  return { ...providerUsageOf(raw), model: model ?? modelId };
}
