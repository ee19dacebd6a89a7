import { generateText, type JSONSchema7, jsonSchema, type LanguageModel, Output } from 'ai';
import { lookupContextWindow } from '../../src/options/context-windows.js';
import { DEFAULT_SUMMARIZER_INSTRUCTIONS, DEFAULT_SUMMARIZER_PROMPT } from '../../src/options/prompts.js';
import {
  type SessionState,
  SessionStateSchema,
  summarizerOutputJsonSchema,
} from '../../src/session-state/session-state.js';
import { continuationInstruction, stateFromText } from '../../src/summarizers/prompt-continuation.js';
import { fixedSummarizerPrompt, renderSummarizerPrompt } from '../../src/summarizers/render-transcript.js';
import type { Summarizer } from '../../src/summarizers/summarizer.js';
import { CALL_OPTIONS_KEY } from './call-options.js';

/** Options of a summarizer backed by an AI SDK model. */
export interface ModelSummarizerOptions {
  /** System instructions for the summarizer. @default DEFAULT_SUMMARIZER_INSTRUCTIONS */
  instructions?: string;
  /** Prompt template with `{previous}` and `{messages}`. @default DEFAULT_SUMMARIZER_PROMPT */
  prompt?: string;
  /** Retries of the summarizer call on provider errors. @default 1 */
  maxRetries?: number;
  /**
   * Tokens one call of the model can take in: a fold larger than that is summarized in chunks.
   * @default looked up from the model id (`KNOWN_CONTEXT_WINDOWS`); none when unknown
   */
  contextWindow?: number;
  /**
   * Make a fold's summary as a continuation of the call's cached prompt when the model is the one being called: the
   * previous call's request as it was sent (system prompt, tools, messages), the messages since, and the instruction
   * as a last user message, so the provider reads the folded messages from its prompt cache (about a tenth of the
   * price) instead of as new input. Used when the provider's usage showed a prompt cache for that call and the
   * continuation fits the window; otherwise, or when the answer holds no state, the summary is a separate request.
   * `withContextCompression(model, { summarizer: model })` turns it on. @default false
   */
  continueCachedPrompt?: boolean;
}

/**
 * A summarizer that asks any AI SDK language model for a SessionState with structured output. The call opts
 * out of this package's middleware, so a model wrapped with `withContextCompression` is never compressed twice.
 */
export function modelSummarizer(
  model: LanguageModel,
  {
    instructions = DEFAULT_SUMMARIZER_INSTRUCTIONS,
    prompt = DEFAULT_SUMMARIZER_PROMPT,
    maxRetries = 1,
    contextWindow,
    continueCachedPrompt = false,
  }: ModelSummarizerOptions = {},
): Summarizer {
  const modelName = typeof model === 'string' ? model : model.modelId;
  // every field required in what the model is asked for; read leniently (a model may leave the quotes out)
  const outputSchema = jsonSchema<SessionState>(summarizerOutputJsonSchema() as JSONSchema7, {
    validate: (value) => {
      const parsed = SessionStateSchema.safeParse(value);
      return parsed.success ? { success: true, value: parsed.data } : { success: false, error: parsed.error };
    },
  });
  return {
    name: `model:${modelName}`,
    contextWindow: contextWindow ?? lookupContextWindow(modelName),
    fixedPrompt: fixedSummarizerPrompt(instructions, prompt),
    ...(continueCachedPrompt && { continuesPrompts: true }),
    async summarize({ messages, previous, abortSignal, reportUsage, continuation }) {
      if (continuation && continuation.modelId === modelName) {
        const { text, usage } = await continuation.complete(
          continuationInstruction(instructions, continuation),
          abortSignal,
        );
        if (usage) reportUsage?.(usage);
        const state = stateFromText(text, previous);
        // the engine makes the summary as a separate request instead
        if (!state) throw new Error('the continued prompt was answered without a session state');
        return state;
      }
      const result = await generateText({
        model,
        instructions,
        prompt: renderSummarizerPrompt(prompt, { messages, previous }),
        output: Output.object({ schema: outputSchema, name: 'session_state' }),
        abortSignal,
        maxRetries,
        temperature: 0,
        providerOptions: { [CALL_OPTIONS_KEY]: { disable: true } },
      });
      reportUsage?.({
        inputTokens: result.usage.inputTokens,
        cacheReadTokens: result.usage.inputTokenDetails?.cacheReadTokens,
        cacheWriteTokens: result.usage.inputTokenDetails?.cacheWriteTokens,
        outputTokens: result.usage.outputTokens,
        model: result.response?.modelId ?? modelName,
      });
      return result.output;
    },
  };
}
