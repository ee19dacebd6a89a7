import { ListenerError } from '../errors.js';
import type { CompressionOptions } from '../options/options.js';
import type { CallReport, CompressEvent, CompressionErrorEvent } from './events.js';

/** The caller's listeners as the engine calls them. */
export interface Listeners {
  onCompress(event: CompressEvent): void;
  onCall(report: CallReport): void;
  onError(event: CompressionErrorEvent): void;
}

/**
 * The caller's `onCompress`, `onCall` and `onError`, made safe: listeners that throw never fail the user's call. An
 * `onCompress` or `onCall` error goes to `onError` as a `ListenerError`; an `onError` error has nowhere left to go.
 */
export function safeListeners(options: Pick<CompressionOptions, 'onCompress' | 'onCall' | 'onError'>): Listeners {
  const onError = (event: CompressionErrorEvent) => {
    try {
      options.onError?.(event);
    } catch {
      // nothing is left to tell
    }
  };
  return {
    onError,
    onCompress(event) {
      try {
        options.onCompress?.(event);
      } catch (cause) {
        onError({ error: new ListenerError({ listener: 'onCompress', cause }), fallback: 'continued' });
      }
    },
    onCall(report) {
      try {
        options.onCall?.(report);
      } catch (cause) {
        onError({ error: new ListenerError({ listener: 'onCall', cause }), fallback: 'continued' });
      }
    },
  };
}
