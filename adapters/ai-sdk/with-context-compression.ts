import type { LanguageModelV4 } from '@ai-sdk/provider';
import { type LanguageModel, wrapLanguageModel } from 'ai';
import { InvalidOptionError } from '../../src/errors.js';
import { type ContextCompressionOptions, createEngine, middlewareFor } from './context-compression.js';

type ModelObject = Exclude<LanguageModel, string>;

/**
 * Wraps a model so every call through it is compressed: one line around an existing `generateText`,
 * `streamText` or agent call. Fails at once when the model's context window is unknown and not given.
 */
export function withContextCompression(model: ModelObject, options: ContextCompressionOptions = {}): LanguageModelV4 {
  if (typeof model !== 'object' || model === null || typeof (model as { modelId?: unknown }).modelId !== 'string') {
    throw new InvalidOptionError({
      option: 'model',
      message:
        'expected an AI SDK language model object such as openai("gpt-4o"); for a gateway id string use gateway("provider/model")',
    });
  }
  // the wrapped model as its own summarizer continues its cached prompts
  const engine = createEngine(options, options?.summarizer === model ? model : undefined);
  engine.budgetFor(model.modelId);
  return wrapLanguageModel({ model, middleware: middlewareFor(engine, options) });
}
