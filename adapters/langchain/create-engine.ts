import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { createCompressionEngine } from '../../src/engine/create-engine.js';
import type { CompressionEngine } from '../../src/engine/engine.js';
import { UnknownContextWindowError } from '../../src/errors.js';
import { type AdapterOptions, AdapterOptionsSchema } from '../../src/options/adapter-options.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { type CompressionOptions, readOptions } from '../../src/options/options.js';
import type { SummarizeFunction, Summarizer } from '../../src/summarizers/summarizer.js';
import { chatModelSummarizer } from './chat-model-summarizer.js';
import { isChatModel } from './model-info.js';

/** Options of the LangChain adapter: the engine's options, with any LangChain chat model accepted as summarizer. */
export interface LangChainCompressionOptions
  extends Omit<CompressionOptions, 'summarizer'>,
    Pick<AdapterOptions, 'cacheBreakpoints'> {
  /**
   * Folds evicted messages into the session state: a LangChain chat model (called with structured output), a
   * summarizer object, or a plain async function. @default the offline extractive summarizer
   */
  summarizer?: BaseChatModel | Summarizer | SummarizeFunction;
}

/** The option this adapter adds to the engine's, checked before the engine checks its own. */
const CACHE_BREAKPOINTS_OPTION = AdapterOptionsSchema.pick({ cacheBreakpoints: true });

/** Builds the engine for a set of LangChain options, turning a chat model summarizer into a Summarizer. */
export function createEngine(
  options: LangChainCompressionOptions | undefined,
  wrapped?: BaseChatModel,
): CompressionEngine {
  const { cacheBreakpoints, ...given } = readOptions(options);
  parseOptions(CACHE_BREAKPOINTS_OPTION, { cacheBreakpoints }, '');
  return createCompressionEngine(given, (value) =>
    isChatModel(value)
      ? chatModelSummarizer(value, value === wrapped ? { continueCachedPrompt: true } : {})
      : undefined,
  );
}

/** Whether the options leave cache breakpoints on (the default): `cacheBreakpoints: false` turns them off. */
export function breakpointsOn(options: LangChainCompressionOptions | undefined): boolean {
  return options?.cacheBreakpoints !== false;
}

/**
 * Checks that the engine knows the budget for a model (from the options, the model's profile or the table), failing
 * with an UnknownContextWindowError whose example is `example`: the call that takes `contextWindow` for the caller.
 */
export function requireBudget(
  engine: CompressionEngine,
  { modelId, contextWindow }: { modelId: string; contextWindow?: number },
  example: string,
): void {
  try {
    engine.budgetFor(modelId, contextWindow);
  } catch (error) {
    if (!UnknownContextWindowError.isInstance(error)) throw error;
    throw new UnknownContextWindowError({ modelId, example });
  }
}
