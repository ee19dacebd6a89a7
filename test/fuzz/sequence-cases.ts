/**
 * Call sequences as clients make them, not only one call per model turn: a history that grows by several messages at
 * once (a user message that arrives with the steps after it), the same request again (a retry), a shorter resend and
 * an edited last user message (a branch), a forced fold, streaming and non-streaming calls, and a second instance on
 * the same store taking some calls. Every prompt is checked call after call (`ConversationChecker`: the invariants, the
 * cache prefix, no recall block that leaves and comes back), and the library throws on any promise its own checks see
 * broken (`onBrokenPromise: 'throw'`). Both adapters.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { BaseMessage } from '@langchain/core/messages';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { CALL_OPTIONS_KEY, withContextCompression as withAiSdk } from '../../adapters/ai-sdk/index.js';
import { withContextCompression as withLangChain } from '../../adapters/langchain/index.js';
import { type CompressionOptions, memoryStateStore, type StateStore } from '../../src/index.js';
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
import { checkUnmutated, snapshot } from './snapshot.js';
import { conversationTurns, type Turn } from './turns.js';

/** What a call does to the history the client sends. */
export type SequenceAction = 'extend' | 'retry' | 'shorter' | 'edit';

export interface SequenceCall {
  readonly action: SequenceAction;
  /** Call points the history moves by (extend, shorter). */
  readonly steps: number;
  readonly via: 'generate' | 'stream';
  readonly force: boolean;
  /** The call goes to the second instance (when the case has one). */
  readonly other: boolean;
}

export interface SequenceCase {
  readonly conversation: arb.ConversationSpec;
  readonly options: arb.FuzzOptions;
  readonly calls: readonly SequenceCall[];
  /** A second instance on the same store takes the calls marked `other`. */
  readonly instances: 1 | 2;
}

const sequenceCall: fc.Arbitrary<SequenceCall> = fc.record({
  action: fc.oneof(
    { weight: 8, arbitrary: fc.constant<SequenceAction>('extend') },
    { weight: 1, arbitrary: fc.constant<SequenceAction>('retry') },
    { weight: 1, arbitrary: fc.constant<SequenceAction>('shorter') },
    { weight: 1, arbitrary: fc.constant<SequenceAction>('edit') },
  ),
  steps: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.integer({ min: 2, max: 6 }) }),
  via: fc.constantFrom('generate', 'stream'),
  force: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  other: fc.boolean(),
});

/** Conversations under every option and under the pressure options (folds, recall blocks and large states meet). */
export const sequenceCase: fc.Arbitrary<SequenceCase> = fc.record({
  conversation: arb.conversation({ maxTurns: 8 }),
  // no usage reports: two instances calibrate on their own, and then may rightly send different prompts
  options: fc.oneof(arb.options, arb.pressureOptions).map((options) => ({ ...options, usageRatio: undefined })),
  calls: fc.array(sequenceCall, { minLength: 3, maxLength: 14 }),
  instances: fc.constantFrom<1 | 2>(1, 1, 2),
});

/**
 * The history lengths a client may send: each ends with a user message, the last result of a step, or an assistant
 * message without tool calls (never with calls whose results are missing).
 */
export function sendablePoints(turns: readonly Turn[]): number[] {
  const points: number[] = [];
  const open = new Set<string>();
  for (let end = 1; end <= turns.length; end++) {
    const last = turns[end - 1] as Turn;
    for (const part of last.parts) {
      if (part.kind === 'call' && !part.providerExecuted) open.add(part.id);
      if (part.kind === 'result') open.delete(part.id);
    }
    // never between a step's calls and the last of their results (a client sends them together)
    if (open.size === 0 && last.role !== 'system' && turns.slice(0, end).some((turn) => turn.role === 'user'))
      points.push(end);
  }
  return points;
}

/** The history with its last user message's text changed: an edit, which starts a branch. */
function edited(history: readonly Turn[]): Turn[] {
  const at = history.findLastIndex((turn) => turn.role === 'user');
  return history.map((turn, index) =>
    index === at
      ? { ...turn, parts: [...turn.parts, { kind: 'text', text: ' (edited)', providerOptions: undefined }] }
      : turn,
  );
}

/** One adapter's way to send a prompt, streaming or not, forced or not. */
interface Sender<P> {
  readonly kind: PromptKind<P>;
  render(turns: readonly Turn[]): P;
  /** A wrapped model; the function returns what the model received, undefined when it was not called. */
  model(options: CompressionOptions): (prompt: P, call: SequenceCall) => Promise<P | undefined>;
}

