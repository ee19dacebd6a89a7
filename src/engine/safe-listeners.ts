import { ListenerError } from '../errors.js';
import type { CompressionOptions } from '../options/options.js';
import type { CompressionReport } from '../reports/compression-report.js';
import type { CallReport, CompressEvent, CompressionErrorEvent } from '../reports/events.js';
import { callMetadata } from './call-metadata.js';

/** The caller's listeners as the engine calls them. */
export interface Listeners {
  onCompress(event: CompressEvent): void;
  onCall(report: CallReport): void;
  onError(event: CompressionErrorEvent): void;
}

/**
 * The caller's `onCompress`, `onCall` and `onError`, made safe: listeners that throw never fail the user's call. An
 * `onCompress` or `onCall` error goes to `onError` as a `ListenerError`; an `onError` error has nowhere left to go.
 * Listeners get copies of events (an `onError` event and its error are made for that listener call alone), so one that
 * changes what it gets changes nothing the engine keeps or returns.
 */
export function safeListeners(options: Pick<CompressionOptions, 'onCompress' | 'onCall' | 'onError'>): Listeners {
  const onError = (event: CompressionErrorEvent) => {
    try {
      options.onError?.(event);
    } catch {
      // nothing is left to tell
    }
  };
  // a listener that throws, or an async one whose promise rejects (a dashboard's write): told to onError, never thrown
  const guarded =
    <T>(listener: 'onCompress' | 'onCall', call: ((value: T) => unknown) | undefined) =>
    (value: T) => {
      const failed = (cause: unknown) =>
        onError({ error: new ListenerError({ listener, cause }), fallback: 'continued' });
      try {
        const result = call?.(value);
        if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
          (result as PromiseLike<unknown>).then(undefined, failed);
        }
      } catch (cause) {
        failed(cause);
      }
    };
  const onCompress = guarded<CompressEvent>('onCompress', options.onCompress);
  const onCall = guarded<CompressionReport>('onCall', options.onCall);
  // each listener gets an event of its own: the call's event is also in its output, and a listener may change its copy
  return {
    onError,
    onCompress: (event) => options.onCompress && onCompress(structuredClone(event)),
    // the report every adapter shows, made per listener call (its lazy figures are getters; its change is a copy)
    onCall: (report) => options.onCall && onCall(callMetadata(report)),
  };
}
