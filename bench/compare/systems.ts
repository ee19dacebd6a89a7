/**
 * The baseline, this project's configurations and the published sliding-window recipe, all as AI SDK middleware
 * around a recording mock, so they are measured exactly like the AI SDK peers.
 */
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, wrapLanguageModel } from 'ai';
import type { ContextCompressionOptions } from '../../adapters/ai-sdk/index.js';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import { toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { recordingModel } from '../../examples/lib/replay.js';
import { slidingWindowMasking } from '../baselines/sliding-window-masking.js';
import { aiSdkStandIn } from './stand-in.js';
import type { Setup, System, SystemRun } from './types.js';

/** A run that sends each history through `wrap(mock)` with `generateText` and returns what the mock received. */
export function aiSdkRun(wrap: (mock: ReturnType<typeof recordingModel>) => LanguageModelV4): SystemRun {
  const mock = recordingModel();
  const model = wrap(mock);
  return {
    async call(history) {
      await generateText({ model, instructions: history.instructions, messages: [...history.model] });
      return toTranscript(mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt, undefined);
    },
  };
}

function ours(name: string, config: string, options: (setup: Setup) => ContextCompressionOptions): System {
  return {
    name,
    config,
    create: (setup) =>
      aiSdkRun((mock) =>
        withContextCompression(mock, {
          contextWindow: setup.contextWindow,
          reserveOutputTokens: setup.reserveOutputTokens,
          tokenCounter: setup.tokenCounter,
          ...options(setup),
        }),
      ),
  };
}

/** The systems this file defines, in table order. */
export function ownSystems(): System[] {
  return [
    {
      name: 'no compression',
      config: 'the whole history on every call',
      create: () => aiSdkRun((mock) => mock),
    },
    ours(
      'this project (defaults)',
      'withContextCompression(model): masking, triggers, session state; offline summarizer',
      () => ({}),
    ),
    ours(
      'this project (masking only)',
      'withContextCompression(model, { folding: false }): batched masking; oldest turns dropped at the hard limit',
      () => ({ folding: false }),
    ),
    ours(
      'this project (full, LLM summarizer)',
      'defaults with summarizer: the stand-in LLM (structured output), as a user with a model summarizer runs it',
      (setup) => ({ summarizer: aiSdkStandIn(setup.summarizerCalls) }),
    ),
    {
      name: 'sliding-window masking (10)',
      config: 'the published recipe: every tool result but the 10 latest masked, every turn; no budget',
      create: () => aiSdkRun((mock) => wrapLanguageModel({ model: mock, middleware: slidingWindowMasking(10) })),
    },
  ];
}
