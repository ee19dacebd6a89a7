const marker = 'context-compression.error';
const symbol = Symbol.for(marker);

/** Base class of every error this package throws; `isInstance` works across package copies. */
export class ContextCompressionError extends Error {
  /** Marks errors of this package; read by `isInstance`. */
  readonly [symbol] = true;

  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.name = name;
  }

  /** True for any error thrown by this package, even from another copy of it. */
  static isInstance(error: unknown): error is ContextCompressionError {
    return typeof error === 'object' && error !== null && symbol in error;
  }
}

/** An option given to a factory is missing, out of range or inconsistent with another. */
export class InvalidOptionError extends ContextCompressionError {
  readonly option: string;

  constructor({ option, message }: { option: string; message: string }) {
    super({ name: 'InvalidOptionError', message: `Invalid option \`${option}\`: ${message}` });
    this.option = option;
  }

  static override isInstance(error: unknown): error is InvalidOptionError {
    return ContextCompressionError.isInstance(error) && error.name === 'InvalidOptionError';
  }
}

/** The context window of the model is not in the built-in table and was not given. */
export class UnknownContextWindowError extends ContextCompressionError {
  readonly modelId: string;

  constructor({ modelId }: { modelId: string }) {
    super({
      name: 'UnknownContextWindowError',
      message:
        `The context window of model "${modelId}" is not known. ` +
        'Pass it as the `contextWindow` option, e.g. withContextCompression(model, { contextWindow: 128_000 }).',
    });
    this.modelId = modelId;
  }

  static override isInstance(error: unknown): error is UnknownContextWindowError {
    return ContextCompressionError.isInstance(error) && error.name === 'UnknownContextWindowError';
  }
}

/** A single user message is larger than the whole budget: no compression can make the call fit. */
export class MessageTooLargeError extends ContextCompressionError {
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
    return ContextCompressionError.isInstance(error) && error.name === 'MessageTooLargeError';
  }
}

/** A summarizer threw, timed out or returned something the SessionState schema rejects. */
export class SummarizerError extends ContextCompressionError {
  readonly summarizer: string;
  readonly reason: 'threw' | 'timeout' | 'invalid-output';

  constructor({
    summarizer,
    reason,
    cause,
  }: { summarizer: string; reason: SummarizerError['reason']; cause?: unknown }) {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    super({ name: 'SummarizerError', message: `Summarizer "${summarizer}" failed (${reason})${detail}`, cause });
    this.summarizer = summarizer;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is SummarizerError {
    return ContextCompressionError.isInstance(error) && error.name === 'SummarizerError';
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
