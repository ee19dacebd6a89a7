/** Counts the tokens of a text. Implementations must not throw on any input. */
export interface TokenCounter {
  /** A stable name, part of the memo key, e.g. `gpt-tokenizer:o200k_base`. */
  readonly name: string;
  count(text: string): number;
  /**
   * Loads the tokenizer before the first count, for counters that load it on demand. The engine awaits it before it
   * counts, so a tokenizer can arrive through a dynamic import, which every bundler and runtime supports.
   */
  load?(): Promise<void>;
  /**
   * True when no count exceeds the text's length in UTF-8 bytes, as with every byte-level BPE encoding (each token
   * stands for at least one byte). The engine then proves a prompt far below its thresholds from byte lengths and
   * counts only the messages a decision needs, the others later, when a figure is read.
   */
  readonly bytesBound?: boolean;
  /**
   * The lowest ratio of a provider's reported tokens to this counter's count that calibration learns from; a report
   * below it is taken for a wrong report and ignored. A counter that counts far more than a model's tokens sets a
   * lower one (UTF-8 bytes: pretty-printed JSON runs up to 12 bytes a token). @default 0.2
   */
  readonly calibrationFloor?: number;
}

/** A counter without a tokenizer: about four characters a token. Useful in tests and on constrained runtimes. */
export function approximateCounter(charactersPerToken = 4): TokenCounter {
  return {
    name: `approximate:${charactersPerToken}`,
    count: (text) => Math.ceil(text.length / charactersPerToken),
    // a character is at least one byte
    bytesBound: charactersPerToken >= 1,
  };
}
