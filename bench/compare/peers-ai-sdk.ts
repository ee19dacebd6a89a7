/**
 * The AI SDK peers of the comparison, each driven through its own public API as its docs recommend:
 * - AI SDK `pruneMessages`, the `ai` package's own pruning helper, applied to the whole history on every call;
 * - `@context-chef/ai-sdk-middleware`, in-flight (`withContextChef` + `compress`, the quick start) and persisted
 *   (the README's recommended durable mode: own the message store, compact it with `compactModelMessages`).
 * Every system calls `generateText` on a recording mock and returns the prompt the mock received.
 */
import type { LanguageModelV4, LanguageModelV4Prompt, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import {
  type ContextChefOptions,
  compactModelMessages,
  planCompactionModelMessages,
  withContextChef,
} from '@context-chef/ai-sdk-middleware';
import { generateText, type ModelMessage, pruneMessages } from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';
import { toolOutputText, toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { recordingModel } from '../../examples/lib/replay.js';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS } from '../../src/counting/message-meter.js';
import type { TokenCounter } from '../../src/counting/token-counter.js';
import { stableStringify, type Transcript } from '../../src/transcript/transcript.js';
import { aiSdkStandIn } from './stand-in.js';
import type { History, Setup, System, SystemRun } from './types.js';

/** The options of the `pruneMessages` reference example (ai docs, 07-reference/02-ai-sdk-ui/32-prune-messages). */
export const PRUNE_OPTIONS = {
  reasoning: 'before-last-message',
  toolCalls: 'before-last-2-messages',
  emptyMessages: 'remove',
} as const;

/** context-chef's default share of the trigger budget kept verbatim (`compress.preserveRatio`, README). */
export const CHEF_PRESERVE_RATIO = 0.8;

/** The message form context-chef's `tokenizer` option counts (its IR `Message`). */
type ChefMessage = Parameters<NonNullable<ContextChefOptions['tokenizer']>>[0][number];

/** Makes the call on the recording mock and returns the prompt it received, as a transcript. */
async function send(
  mock: MockLanguageModelV4,
  model: LanguageModelV4,
  instructions: string | undefined,
  messages: ModelMessage[],
): Promise<Transcript> {
  await generateText({ model, instructions, messages });
  const prompt = mock.doGenerateCalls.at(-1)?.prompt as LanguageModelV4Prompt | undefined;
  if (!prompt) throw new Error(`${mock.modelId}: the model was not called`);
  mock.doGenerateCalls.length = 0; // only the last prompt is needed; don't hold every prompt of a long session
  return toTranscript(prompt, undefined);
}

/** Tokens of the system prompt as the harness counts a message: its text plus the per-message overhead. */
function instructionTokens(counter: TokenCounter, instructions: string | undefined): number {
  return instructions ? counter.count(instructions) + DEFAULT_MESSAGE_OVERHEAD_TOKENS : 0;
}

/** context-chef's `tokenizer`, fed with the setup's counter: text, tool calls and reasoning of IR messages. */
function chefTokens(counter: TokenCounter, messages: readonly ChefMessage[]): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += DEFAULT_MESSAGE_OVERHEAD_TOKENS + counter.count(message.content);
    if (message.thinking) tokens += counter.count(message.thinking.thinking);
    for (const call of message.tool_calls ?? [])
      tokens += counter.count(`${call.function.name}(${call.function.arguments})`);
  }
  return tokens;
}

/** Tokens of AI SDK messages, counted the way the harness counts a transcript. */
function modelTokens(counter: TokenCounter, messages: readonly ModelMessage[]): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += DEFAULT_MESSAGE_OVERHEAD_TOKENS;
    if (typeof message.content === 'string') {
      tokens += counter.count(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') tokens += counter.count(part.text);
      else if (part.type === 'tool-call') tokens += counter.count(`${part.toolName}(${stableStringify(part.input)})`);
      else if (part.type === 'tool-result')
        tokens += counter.count(toolOutputText(part.output as LanguageModelV4ToolResultOutput).text);
    }
  }
  return tokens;
}

/** What the conversation may use once the system prompt is in: context-chef counts only non-system messages. */
function conversationBudget(setup: Setup, instructions: string | undefined): number {
  const room = setup.budget - instructionTokens(setup.tokenCounter, instructions);
  if (room <= 0) throw new Error(`context-chef: the system prompt alone exceeds the ${setup.budget}-token budget`);
  return room;
}

/** A check that a session keeps one system prompt: the stateful runs are sized to it on their first call. */
function oneSystemPrompt(name: string): (history: History) => void {
  let first: { instructions: string | undefined } | undefined;
  return (history) => {
    first ??= { instructions: history.instructions };
    if (first.instructions !== history.instructions) {
      throw new Error(`${name}: the system prompt changed within a session; this run is sized to one system prompt`);
    }
  };
}

