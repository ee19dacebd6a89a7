import type { z } from 'zod';
import { flag, group, nonEmptyText, oneOf, text } from './option-fields.js';

/*
 * The options one adapter or one function adds to the engine's. Their types are taken from these schemas by the
 * adapters (`Pick<AdapterOptions, ...>`), so the JSDoc here is what editors show, and the options reference lists
 * them from here.
 */

const adapterShape = {
  /**
   * For providers that cache a prompt only up to explicit breakpoints (Anthropic: `@ai-sdk/anthropic`, Anthropic
   * through Vertex, LangChain's `ChatAnthropic`), marks the end of the prompt, the message before a recall pair, the
   * end of the session-state pair and of the system prompt (AI SDK: `providerOptions.anthropic.cacheControl`;
   * LangChain: `cache_control` on the message's last content block), within the provider's 4 and beside the caller's
   * own, which are left as they are. Other providers cache prefixes on their own and are left alone. `false`: no
   * breakpoints from this package. @default true
   */
  cacheBreakpoints: flag().default(true),
  /**
   * LangChain `compressMessages`, which sees no model: the id of the model the messages are for (e.g. `gpt-4o`), for
   * the context-window table and the calibration key. Give it or `contextWindow`. @default none
   */
  model: nonEmptyText().optional(),
  /**
   * `explainCompression` (both adapters), which sees no model: the model id, for the context-window table when
   * `contextWindow` is not given. @default none
   */
  modelId: nonEmptyText().optional(),
  /**
   * `explainCompression` (both adapters): `replay` explains every model call of the history (one per assistant turn,
   * as an agent loop makes them); `final` only the call made with the whole history. @default 'replay'
   */
  mode: oneOf(['replay', 'final']).optional(),
  /**
   * AI SDK `explainCompression`: the system instructions of the call, counted like the middleware counts them.
   * @default none
   */
  instructions: text().optional(),
};

/** The options the adapters add to the engine's, checked where they are read. */
export const AdapterOptionsSchema: z.ZodObject<typeof adapterShape, z.core.$strict> = group(adapterShape);

/** The options the adapters add to the engine's, as given. */
export type AdapterOptions = z.input<typeof AdapterOptionsSchema>;
