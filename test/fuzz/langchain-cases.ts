/**
 * Fuzz cases of the LangChain adapter: generated message lists through a wrapped chat model (`invoke`, `stream`,
 * bound tools) or the `compressMessages` chain step, maybe repeated, and multi-step agent loops that append the
 * model's reply and its tool results and call again. The recording chat model keeps what it received.
 */
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { CALL_OPTIONS_KEY, compressMessages, withContextCompression } from '../../adapters/langchain/index.js';
import { RecordingChatModel, StreamingRecordingChatModel } from '../helpers/langchain.js';
import * as arb from './arbitraries.js';
import {
  type CaseReport,
  caseSizing,
  checkLimits,
  counterOf,
  EventRecorder,
  guarded,
  libraryOptions,
} from './harness.js';
import { ConversationChecker, type Violation } from './invariants.js';
import { LANGCHAIN } from './prompt-kinds.js';
import { toLangChain } from './render.js';
import { checkUnmutated, snapshot } from './snapshot.js';
import { conversationTurns, TurnBuilder } from './turns.js';

export interface LangChainCase {
  readonly conversation: arb.ConversationSpec;
  readonly options: arb.FuzzOptions;
  readonly via: 'invoke' | 'stream' | 'compressMessages';
  /** The request once, twice in a row (a retry), or twice at the same time (two instances, a double submit). */
  readonly repeat: 'once' | 'twice' | 'parallel';
  readonly tools: boolean;
  /** Asks for a fold of every complete turn through the per-call options. */
  readonly force: boolean;
}

export interface LangChainLoopCase {
  readonly conversation: arb.ConversationSpec;
  readonly options: arb.FuzzOptions;
  readonly replies: readonly arb.ReplySpec[];
  readonly tools: boolean;
}

export const langChainCase: fc.Arbitrary<LangChainCase> = fc.record({
  conversation: arb.conversation(),
  options: arb.options,
  via: fc.constantFrom('invoke', 'stream', 'compressMessages'),
  repeat: fc.constantFrom('once', 'twice', 'parallel'),
  tools: fc.boolean(),
  force: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

export const langChainLoopCase: fc.Arbitrary<LangChainLoopCase> = fc.record({
  conversation: arb.conversation({ maxTurns: 10 }),
  options: arb.options,
  replies: arb.replies,
  tools: fc.boolean(),
});

const TOOL_NAMES = ['read_file', 'bash', 'search', 'edit_file', 'run_tests', 'lookup_order', 'web_fetch', 'ツール'];
/** OpenAI-style definitions, as `bindTools` passes them on. */
const TOOLS = [...TOOL_NAMES, 'redact_tool_results'].map((name) => ({
  type: 'function',
  function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties: {} } },
}));

