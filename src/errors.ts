/**
 * Errors of this package. Each class carries its own `Symbol.for('context-compression.error.<Name>')` marker besides
 * the base one, and `isInstance` checks markers instead of `instanceof`, so errors from another copy of the package
 * (two versions in one app, a bundled copy) are still recognized.
 */
const PREFIX = 'context-compression.error';
const baseSymbol = Symbol.for(PREFIX);

/** True when `error` carries the marker symbol `marker` set to `true`. */
function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}

/** Base class of every error this package throws; `isInstance` works across package copies. */
export class ContextCompressionError extends Error {
  /** Marks errors of this package; read by `isInstance`. */
  readonly [baseSymbol] = true;

  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.name = name;
  }

  /** True for any error thrown by this package, even from another copy of it. */
  static isInstance(error: unknown): error is ContextCompressionError {
    return hasMarker(error, baseSymbol);
  }
}

const invalidOption = Symbol.for(`${PREFIX}.InvalidOptionError`);

/** An option given to a factory is missing, out of range or inconsistent with another. */
export class InvalidOptionError extends ContextCompressionError {
  readonly [invalidOption] = true;
  readonly option: string;

  constructor({ option, message }: { option: string; message: string }) {
    super({ name: 'InvalidOptionError', message: `Invalid option \`${option}\`: ${message}` });
    this.option = option;
  }

  static override isInstance(error: unknown): error is InvalidOptionError {
    return hasMarker(error, baseSymbol) && hasMarker(error, invalidOption);
  }
}

/**
 * A value as an error message shows it: JSON where JSON says it truly (strings quoted), else by name (`NaN`,
 * `Infinity`, `10n`, a function, a circular object), cut to 80 characters.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return `a ${Object.prototype.toString.call(value).slice(8, -1)} that JSON cannot show`;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const invalidPrompt = Symbol.for(`${PREFIX}.InvalidPromptError`);

/**
 * A message of the prompt cannot be read at all (a message that is not an object, content or a part of the wrong
 * kind), so no provider could be sent it either. `messageIndex` counts the messages the adapter was given, system
 * messages included (in the AI SDK, the `instructions` are message 0).
 */
export class InvalidPromptError extends ContextCompressionError {
  readonly [invalidPrompt] = true;
  readonly messageIndex: number;
  /** The field at fault, e.g. `content` or `content[1].output`; empty for the message itself. */
  readonly field: string;

  constructor({
    messageIndex,
    field,
    expected,
    value,
  }: { messageIndex: number; field: string; expected: string; value: unknown }) {
    const subject = field ? `\`${field}\` must be ${expected}` : `must be ${expected}`;
    super({
      name: 'InvalidPromptError',
      message: `Invalid message at index ${messageIndex}: ${subject} (got ${describeValue(value)})`,
    });
    this.messageIndex = messageIndex;
    this.field = field;
  }

  static override isInstance(error: unknown): error is InvalidPromptError {
    return hasMarker(error, baseSymbol) && hasMarker(error, invalidPrompt);
  }
}

const unknownContextWindow = Symbol.for(`${PREFIX}.UnknownContextWindowError`);

/** The context window of the model is not in the built-in table and was not given. */
export class UnknownContextWindowError extends ContextCompressionError {
  readonly [unknownContextWindow] = true;
  readonly modelId: string;

  /** `example` shows the call to pass `contextWindow` to; the factories' own by default. */
  constructor({
    modelId,
    example = 'withContextCompression(model, { contextWindow: 128_000 })',
  }: { modelId: string; example?: string }) {
    super({
      name: 'UnknownContextWindowError',
      message: `The context window of model "${modelId}" is not known. Pass it as the \`contextWindow\` option, e.g. ${example}.`,
    });
    this.modelId = modelId;
  }

  static override isInstance(error: unknown): error is UnknownContextWindowError {
    return hasMarker(error, baseSymbol) && hasMarker(error, unknownContextWindow);
  }
}

const messageTooLarge = Symbol.for(`${PREFIX}.MessageTooLargeError`);

/** A single user message is larger than the whole budget: no compression can make the call fit. */
export class MessageTooLargeError extends ContextCompressionError {
  readonly [messageTooLarge] = true;
  readonly messageTokens: number;
  readonly budgetTokens: number;
  readonly messageIndex: number;

  constructor({
    messageTokens,
    budgetTokens,
    messageIndex,
  }: { messageTokens: number; budgetTokens: number; messageIndex: number }) {
    super({
      name: 'MessageTooLargeError',
      message:
        `The user message at index ${messageIndex} has about ${messageTokens} tokens, more than the whole budget of ` +
        `${budgetTokens} tokens (context window minus reserved output tokens). Shorten the message or raise \`contextWindow\`.`,
    });
    this.messageTokens = messageTokens;
    this.budgetTokens = budgetTokens;
    this.messageIndex = messageIndex;
  }

