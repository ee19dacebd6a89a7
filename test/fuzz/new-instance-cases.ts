/**
 * Durability across instances: a whole generated conversation replayed call by call through one instance on a store
 * of JSON text, and after every call a NEW instance on the same store given the same request. The new instance must
 * send a byte-identical prompt and call no summarizer: whatever the first one did (a fold, a mask, a recall block, a
 * drop, a fold it discarded and waits after), it stored. After a summarizer failure another instance may try its own
 * summarizer (the failure is not stored), so then only the prompt is compared. Both adapters; every prompt of the first instance is checked against the invariants too.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { BaseMessage } from '@langchain/core/messages';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { withContextCompression as withAiSdk } from '../../adapters/ai-sdk/index.js';
import { withContextCompression as withLangChain } from '../../adapters/langchain/index.js';
import { type CompressionOptions, extractiveSummarizer, type StateStore, type Summarizer } from '../../src/index.js';
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
  NO_USAGE,
} from './harness.js';
import { ConversationChecker, type Violation } from './invariants.js';
import { AI_SDK, LANGCHAIN, type PromptKind } from './prompt-kinds.js';
import { toLangChain, toV4Prompt } from './render.js';
import { conversationTurns, type Turn } from './turns.js';

export interface NewInstanceCase {
  readonly conversation: arb.ConversationSpec;
  readonly options: arb.FuzzOptions;
}

/** Conversations under the options of every case, and under the pressure options that bring folds and recall. */
export const newInstanceCase: fc.Arbitrary<NewInstanceCase> = fc.record({
  conversation: arb.conversation({ maxTurns: 8 }),
  // no usage reports: a new instance has not learned the ratio the first one calibrated with
  options: fc.oneof(arb.options, arb.pressureOptions).map((options) => ({ ...options, usageRatio: undefined })),
});

/** One adapter's way to send a prompt through a wrapped model made with some options. */
interface Sender<P> {
  readonly kind: PromptKind<P>;
  render(turns: readonly Turn[]): P;
  /** A wrapped model on its own; `send` returns what the model received, undefined when it was not called. */
  model(options: CompressionOptions): (prompt: P) => Promise<P | undefined>;
}

/** The summarizer of a case's options, counting its calls (the same name, so folds are keyed alike). */
function counted(options: CompressionOptions, calls: { count: number }): Summarizer {
  const given = options.summarizer;
  const inner: Summarizer =
    given === undefined
      ? extractiveSummarizer()
      : typeof given === 'function'
        ? { name: 'function', summarize: async (input) => given(input) }
        : given;
  return {
    name: inner.name,
    summarize: (input) => {
      calls.count++;
      return inner.summarize(input);
    },
  };
}

/** The history lengths at which the model is called: before each assistant message, and the whole history. */
function callPoints(turns: readonly Turn[]): number[] {
  const points = turns.flatMap((turn, index) =>
    turn.role === 'assistant' && turns.slice(0, index).some((before) => before.role === 'user') ? [index] : [],
  );
  return [...new Set([...points, turns.length])];
}

async function run<P>(input: NewInstanceCase, sender: Sender<P>): Promise<CaseReport> {
  const { conversation, options } = input;
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(sender.kind, checkLimits(options), counterOf(options));
  const store: StateStore = jsonStore();
  const first = sender.model(libraryOptions(options, recorder, store));
  const turns = conversationTurns(conversation, caseSizing(conversation, options), { pending: false });
  const violations: Violation[] = [];
  let prompts = 0;
  for (const end of callPoints(turns)) {
    let sent: P | undefined;
    const thrown = await guarded(
      async () => {
        sent = await first(sender.render(turns.slice(0, end)));
      },
      (error) => checker.checkThrown(error, sender.render(turns.slice(0, end)), undefined),
    );
    const { events, errors } = recorder.take();
    violations.push(...thrown);
    if (!sent) break;
    prompts++;
    violations.push(
      ...checker.check({ caller: sender.render(turns.slice(0, end)), sent, tools: undefined, events, errors }),
    );
    const reported = events.map((event) => event.trigger).join(', ') || 'none';
    violations.push(...(await newInstance(sender, options, store, turns.slice(0, end), sent, reported)));
  }
  return { prompts, violations, coverage: checker.coverage };
}

/** The same request through a new instance on the store: the same prompt, no summarizer call. */
async function newInstance<P>(
  sender: Sender<P>,
  options: arb.FuzzOptions,
  store: StateStore,
  history: readonly Turn[],
  sent: P,
  reported: string,
): Promise<Violation[]> {
  const calls = { count: 0 };
  const library = libraryOptions(options, new EventRecorder(), store);
  const second = sender.model({ ...library, summarizer: counted(library, calls) });
  let again: P | undefined;
  const thrown = await guarded(
    async () => {
      again = await second(sender.render(history));
    },
    (error) => [{ kind: 'new-instance-differs', detail: `the new instance threw ${String(error)}` }],
  );
  const out: Violation[] = [...thrown];
  const before = sender.kind.messageJson(sent);
  const after = again ? sender.kind.messageJson(again) : [];
  const at = before.findIndex((json, index) => json !== after[index]);
  if (again && (at >= 0 || before.length !== after.length))
    out.push({
      kind: 'new-instance-differs',
      detail:
        `after a call with events [${reported}], a new instance sent ${after.length} messages for ${before.length}` +
        (at >= 0 ? `, message ${at} differs` : ''),
    });
  // after a failure, another instance tries its own summarizer (it may work there): only the prompt must not differ
  if (calls.count > 0 && options.summarizer !== 'failing')
    out.push({
      kind: 'new-instance-summarized',
      detail: `after a call with events [${reported}], a new instance called the summarizer ${calls.count} times`,
    });
  return out;
}

const AI_SDK_SENDER: Sender<LanguageModelV4Prompt> = {
  kind: AI_SDK,
  render: toV4Prompt,
  model(options) {
    // no usage reported (the mock's default reports 10 input tokens, which a short first prompt would calibrate to)
    const mock = new MockLanguageModelV4({
      modelId: 'fuzz-model',
      doGenerate: async () => ({ ...textResult('ok'), usage: NO_USAGE }),
    });
    const model = withAiSdk(mock, options);
    return async (prompt) => {
      await model.doGenerate({ prompt });
      return mock.doGenerateCalls.at(-1)?.prompt;
    };
  },
};

/** A conversation through the AI SDK adapter's `doGenerate`, a new instance asked again after every call. */
export const runAiSdkNewInstance = (input: NewInstanceCase) => run(input, AI_SDK_SENDER);

/** A conversation through a wrapped LangChain chat model, a new instance asked again after every call. */
export const runLangChainNewInstance = (input: NewInstanceCase) =>
  run<BaseMessage[]>(input, {
    kind: LANGCHAIN,
    render: (turns) => toLangChain(turns, input.conversation.blocks),
    model(options) {
      const base = new RecordingChatModel({ model: 'fuzz-model' });
      const model = withLangChain(base, options);
      return async (messages) => {
        await model.invoke(messages);
        return base.calls.at(-1);
      };
    },
  });
