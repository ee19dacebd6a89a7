import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { CACHE_READ_PRICE, CACHE_WRITE_PRICE } from '../../adapters/cli/replay.js';
import { type MessageMeasure, MessageMeter } from '../../src/counting/message-meter.js';
import { commonPrefixTokens } from '../../src/counting/prefix-tracker.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { assistantTurns, type SessionFile, toModelMessages } from './session-file.js';

export { CACHE_READ_PRICE, CACHE_WRITE_PRICE };
/** A summarizer's output token, in input-token units (`cachePricing.output`'s default: Claude and GPT-4o price output at 4-5x input). */
export const OUTPUT_PRICE = 5;

/** One replayed model call. */
export interface ReplayStep {
  /** Tokens of the whole history as the caller sent it. */
  readonly fullTokens: number;
  /** Tokens of the prompt the model received. */
  readonly sentTokens: number;
  /** Leading tokens identical to the previous call's prompt: what a prompt cache hits. */
  readonly cachedTokens: number;
  /** Milliseconds spent in the model stack outside the mock model itself (the compression overhead). */
  readonly overheadMs: number;
}

/** A replay's steps and totals. */
export interface ReplayResult {
  readonly steps: readonly ReplayStep[];
  readonly sentTokens: number;
  readonly fullTokens: number;
  /** Cache-priced cost in input-token units: cached tokens at 0.1, the rest at 1.25. */
  readonly cost: number;
  /** Every distinct token written to the cache once: the cost floor. */
  readonly floor: number;
  /** Share of all sent tokens that were a cache hit. */
  readonly prefixReuse: number;
}

const meter = new MessageMeter(tiktokenCounter());

/** Message hashes and tokens of a prompt as the provider would receive it. */
export function measurePrompt(prompt: LanguageModelV4Prompt): MessageMeasure[] {
  const transcript = toTranscript(prompt, undefined);
  return [...transcript.system, ...transcript.messages].map((message) => meter.measure(message));
}

/** A mock model that answers every call with a fixed text and records the prompts it received. */
export function recordingModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    modelId: 'replay-model',
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
      warnings: [],
    }),
  });
}

/**
 * Replays a recorded session step by step: each assistant turn becomes one model call whose prompt is the
 * history before it. `wrap` turns the recording mock into the model under test (identity = no compression).
 * An outer spy records the caller's full prompt, so "without compression" is measured on the same call.
 */
export async function replaySession(
  session: SessionFile,
  wrap: (model: MockLanguageModelV4) => LanguageModelV4,
  { onStep }: { onStep?: (step: ReplayStep, index: number) => void } = {},
): Promise<ReplayResult> {
  const { instructions, messages } = toModelMessages(session);
  const mock = recordingModel();
  let fullPrompt: LanguageModelV4Prompt = [];
  let mockMs = 0;
  const timedMock = mock.doGenerate;
  mock.doGenerate = async (options) => {
    const started = performance.now();
    const result = await timedMock(options);
    mockMs += performance.now() - started;
    return result;
  };
  const model = wrapLanguageModel({
    model: wrap(mock),
    middleware: {
      specificationVersion: 'v4',
      transformParams: async ({ params }) => {
        fullPrompt = params.prompt;
        return params;
      },
      wrapGenerate: async ({ doGenerate }) => {
        const started = performance.now();
        mockMs = 0;
        const result = await doGenerate();
        lastOverheadMs = performance.now() - started - mockMs;
        return result;
      },
    },
  });
  let lastOverheadMs = 0;
  const steps: ReplayStep[] = [];
  let previous: MessageMeasure[] = [];
  for (const end of assistantTurns(messages)) {
    await generateText({ model, instructions, messages: messages.slice(0, end) });
    const measured = measurePrompt(mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt);
    const step: ReplayStep = {
      fullTokens: sum(measurePrompt(fullPrompt)),
      sentTokens: sum(measured),
      cachedTokens: commonPrefixTokens(previous, measured),
      overheadMs: lastOverheadMs,
    };
    previous = measured;
    steps.push(step);
    onStep?.(step, steps.length - 1);
  }
  return totals(steps);
}

function sum(measures: ReadonlyArray<{ tokens: number }>): number {
  return measures.reduce((total, item) => total + item.tokens, 0);
}

/** Totals of a replay: tokens, cache-priced cost, the write-once floor and prefix reuse. */
export function totals(steps: readonly ReplayStep[]): ReplayResult {
  const sentTokens = steps.reduce((total, step) => total + step.sentTokens, 0);
  const cachedTokens = steps.reduce((total, step) => total + step.cachedTokens, 0);
  return {
    steps,
    sentTokens,
    fullTokens: steps.reduce((total, step) => total + step.fullTokens, 0),
    cost: cachedTokens * CACHE_READ_PRICE + (sentTokens - cachedTokens) * CACHE_WRITE_PRICE,
    floor: (steps.at(-1)?.fullTokens ?? 0) * CACHE_WRITE_PRICE,
    prefixReuse: sentTokens > 0 ? cachedTokens / sentTokens : 0,
  };
}
