import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { BaseMessage } from '@langchain/core/messages';
import { type Runnable, type RunnableConfig, RunnableLambda } from '@langchain/core/runnables';
import { providerFamily, UNKNOWN_FILE_COUNTING } from '../../src/counting/provider-family.js';
import { InvalidOptionError } from '../../src/errors.js';
import { type AdapterOptions, AdapterOptionsSchema } from '../../src/options/adapter-options.js';
import { parseOptions } from '../../src/options/option-issue-error.js';
import { readOptions } from '../../src/options/options.js';
import { readCallOptions } from './call-options.js';
import { compressBaseMessages, inputMessages } from './compress-base-messages.js';
import { createEngine, type LangChainCompressionOptions, requireBudget } from './create-engine.js';
import { TranscriptConverter } from './transcript-converter.js';

/** Options of the chain step: the adapter's options and the model the messages go to. */
export interface CompressMessagesOptions
  extends Omit<LangChainCompressionOptions, 'cacheBreakpoints'>,
    Pick<AdapterOptions, 'model'> {}

/** The option the chain step adds to the engine's, checked before the engine checks its own. */
const MODEL_OPTION = AdapterOptionsSchema.pick({ model: true });

/**
 * A chain step that compresses messages on their way to a model:
 * `prompt.pipe(compressMessages({ model: 'gpt-4o' })).pipe(model)`. Takes messages or a prompt value and returns
 * the compressed messages: the caller's system message with the awareness block, the `<session_state>` pair when
 * there is a state, and the kept messages. It cannot see the model's token usage, so it does not calibrate; wrap
 * the model with `withContextCompression` instead where calibration matters. Per call:
 * `{ configurable: { 'context-compression': { disable, force, namespace } } }`.
 */
export function compressMessages(
  options: CompressMessagesOptions = {},
): Runnable<BaseLanguageModelInput, BaseMessage[]> {
  const { model, ...engineOptions } = readOptions(options);
  parseOptions(MODEL_OPTION, { model }, '');
  if (model === undefined && engineOptions.contextWindow === undefined)
    throw new InvalidOptionError({
      option: 'contextWindow',
      message:
        'compressMessages cannot see the model: give `contextWindow` (tokens) or `model` (an id such as "gpt-4o")',
    });
  const engine = createEngine(engineOptions);
  const modelId = model ?? 'unknown';
  requireBudget(engine, { modelId }, `compressMessages({ contextWindow: 128_000 })`);
  // files are counted for the provider the model id names; without a model, as the largest provider count
  const files = model === undefined ? UNKNOWN_FILE_COUNTING : { family: providerFamily('', model), modelId: model };
  const info = {
    modelId,
    modelKey: modelId,
    contextWindow: undefined,
    maxOutputTokens: undefined,
    files,
    // a chain step sees no model: wrap the model with withContextCompression for cache breakpoints
    cachesAtBreakpoints: false,
  };
  const converter = new TranscriptConverter();
  return RunnableLambda.from(async (input: BaseLanguageModelInput, config?: RunnableConfig) => {
    const messages = inputMessages(input);
    const callOptions = readCallOptions(config);
    if (callOptions.disable) return messages;
    const result = await compressBaseMessages(engine, {
      messages,
      model: info,
      callOptions,
      awareness: 'system',
      converter,
    });
    return result.messages;
  }).withConfig({ runName: 'compressMessages' });
}
