import { InvalidOptionError } from '../errors.js';
import type { Embedder } from './embedder.js';

/** The part of a transformers.js feature-extraction pipeline this embedder uses. */
export type FeatureExtractor = (
  texts: string | string[],
  options?: { pooling?: 'none' | 'mean' | 'cls' | 'first_token' | 'eos' | 'last_token'; normalize?: boolean },
) => Promise<{ tolist(): unknown }>;

/** Options of `transformersEmbedder()`. */
export interface TransformersEmbedderOptions {
  /**
   * The model to load: a model hub id (e.g. `Xenova/all-MiniLM-L6-v2`) or a folder under transformers.js'
   * `env.localModelPath`. Loaded on first use. Give `model` or `pipeline`.
   */
  model?: string;
  /** A feature-extraction pipeline you already made with transformers.js' `pipeline()`. */
  pipeline?: FeatureExtractor | Promise<FeatureExtractor>;
  /** Options for `pipeline()` when it is made here, e.g. `{ dtype: 'q8', device: 'cpu', local_files_only: true }`. */
  pipelineOptions?: Record<string, unknown>;
  /** How token vectors become one vector. @default 'mean' */
  pooling?: 'mean' | 'cls';
  /** Text put before each query and each document, for models trained with them (e5: `query: `, `passage: `). */
  queryPrefix?: string;
  documentPrefix?: string;
}

/** The package name, in a variable: bundles that do not use this embedder must not follow the import. */
const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

/**
 * An embedder on a local `@huggingface/transformers` feature-extraction model: nothing leaves the machine and no
 * API key is needed. `@huggingface/transformers` is an optional peer dependency, imported on first use (not when
 * this package is imported); the model is loaded once, on the first texts to embed.
 *
 * ```ts
 * withContextCompression(model, { embedder: transformersEmbedder({ model: 'Xenova/all-MiniLM-L6-v2' }) })
 * ```
 */
export function transformersEmbedder(options: TransformersEmbedderOptions): Embedder {
  if (options === null || typeof options !== 'object' || (!options.model && !options.pipeline)) {
    throw new InvalidOptionError({
      option: 'embedder',
      message: 'transformersEmbedder() needs `model` (a model id) or `pipeline` (a feature-extraction pipeline)',
    });
  }
  const { model, pipelineOptions, pooling = 'mean', queryPrefix = '', documentPrefix = '' } = options;
  let extractor: Promise<FeatureExtractor> | undefined = options.pipeline
    ? Promise.resolve(options.pipeline)
    : undefined;
  const load = () => {
    extractor ??= (async () => {
      let transformers: { pipeline: (task: string, model: string, options?: object) => Promise<unknown> };
      try {
        transformers = await import(/* webpackIgnore: true */ TRANSFORMERS_PACKAGE);
      } catch (cause) {
        throw new Error(
          `transformersEmbedder() needs the optional package ${TRANSFORMERS_PACKAGE}: npm i ${TRANSFORMERS_PACKAGE}`,
          {
            cause,
          },
        );
      }
      return (await transformers.pipeline('feature-extraction', model as string, pipelineOptions)) as FeatureExtractor;
    })();
    // a failed load (no package, no model files) is tried again on the next call rather than kept
    extractor.catch(() => {
      extractor = undefined;
    });
    return extractor;
  };
  const embed = async (texts: string[]): Promise<number[][]> => {
    const extract = await load();
    const output = await extract(texts, { pooling, normalize: true });
    return output.tolist() as number[][];
  };
  return {
    embedDocuments: (texts) => embed(texts.map((text) => documentPrefix + text)),
    embedQuery: async (text) => (await embed([queryPrefix + text]))[0] as number[],
  };
}