  static override isInstance(error: unknown): error is MessageTooLargeError {
    return hasMarker(error, baseSymbol) && hasMarker(error, messageTooLarge);
  }
}

const hardLimit = Symbol.for(`${PREFIX}.HardLimitError`);

/**
 * The prompt is still above the hard limit after every compression step: what is left cannot be folded (the current
 * turn, the pinned user message and the state). Reported through `onError`; the call is sent as it is.
 */
export class HardLimitError extends ContextCompressionError {
  readonly [hardLimit] = true;
  readonly promptTokens: number;
  readonly hardLimitTokens: number;

  constructor({ promptTokens, hardLimitTokens }: { promptTokens: number; hardLimitTokens: number }) {
    super({
      name: 'HardLimitError',
      message:
        `The prompt has about ${promptTokens} tokens after compression, above the hard limit of ${hardLimitTokens}: ` +
        'what is left cannot be folded (the current turn, the pinned user message and the state). Shorten the ' +
        'current turn or its tool results, lower `maxToolResultTokens`, or raise `contextWindow` or `hardLimit`.',
    });
    this.promptTokens = promptTokens;
    this.hardLimitTokens = hardLimitTokens;
  }

  static override isInstance(error: unknown): error is HardLimitError {
    return hasMarker(error, baseSymbol) && hasMarker(error, hardLimit);
  }
}

const summarizerFailed = Symbol.for(`${PREFIX}.SummarizerError`);

/**
 * A summarizer threw, timed out or returned something the SessionState schema rejects; or (`held-elsewhere`) another
 * instance sharing the store holds the lease on this fold and its state did not arrive within `foldLease.waitMs`.
 */
export class SummarizerError extends ContextCompressionError {
  readonly [summarizerFailed] = true;
  readonly summarizer: string;
  readonly reason: 'threw' | 'timeout' | 'invalid-output' | 'held-elsewhere';

  constructor({
    summarizer,
    reason,
    cause,
  }: { summarizer: string; reason: SummarizerError['reason']; cause?: unknown }) {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    const message =
      reason === 'held-elsewhere'
        ? `Summarizer "${summarizer}" runs for this fold in another instance (held-elsewhere)${detail}`
        : `Summarizer "${summarizer}" failed (${reason})${detail}`;
    super({ name: 'SummarizerError', message, cause });
    this.summarizer = summarizer;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is SummarizerError {
    return hasMarker(error, baseSymbol) && hasMarker(error, summarizerFailed);
  }
}

const storeFailed = Symbol.for(`${PREFIX}.StoreError`);

/**
 * A store's get or set threw or did not settle in time, or (`invalid-record`) a get returned a value that is not a
 * record this package wrote or that does not fit the history it was found for (a fold point that would separate a
 * tool call from its result, a count past the history); the call went on without it.
 */
export class StoreError extends ContextCompressionError {
  readonly [storeFailed] = true;
  readonly operation: 'get' | 'set';
  readonly reason: 'threw' | 'timeout' | 'invalid-record';
  /** What was wrong with an invalid record. */
  readonly detail: string | undefined;

  constructor({
    operation,
    reason,
    cause,
    detail,
  }: { operation: StoreError['operation']; reason: StoreError['reason']; cause?: unknown; detail?: string }) {
    const why = detail ? `: ${detail}` : cause instanceof Error ? `: ${cause.message}` : '';
    super({ name: 'StoreError', message: `Store ${operation} failed (${reason})${why}`, cause });
    this.operation = operation;
    this.reason = reason;
    this.detail = detail;
  }

