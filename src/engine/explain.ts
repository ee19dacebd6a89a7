import type { CompressionOptions } from '../options/options.js';
import { memoryStateStore } from '../persistence/state-store.js';
import type { CompressionDecision } from '../reports/decisions.js';
import { extractiveSummarizer } from '../summarizers/extractive-summarizer.js';
import type { Message, Transcript } from '../transcript/transcript.js';
import { CompressionEngine } from './engine.js';

/** A decision of the log, with the call it was taken in. */
export interface ExplainedDecision extends CompressionDecision {
  /** Messages (system excluded) the call's history had when the decision was taken. */
  readonly atMessage: number;
  /**
   * True for a fold that would have paid for its cache break but was put off, because the work after it still
   * quotes results it would hide (its details say which): the trade between savings and what the agent may need.
   * Logged once per fold point.
   */
  readonly deferred?: true;
}

/** Options of `explain`: the engine's options, plus whether to replay the history call by call. */
export interface ExplainOptions extends CompressionOptions {
  /** The model id, for the context-window table when `contextWindow` is not given. @default 'unknown' */
  modelId?: string;
  /**
   * `replay` explains every model call of the history (one per assistant turn, as an agent loop makes them);
   * `final` only the call with the whole history. @default 'replay'
   */
  mode?: 'replay' | 'final';
}

/**
 * The decision log of a transcript: what the engine does to it, and why, without calling any model. Summaries use
 * the offline extractive summarizer and a throwaway in-memory store, so a model summarizer in the options is never
 * called and no real store is touched.
 */
export async function explain(transcript: Transcript, options: ExplainOptions = {}): Promise<ExplainedDecision[]> {
  const { modelId = 'unknown', mode = 'replay', ...engineOptions } = options;
  const engine = new CompressionEngine({
    ...engineOptions,
    summarizer: extractiveSummarizer(),
    store: memoryStateStore(),
    onCompress: undefined,
    onCall: undefined,
    onError: undefined,
  });
  const ends =
    mode === 'final'
      ? [transcript.messages.length]
      : [
          ...transcript.messages.flatMap((message: Message, index) =>
            message.role === 'assistant' && index > 0 ? [index] : [],
          ),
          transcript.messages.length,
        ];
  const log: ExplainedDecision[] = [];
  for (const end of new Set(ends)) {
    const output = await engine.compress({
      transcript: { ...transcript, messages: transcript.messages.slice(0, end) },
      modelId,
    });
    for (const decision of output.decisions) {
      // shortened results are re-applied on every call: log them once
      if (decision.trigger === 'oversized-result' && log.some((entry) => entry.details === decision.details)) continue;
      log.push({ ...decision, atMessage: end });
    }
    for (const decision of output.deferred) {
      const to = decision.scope.kind === 'messages' ? decision.scope.to : -1;
      const seen = log.some((entry) => entry.deferred && entry.scope.kind === 'messages' && entry.scope.to === to);
      if (!seen) log.push({ ...decision, atMessage: end, deferred: true });
    }
  }
  return log;
}