/** Runs one LangChain case and checks every message list the model (or the chain step) gave out. */
export async function runLangChainCase(input: LangChainCase): Promise<CaseReport> {
  const { conversation, via } = input;
  // usage only in sequential multi-call cases: parallel calls would see the learned ratio at different times
  const options = { ...input.options, usageRatio: undefined };
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(LANGCHAIN, checkLimits(options), counterOf(options));
  const size = caseSizing(conversation, options);
  const messages = toLangChain(conversationTurns(conversation, size, { pending: true }), conversation.blocks);
  const tools = input.tools && via !== 'compressMessages' ? TOOLS : undefined;
  const before = snapshot(messages);
  const violations: Violation[] = [];
  let prompts = 0;
  const library = libraryOptions(options, recorder);
  const config = input.force ? { configurable: { [CALL_OPTIONS_KEY]: { force: true } } } : undefined;
  /** Sends the messages once; the prompts the model received are read from the recording model after. */
  let send: () => Promise<BaseMessage[] | undefined>;
  let recorded: BaseMessage[][] = [];
  if (via === 'compressMessages') {
    const step = compressMessages(library);
    send = async () => step.invoke(messages, config);
  } else {
    const base =
      via === 'stream'
        ? new StreamingRecordingChatModel({ model: 'fuzz-model' })
        : new RecordingChatModel({ model: 'fuzz-model' });
    recorded = base.calls;
    const model = withContextCompression(base, library);
    const runnable = tools ? model.bindTools(TOOLS) : model;
    send = async () => {
      if (via === 'stream') for await (const _chunk of await runnable.stream(messages, config));
      else await runnable.invoke(messages, config);
      return undefined;
    };
  }
  const rounds = input.repeat === 'twice' ? 2 : 1;
  for (let attempt = 0; attempt < rounds; attempt++) {
    const count = recorded.length;
    let outputs: (BaseMessage[] | undefined)[] = [];
    const thrown = await guarded(
      async () => {
        outputs = await (input.repeat === 'parallel' ? Promise.all([send(), send()]) : Promise.all([send()]));
      },
      (error) => checker.checkThrown(error, messages, tools),
    );
    const sentLists = via === 'compressMessages' ? outputs.filter((list) => list !== undefined) : recorded.slice(count);
    const { events, errors } = recorder.take();
    for (const sent of sentLists) {
      prompts++;
      // parallel calls report in any order: each is checked against everything reported meanwhile
      violations.push(...checker.check({ caller: messages, sent, tools, events, errors }));
    }
    violations.push(...thrown, ...checkUnmutated(before, messages));
    if (thrown.length > 0) break;
  }
  return { prompts, violations, coverage: checker.coverage };
}

/** Runs an agent loop from a generated history: each reply appended with its tool results, 3 to 8 model calls. */
export async function runLangChainLoopCase(input: LangChainLoopCase): Promise<CaseReport> {
  const { conversation, options } = input;
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(LANGCHAIN, checkLimits(options), counterOf(options));
  const size = caseSizing(conversation, options);
  const builder = new TurnBuilder(conversation, size);
  let history = toLangChain(
    conversationTurns(conversation, size, { pending: false }, builder),
    conversation.blocks,
    'h',
  );
  const plans = input.replies.map((reply, index) => ({
    reply,
    messages: toLangChain(builder.reply(reply), conversation.blocks, `r${index}`),
  }));
  let served = 0;
  const tools = input.tools ? TOOLS : undefined;
  const { usageRatio } = options;
  const base = new RecordingChatModel({
    model: 'fuzz-model',
    ...(usageRatio === undefined
      ? {}
      : { inputTokens: (messages: BaseMessage[]) => Math.round(usageRatio * checker.promptTokens(messages, tools)) }),
    reply: () => {
      const planned = plans[served++]?.messages[0];
      return planned instanceof AIMessage ? planned : new AIMessage('done');
    },
  });
  const model = withContextCompression(base, libraryOptions(options, recorder));
  const runnable = input.tools ? model.bindTools(TOOLS) : model;
  const violations: Violation[] = [];
  let prompts = 0;
  for (const [index, plan] of plans.entries()) {
    const before = snapshot(history);
    const count = base.calls.length;
    let answer: BaseMessage | undefined;
    const thrown = await guarded(
      async () => {
        answer = await runnable.invoke(history);
      },
      (error) => checker.checkThrown(error, history, tools),
    );
    const { events, errors } = recorder.take();
    const sent = base.calls.length > count ? base.calls.at(-1) : undefined;
    if (sent) {
      prompts++;
      violations.push(...checker.check({ caller: history, sent, tools, events, errors }));
      if (usageRatio !== undefined) checker.noteUsage();
    }
    violations.push(...thrown, ...checkUnmutated(before, history));
    if (thrown.length > 0 || !answer) break;
    const results = plan.messages.filter((message) => message instanceof ToolMessage);
    history = [...history, answer, ...results];
    if (plan.reply.calls.length === 0)
      history = [...history, ...toLangChain([builder.user(plan.reply.nextUser)], conversation.blocks, `u${index}`)];
  }
  return { prompts, violations, coverage: checker.coverage };
}