  static override isInstance(error: unknown): error is StoreError {
    return hasMarker(error, baseSymbol) && hasMarker(error, storeFailed);
  }
}

const providerOverflow = Symbol.for(`${PREFIX}.ProviderOverflowError`);

/**
 * The provider rejected a prompt as longer than the model's window although our count said it fit: its tokenizer
 * counts more than ours (Claude, Gemini, a local model), its window is smaller than the one configured, or it counts
 * the call's output (`max_tokens`) against the window. The engine learned from it, for the model: the ratio of the
 * provider's count to ours, the provider's limit, the output it counts, or, when its error names no figure (OpenAI's
 * Responses API), a bound below our count of the rejected prompt. It retried the call once, compressed to fit
 * (`fallback: 'retried'`); when the retry was rejected too, the provider's error went to the caller
 * (`fallback: 'rethrown'`). The same error is raised for a summarizer's call (its `modelKey` is the summarizer's
 * name), whose fold is then cut again into smaller chunks. `cause` is the provider's error.
 */
export class ProviderOverflowError extends ContextCompressionError {
  readonly [providerOverflow] = true;
  /** The `provider:modelId` key (or the summarizer's name) that learned from the rejection. */
  readonly modelKey: string;
  /** The prompt's tokens as the provider counted them, when its error said. */
  readonly providerTokens: number | undefined;
  /** The most the provider accepts, when its error said. */
  readonly providerLimit: number | undefined;
  /** Output tokens the provider counted against its limit (the call's `max_tokens`), when its error said. */
  readonly providerOutputTokens: number | undefined;
  /** The prompt's tokens as we counted them when it was sent (calibrated by what was known then). */
  readonly estimatedTokens: number;
  /** Provider tokens per token of ours, as learned from this rejection; later calls of the model use it. */
  readonly learnedRatio: number;
  /**
   * The model's input budget after what this rejection taught, in the provider's tokens: later prompts stay below its
   * hard limit (85% by default). For a summarizer, the most one of its calls may now take.
   */
  readonly learnedInputLimit: number;
  /** What the provider said, cut to 300 characters. */
  readonly providerMessage: string;

  constructor(fields: {
    modelKey: string;
    providerTokens: number | undefined;
    providerLimit: number | undefined;
    providerOutputTokens?: number | undefined;
    estimatedTokens: number;
    learnedRatio: number;
    learnedInputLimit: number;
    providerMessage: string;
    cause?: unknown;
  }) {
    const counted = fields.providerTokens === undefined ? 'more' : `${fields.providerTokens}`;
    const output = fields.providerOutputTokens === undefined ? '' : ` plus ${fields.providerOutputTokens} of output`;
    const limit = fields.providerLimit === undefined ? '' : ` (its limit: ${fields.providerLimit})`;
    super({
      name: 'ProviderOverflowError',
      message:
        `The provider rejected the prompt as too long for ${fields.modelKey}: it counted ${counted} tokens${output}${limit}, ` +
        `we counted ${fields.estimatedTokens}. Provider tokens per token of ours are now taken as ` +
        `${fields.learnedRatio.toFixed(2)}, and its input budget as ${fields.learnedInputLimit} tokens. ` +
        `Provider said: ${fields.providerMessage}`,
      cause: fields.cause,
    });
    this.modelKey = fields.modelKey;
    this.providerTokens = fields.providerTokens;
    this.providerLimit = fields.providerLimit;
    this.providerOutputTokens = fields.providerOutputTokens;
    this.estimatedTokens = fields.estimatedTokens;
    this.learnedRatio = fields.learnedRatio;
    this.learnedInputLimit = fields.learnedInputLimit;
    this.providerMessage = fields.providerMessage;
  }

  static override isInstance(error: unknown): error is ProviderOverflowError {
    return hasMarker(error, baseSymbol) && hasMarker(error, providerOverflow);
  }
}

const toolPairing = Symbol.for(`${PREFIX}.ToolPairingError`);

/** One tool result or call of the caller's history that has no partner (see `findPairingProblems`). */
export interface ToolPairingIssue {
  readonly kind: 'orphan-result' | 'result-before-call' | 'call-without-result' | 'duplicate-result';
  /** Index of the message in the caller's history, system messages excluded. */
  readonly messageIndex: number;
  readonly toolCallId: string;
}

/**
 * The caller's history has tool results without their call (or before it), a second result for one call, or tool
 * calls with no result before the history goes on. Providers reject such prompts, and nothing could be folded past an
 * unanswered call; the parts were left out of the prompt (the caller's messages are unchanged).
 */
export class ToolPairingError extends ContextCompressionError {
  readonly [toolPairing] = true;
  readonly issues: readonly ToolPairingIssue[];

  constructor({ issues }: { issues: readonly ToolPairingIssue[] }) {
    const described = issues
      .slice(0, 3)
      .map((issue) => `${issue.kind} at message ${issue.messageIndex} (tool call id "${issue.toolCallId}")`)
      .join(', ');
    const more = issues.length > 3 ? ` and ${issues.length - 3} more` : '';
    super({
      name: 'ToolPairingError',
      message: `The history has unpaired tool calls or results: ${described}${more}. They were left out of the prompt.`,
    });
    this.issues = issues;
  }

