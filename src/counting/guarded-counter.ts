import { TokenCounterError } from '../errors.js';
import { approximateCounter, type TokenCounter } from './token-counter.js';

/**
 * The caller's counter as the engine uses it: a count that throws or is not a finite number of zero or more (NaN
 * would silently disable compression) is replaced by the approximate count of four characters a token, and the first
 * such failure goes to `onFailure`, once per engine, so a broken counter costs precision, never the user's call.
 */
export function guardedCounter(counter: TokenCounter, onFailure: (error: TokenCounterError) => void): TokenCounter {
  const fallback = approximateCounter();
  let reported = false;
  const failed = (error: TokenCounterError, text: string) => {
    if (!reported) {
      reported = true;
      onFailure(error);
    }
    return fallback.count(text);
  };
  return {
    name: counter.name,
    ...(counter.load ? { load: () => counter.load?.() ?? Promise.resolve() } : {}),
    // the fallback's counts (a token per four characters) are within the bound too
    ...(counter.bytesBound === true ? { bytesBound: true } : {}),
    ...(counter.calibrationFloor !== undefined ? { calibrationFloor: counter.calibrationFloor } : {}),
    count(text) {
      let tokens: number;
      try {
        tokens = counter.count(text);
      } catch (cause) {
        return failed(new TokenCounterError({ counter: counter.name, reason: 'threw', cause }), text);
      }
      if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
        return failed(
          new TokenCounterError({ counter: counter.name, reason: 'invalid-count', detail: String(tokens) }),
          text,
        );
      }
      return tokens;
    },
  };
}