async function run<P>(input: SequenceCase, sender: Sender<P>): Promise<CaseReport> {
  const { conversation, options } = input;
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(sender.kind, checkLimits(options), counterOf(options));
  // instances share a store; the memory store is shared as one object (as in one process)
  const store: StateStore = options.store === 'json' ? jsonStore() : memoryStateStore();
  const models = Array.from({ length: input.instances }, () => sender.model(libraryOptions(options, recorder, store)));
  const turns = conversationTurns(conversation, caseSizing(conversation, options), { pending: false });
  const points = sendablePoints(turns);
  const violations: Violation[] = [];
  let prompts = 0;
  let at = 0;
  let previousInstance = 0;
  for (const call of input.calls) {
    if (points.length === 0) break;
    if (call.action === 'extend') at = Math.min(points.length - 1, at + call.steps);
    if (call.action === 'shorter') at = Math.max(0, at - call.steps);
    const history = turns.slice(0, points[at]);
    const prompt = sender.render(call.action === 'edit' ? edited(history) : history);
    const before = snapshot(prompt);
    const instance = call.other ? models.length - 1 : 0;
    const model = models[instance] as (typeof models)[number];
    let sent: P | undefined;
    const thrown = await guarded(
      async () => {
        sent = await model(prompt, call);
      },
      (error) => checker.checkThrown(error, prompt, undefined),
    );
    const { events, errors } = recorder.take();
    violations.push(...thrown, ...checkUnmutated(before, prompt));
    if (!sent) break;
    prompts++;
    const found = checker.check({
      caller: prompt,
      sent,
      tools: undefined,
      events,
      errors,
      forced: call.force,
      // an instance reports what changed against what it sent itself: after the other instance's call it may not
      // know what that call changed (a fold it stored, a redaction it sent first)
      instanceChanged: instance !== previousInstance,
    });
    previousInstance = instance;
    if (process.env.SEQ_DEBUG)
      console.log(
        `CALL ${call.action} force=${call.force} other=${call.other} hist=${points[at]} sent=${sender.kind.messageJson(sent).length} events=${JSON.stringify(events.map((e) => e.decisions.map((d) => `${d.trigger}:${d.details.slice(0, 150)}`)))} found=${found.map((v) => v.kind)}`,
      );
    violations.push(...found);
  }
  return { prompts, violations, coverage: checker.coverage };
}

const STREAM_CHUNKS: LanguageModelV4StreamPart[] = [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'ok' },
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: NO_USAGE },
];

const AI_SDK_SENDER: Sender<LanguageModelV4Prompt> = {
  kind: AI_SDK,
  render: toV4Prompt,
  model(options) {
    let received: LanguageModelV4Prompt | undefined;
    const mock = new MockLanguageModelV4({
      modelId: 'fuzz-model',
      doGenerate: async ({ prompt }: LanguageModelV4CallOptions) => {
        received = prompt;
        return { ...textResult('ok'), usage: NO_USAGE };
      },
      doStream: async ({ prompt }: LanguageModelV4CallOptions) => {
        received = prompt;
        return { stream: simulateReadableStream({ chunks: STREAM_CHUNKS }) };
      },
    });
    const model = withAiSdk(mock, options);
    return async (prompt, call) => {
      received = undefined;
      const providerOptions = call.force ? { [CALL_OPTIONS_KEY]: { force: true } } : undefined;
      if (call.via === 'stream') {
        const { stream } = await model.doStream({ prompt, providerOptions });
        const reader = stream.getReader();
        while (!(await reader.read()).done);
      } else await model.doGenerate({ prompt, providerOptions });
      return received;
    };
  },
};

/** Call sequences through the AI SDK adapter's `doGenerate` and `doStream`. */
export const runAiSdkSequence = (input: SequenceCase) => run(input, AI_SDK_SENDER);

/** Call sequences through a wrapped LangChain chat model's `invoke` and `stream`. */
export const runLangChainSequence = (input: SequenceCase) =>
  run<BaseMessage[]>(input, {
    kind: LANGCHAIN,
    render: (turns) => toLangChain(turns, input.conversation.blocks),
    model(options) {
      const base = new RecordingChatModel({ model: 'fuzz-model' });
      const model = withLangChain(base, options);
      return async (messages, call) => {
        const count = base.calls.length;
        const config = call.force ? { configurable: { [CALL_OPTIONS_KEY]: { force: true } } } : undefined;
        if (call.via === 'stream') for await (const _chunk of await model.stream(messages, config));
        else await model.invoke(messages, config);
        return base.calls.length > count ? base.calls.at(-1) : undefined;
      };
    },
  });