/** AI SDK `pruneMessages`, stateless: the reference example's options on the whole history before every call. */
function pruneMessagesPeer(): System {
  return {
    name: 'AI SDK pruneMessages',
    config:
      "ai pruneMessages({ reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }) on the whole history before every call (the reference example); no budget: it never counts tokens",
    create(): SystemRun {
      const mock = recordingModel();
      return {
        call: (history) =>
          send(mock, mock, history.instructions, pruneMessages({ messages: [...history.model], ...PRUNE_OPTIONS })),
      };
    },
  };
}

/**
 * context-chef in-flight: `withContextChef` with `compress` (the quick start), given the whole history every call.
 * Its budget check counts only non-system messages against `contextWindow * triggerRatio`, with no output reserve
 * of its own, so `triggerRatio` puts the trigger at the setup's budget minus the system prompt.
 */
function contextChefInFlight(): System {
  return {
    name: 'context-chef (in-flight)',
    config:
      'withContextChef(model, { contextWindow, compress: { model: stand-in, triggerRatio: (budget - system prompt tokens) / contextWindow, preserveRatio 0.8, minShrinkRatio 0.5 (defaults) }, tokenizer: tiktoken o200k }); whole history each call, summary not persisted (README: in-flight)',
    create(setup: Setup): SystemRun {
      const mock = recordingModel();
      const check = oneSystemPrompt('context-chef (in-flight)');
      let model: LanguageModelV4 | undefined;
      return {
        async call(history) {
          check(history);
          model ??= withContextChef(mock, {
            contextWindow: setup.contextWindow,
            compress: {
              model: aiSdkStandIn(setup.summarizerCalls),
              triggerRatio: conversationBudget(setup, history.instructions) / setup.contextWindow,
            },
            tokenizer: (messages) => chefTokens(setup.tokenCounter, messages),
            logger: quietLogger,
          });
          return send(mock, model, history.instructions, [...history.model]);
        },
      };
    },
  };
}

/**
 * The number of most recent turns (context-chef's turns: a message, or an assistant with its tool results) that fit
 * in `target` tokens, at least one: the kept tail the middleware's `preserveRatio` would size.
 */
function turnsThatFit(counter: TokenCounter, store: ModelMessage[], target: number): number {
  for (let turns = 1; ; turns++) {
    const plan = planCompactionModelMessages(store, { keepRecentTurns: turns });
    if (modelTokens(counter, plan.toKeep) > target) return Math.max(1, turns - 1);
    if (plan.toSummarize.length === 0) return turns;
  }
}

/**
 * context-chef persisted: the README's recommended mode for a long loop. The run owns its message store, appends
 * the new messages each call, and when the store is over the budget replaces it with `compactModelMessages`
 * (summary + recent turns, cut on turn boundaries), then calls the plain model (no `compress` on top: the README
 * warns that would compress twice).
 */
function contextChefPersisted(): System {
  return {
    name: 'context-chef (persisted)',
    config:
      'own store + compactModelMessages(store, stand-in, { keepRecentTurns: the most recent turns within 0.8 x (budget - system prompt), the preserveRatio default }) whenever system prompt + store > budget (tiktoken o200k); the compacted store is kept (README: durable compaction)',
    create(setup: Setup): SystemRun {
      const summarizer = aiSdkStandIn(setup.summarizerCalls);
      const check = oneSystemPrompt('context-chef (persisted)');
      return persistedRun(setup, summarizer, check, [], 0);
    },
  };
}

/** One persisted context-chef run over its own store; a fork goes on from a copy of the store. */
function persistedRun(
  setup: Setup,
  summarizer: ReturnType<typeof aiSdkStandIn>,
  check: ReturnType<typeof oneSystemPrompt>,
  initial: readonly ModelMessage[],
  initialSeen: number,
): SystemRun {
  const mock = recordingModel();
  let store: ModelMessage[] = [...initial];
  let seen = initialSeen;
  return {
    fork: () => persistedRun(setup, summarizer, check, store, seen),
    async call(history) {
      check(history);
      if (history.model.length < seen) throw new Error('context-chef (persisted): the history shrank');
      store = [...store, ...history.model.slice(seen)];
      seen = history.model.length;
      const room = conversationBudget(setup, history.instructions);
      if (modelTokens(setup.tokenCounter, store) > room) {
        const keepRecentTurns = turnsThatFit(setup.tokenCounter, store, Math.floor(room * CHEF_PRESERVE_RATIO));
        store = await compactModelMessages(store, summarizer, { keepRecentTurns });
      }
      return send(mock, mock, history.instructions, store);
    },
  };
}

/** The in-flight run is expected to trip context-chef's "compress without onCompress" warning; others are shown. */
const quietLogger = {
  warn(message: string, ...args: unknown[]) {
    if (typeof message === 'string' && message.includes('no `onCompress` is configured')) return;
    console.warn(message, ...args);
  },
};

/** The AI SDK peers, in a fixed order. */
export function aiSdkPeers(): System[] {
  return [pruneMessagesPeer(), contextChefInFlight(), contextChefPersisted()];
}
