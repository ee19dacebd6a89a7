import type { CompressionOptions } from '../options/options.js';
import type { SummarizeFunction, Summarizer } from '../summarizers/summarizer.js';
import { CompressionEngine } from './engine.js';

/** The engine's options with a summarizer that may also be a framework's model. */
export type AdapterOptions<Model> = Omit<CompressionOptions, 'summarizer'> & {
  summarizer?: Model | Summarizer | SummarizeFunction;
};

/**
 * Builds the engine for an adapter: `modelSummarizer` turns the framework's model into a summarizer and returns
 * undefined for anything else (a summarizer object or a function is passed on as it is). Both adapters build their
 * engines here, so they validate and default options alike.
 */
export function createCompressionEngine<Model>(
  { summarizer, ...options }: AdapterOptions<Model>,
  modelSummarizer: (value: unknown) => Summarizer | undefined,
): CompressionEngine {
  const isSummarizer =
    typeof summarizer === 'function' ||
    (typeof summarizer === 'object' &&
      summarizer !== null &&
      typeof (summarizer as Summarizer).summarize === 'function');
  const fromModel = summarizer === undefined || isSummarizer ? undefined : modelSummarizer(summarizer);
  // anything else goes on as it is, for the engine's option check to reject with a clear error
  return new CompressionEngine({
    ...options,
    summarizer: fromModel ?? (summarizer as CompressionOptions['summarizer']),
  });
}