  static override isInstance(error: unknown): error is ToolPairingError {
    return hasMarker(error, baseSymbol) && hasMarker(error, toolPairing);
  }
}

const brokenPromise = Symbol.for(`${PREFIX}.BrokenPromiseError`);

/** Which promise a prompt would have broken (see `BrokenPromiseError`). */
export type BrokenPromise =
  | 'continuity'
  | 'silent-change'
  | 'recall-flip'
  | 'state-over-cap'
  | 'recall-over-cap'
  | 'over-hard-limit'
  | 'tool-pairs';

/**
 * A prompt the engine was about to send would have broken one of its promises: it no longer began with the previous
 * prompt of the conversation although nothing was reported (`continuity`, `silent-change`), it brought back a recall
 * block an earlier call took out (`recall-flip`), a state or a recall block over its cap, stages that ended with the
 * prompt taken over the hard limit or further over it, or a tool call parted from its result (`tool-pairs`). The plan was not used: the last prompt
 * that kept them was sent (`fallback: 'plan-rejected'` or `'previous-prompt'`), or, for a break found only in the
 * finished prompt, the prompt was sent as it was (`'continued'`). A bug of this package: please report it with the
 * `detail`. With `onBrokenPromise: 'throw'` (for tests) the call throws this error instead.
 */
export class BrokenPromiseError extends ContextCompressionError {
  readonly [brokenPromise] = true;
  readonly promise: BrokenPromise;
  /** The stage whose plan broke it; undefined for the call's starting point or its finished prompt. */
  readonly stage: string | undefined;
  readonly detail: string;

  constructor({ promise, stage, detail }: { promise: BrokenPromise; stage?: string; detail: string }) {
    const where = stage ? `the plan of stage "${stage}"` : 'the prompt';
    super({ name: 'BrokenPromiseError', message: `${where} would break a promise (${promise}): ${detail}` });
    this.promise = promise;
    this.stage = stage;
    this.detail = detail;
  }

  static override isInstance(error: unknown): error is BrokenPromiseError {
    return hasMarker(error, baseSymbol) && hasMarker(error, brokenPromise);
  }
}

const counterFailed = Symbol.for(`${PREFIX}.TokenCounterError`);

/** A token counter threw or returned something other than a finite count; texts were counted approximately instead. */
export class TokenCounterError extends ContextCompressionError {
  readonly [counterFailed] = true;
  readonly counter: string;
  readonly reason: 'threw' | 'invalid-count';

  constructor({
    counter,
    reason,
    cause,
    detail,
  }: { counter: string; reason: TokenCounterError['reason']; cause?: unknown; detail?: string }) {
    const why = reason === 'threw' ? (cause instanceof Error ? `: ${cause.message}` : '') : ` (returned ${detail})`;
    super({
      name: 'TokenCounterError',
      message: `Token counter "${counter}" failed (${reason})${why}; counting about four characters a token instead`,
      cause,
    });
    this.counter = counter;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is TokenCounterError {
    return hasMarker(error, baseSymbol) && hasMarker(error, counterFailed);
  }
}

const listenerFailed = Symbol.for(`${PREFIX}.ListenerError`);

/** An `onCompress` listener threw; the call went on. */
export class ListenerError extends ContextCompressionError {
  readonly [listenerFailed] = true;

  constructor({ listener, cause }: { listener: string; cause?: unknown }) {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    super({ name: 'ListenerError', message: `The ${listener} listener threw${detail}`, cause });
  }

  static override isInstance(error: unknown): error is ListenerError {
    return hasMarker(error, baseSymbol) && hasMarker(error, listenerFailed);
  }
}

const embedderFailed = Symbol.for(`${PREFIX}.EmbedderError`);

/** An embedder threw, timed out or returned vectors of the wrong number or shape; recall ranked lexically instead. */
export class EmbedderError extends ContextCompressionError {
  readonly [embedderFailed] = true;
  readonly reason: 'threw' | 'timeout' | 'invalid-output';

  constructor({ reason, cause }: { reason: EmbedderError['reason']; cause?: unknown }) {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    super({ name: 'EmbedderError', message: `Embedder failed (${reason})${detail}`, cause });
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is EmbedderError {
    return hasMarker(error, baseSymbol) && hasMarker(error, embedderFailed);
  }
}

/** A tokenizer package could not be loaded: it is not installed, or this runtime cannot load it synchronously. */
export class TokenizerUnavailableError extends ContextCompressionError {
  /** The package that could not be loaded, e.g. `tiktoken`. */
  readonly module: string;

  constructor({ module, message, cause }: { module: string; message: string; cause?: unknown }) {
    super({ name: 'TokenizerUnavailableError', message, cause });
    this.module = module;
  }

  static override isInstance(error: unknown): error is TokenizerUnavailableError {
    return ContextCompressionError.isInstance(error) && error.name === 'TokenizerUnavailableError';
  }
}
