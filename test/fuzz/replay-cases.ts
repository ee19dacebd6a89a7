/**
 * Replays of a whole generated conversation, as a server sees it: one call per model turn (before every assistant
 * message, and at the end), each call with the history so far rebuilt as new objects (a request parsed anew), so
 * folds accumulate in one state across many calls. Both adapters.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { BaseMessage } from '@langchain/core/messages';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { withContextCompression as withAiSdk } from '../../adapters/ai-sdk/index.js';
import { withContextCompression as withLangChain } from '../../adapters/langchain/index.js';
import { RecordingChatModel } from '../helpers/langchain.js';
import { textResult } from '../helpers/mock-model.js';
import * as arb from './arbitraries.js';
import {
  type CaseReport,
  caseSizing,
  checkLimits,
  counterOf,
  EventRecorder,
  guarded,
  jsonStore,
  libraryOptions,
  usageOf,
} from './harness.js';
import { ConversationChecker, type Violation } from './invariants.js';
import { AI_SDK, LANGCHAIN } from './prompt-kinds.js';
import { toLangChain, toV4Prompt } from './render.js';
import { checkUnmutated, snapshot } from './snapshot.js';
import { conversationTurns, type Turn } from './turns.js';

export interface ReplayCase {
  readonly conversation: arb.ConversationSpec;
  readonly options: arb.FuzzOptions;
  /** Two instances of a server take turns, sharing a JSON store, as behind a load balancer. */
  readonly instances: 1 | 2;
}

export const replayCase: fc.Arbitrary<ReplayCase> = fc.record({
  conversation: arb.conversation({ maxTurns: 8 }),
  options: arb.options,
  instances: fc.constantFrom<1 | 2>(1, 2),
});

/** The store of a replay: one shared by both instances, or each instance's own per its options. */
const sharedStore = (input: ReplayCase) => (input.instances === 2 ? jsonStore() : undefined);

/** The history lengths at which the model is called: before each assistant message, and the whole history. */
function callPoints(turns: readonly Turn[]): number[] {
  const points = turns.flatMap((turn, index) =>
    turn.role === 'assistant' && turns.slice(0, index).some((before) => before.role === 'user') ? [index] : [],
  );
  return [...new Set([...points, turns.length])];
}

/** Replays a conversation through one adapter: `call` sends a history and returns what the model received. */
async function replay<P>(
  input: ReplayCase,
  checker: ConversationChecker<P>,
  render: (turns: readonly Turn[]) => P,
  call: (prompt: P, callIndex: number) => Promise<P | undefined>,
  recorder: EventRecorder,
): Promise<CaseReport> {
  const { conversation, options } = input;
  const turns = conversationTurns(conversation, caseSizing(conversation, options), { pending: false });
  const violations: Violation[] = [];
  let prompts = 0;
  for (const [callIndex, end] of callPoints(turns).entries()) {
    const prompt = render(turns.slice(0, end));
    const before = snapshot(prompt);
    let sent: P | undefined;
    const thrown = await guarded(
      async () => {
        sent = await call(prompt, callIndex);
      },
      (error) => checker.checkThrown(error, prompt, undefined),
    );
    const { events, errors } = recorder.take();
    if (sent) {
      prompts++;
      violations.push(...checker.check({ caller: prompt, sent, tools: undefined, events, errors }));
      if (options.usageRatio !== undefined) checker.noteUsage();
    }
    violations.push(...thrown, ...checkUnmutated(before, prompt));
    if (thrown.length > 0) break;
  }
  return { prompts, violations, coverage: checker.coverage };
}

/** The case with usage reported only when one instance learns from it (each instance calibrates on its own). */
function withUsage(input: ReplayCase): ReplayCase {
  return input.instances === 1 ? input : { ...input, options: { ...input.options, usageRatio: undefined } };
}

/** A conversation replayed through the AI SDK adapter's `doGenerate`, by one or two instances in turn. */
export async function runAiSdkReplay(original: ReplayCase): Promise<CaseReport> {
  const input = withUsage(original);
  const { usageRatio } = input.options;
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(AI_SDK, checkLimits(input.options), counterOf(input.options));
  const mock = new MockLanguageModelV4({
    modelId: 'fuzz-model',
    doGenerate: async ({ prompt }) => ({
      ...textResult('ok'),
      usage: usageOf(usageRatio === undefined ? undefined : Math.round(usageRatio * checker.promptTokens(prompt, []))),
    }),
  });
  const store = sharedStore(input);
  const models = Array.from({ length: input.instances }, () =>
    withAiSdk(mock, libraryOptions(input.options, recorder, store)),
  );
  return replay<LanguageModelV4Prompt>(
    input,
    checker,
    toV4Prompt,
    async (prompt, callIndex) => {
      const count = mock.doGenerateCalls.length;
      await models[callIndex % models.length]?.doGenerate({ prompt });
      return mock.doGenerateCalls.length > count ? mock.doGenerateCalls.at(-1)?.prompt : undefined;
    },
    recorder,
  );
}

/** A conversation replayed through a LangChain chat model wrapped by the LangChain adapter, by one or two instances. */
export async function runLangChainReplay(original: ReplayCase): Promise<CaseReport> {
  const input = withUsage(original);
  const { usageRatio } = input.options;
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(LANGCHAIN, checkLimits(input.options), counterOf(input.options));
  const base = new RecordingChatModel({
    model: 'fuzz-model',
    ...(usageRatio === undefined
      ? {}
      : { inputTokens: (messages: BaseMessage[]) => Math.round(usageRatio * checker.promptTokens(messages, [])) }),
  });
  const store = sharedStore(input);
  const models = Array.from({ length: input.instances }, () =>
    withLangChain(base, libraryOptions(input.options, recorder, store)),
  );
  return replay<BaseMessage[]>(
    input,
    checker,
    (turns) => toLangChain(turns, input.conversation.blocks),
    async (messages, callIndex) => {
      const count = base.calls.length;
      await models[callIndex % models.length]?.invoke(messages);
      return base.calls.length > count ? base.calls.at(-1) : undefined;
    },
    recorder,
  );
}
