import { describeValue, InvalidOptionError, UnknownContextWindowError } from '../errors.js';
import type { CompressionOptions } from './compression-options.js';
import { lookupContextWindow } from './context-windows.js';

/**
 * The options object a factory was given, read before it is validated: `undefined` reads as `{}`; `null` (possible
 * from JavaScript) or any other non-object is an InvalidOptionError, never a crash inside the factory.
 */
export function readOptions<T extends object>(options: T | undefined): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError({ option: 'options', message: `must be an object (got ${describeValue(options)})` });
  }
  return options;
}

/**
 * For functions that see no model (`explainCompression`, named by `call`): fails unless the budget is known from
 * `contextWindow`, or from `modelId` through the context-window table, saying which of the two to give.
 */
export function checkWindowKnown(
  { contextWindow, modelId }: { contextWindow?: unknown; modelId?: unknown },
  call: string,
) {
  if (contextWindow !== undefined) return;
  if (modelId === undefined) {
    throw new InvalidOptionError({
      option: 'contextWindow',
      message: `${call} sees no model, so give \`contextWindow\` (tokens, e.g. 128_000) or \`modelId\` (a known id such as "gpt-4o") (got neither)`,
    });
  }
  if (typeof modelId !== 'string') fail('modelId', 'a model id string such as "gpt-4o"', modelId);
  if (lookupContextWindow(modelId) === undefined) {
    throw new UnknownContextWindowError({ modelId, example: `${call}(messages, { contextWindow: 128_000 })` });
  }
}

/** Checks that the reserved output leaves a usable budget; also applied to windows looked up from a model id. */
export function checkReserve(contextWindow: number, reserveOutputTokens: number): void {
  if (reserveOutputTokens >= contextWindow / 2) {
    fail(
      'reserveOutputTokens',
      `less than half of the context window (${contextWindow} tokens), i.e. below ${contextWindow / 2}`,
      reserveOutputTokens,
    );
  }
}

function fail(option: string, expected: string, value: unknown): never {
  throw new InvalidOptionError({ option, message: `must be ${expected} (got ${describeValue(value)})` });
}

const SHARES = ['compressTo', 'compressAt', 'hardLimit'] as const;
type Shares = Record<(typeof SHARES)[number], number>;

/**
 * compressTo < compressAt < hardLimit, defaults filled in (`resolved`). A pair out of order blames the option the
 * caller set (`given`): the lower one when both were set, else the one given, whose message names the other's default.
 */
export function checkShareOrder(given: CompressionOptions, resolved: Shares): void {
  const name = (index: number) => SHARES[index] ?? 'compressAt';
  const isGiven = (index: number) => given[name(index)] !== undefined;
  const bound = (index: number) => `${name(index)} = ${resolved[name(index)]}${isGiven(index) ? '' : ' (default)'}`;
  for (let lower = 0; lower < SHARES.length - 1; lower++) {
    if (resolved[name(lower)] < resolved[name(lower + 1)]) continue;
    const blamed = isGiven(lower) ? lower : lower + 1;
    const above = blamed > 0 ? bound(blamed - 1) : '0';
    const below = blamed < SHARES.length - 1 ? `less than ${bound(blamed + 1)}` : 'at most 1';
    fail(
      name(blamed),
      `a number greater than ${above} and ${below}, since compressTo < compressAt < hardLimit`,
      resolved[name(blamed)],
    );
  }
}
