/**
 * Fuzz cases of the AI SDK adapter: one prompt through the wrapped model (`doGenerate`, `doStream` or
 * `generateText`, maybe repeated), and multi-step `generateText` tool loops that start from a generated history.
 * Every prompt the mock model receives is checked against the prompt the caller sent, recorded by a middleware
 * outside the compression.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import {
  generateText,
  isStepCount,
  jsonSchema,
  type ModelMessage,
  simulateReadableStream,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { CALL_OPTIONS_KEY, withContextCompression } from '../../adapters/ai-sdk/index.js';
import * as arb from './arbitraries.js';
import {
  type CaseReport,
  caseSizing,
  checkLimits,
  counterOf,
  EventRecorder,
  guarded,
  libraryOptions,
  NO_USAGE,
  usageOf,
} from './harness.js';
import { type Call, ConversationChecker, type Violation } from './invariants.js';
import { AI_SDK } from './prompt-kinds.js';
import { toModelMessages, toV4Prompt } from './render.js';
import { checkUnmutated, snapshot } from './snapshot.js';
import { conversationTurns, type Output, type Turn, TurnBuilder } from './turns.js';

export interface AiSdkCase {
  readonly conversation: arb.ConversationSpec;
  readonly options: arb.FuzzOptions;
  readonly mode: 'doGenerate' | 'doStream' | 'generateText';
  /** The request once, twice in a row (a retry), or twice at the same time (two instances, a double submit). */
  readonly repeat: 'once' | 'twice' | 'parallel';
  readonly tools: boolean;
  /** Asks for a fold of every complete turn through the per-call options. */
  readonly force: boolean;
}

export interface AiSdkLoopCase {
  readonly conversation: arb.ConversationSpec;
  readonly options: arb.FuzzOptions;
  readonly replies: readonly arb.ReplySpec[];
}

export const aiSdkCase: fc.Arbitrary<AiSdkCase> = fc.record({
  conversation: arb.conversation(),
  options: arb.options,
  mode: fc.constantFrom('doGenerate', 'doStream', 'generateText'),
  repeat: fc.constantFrom('once', 'twice', 'parallel'),
  tools: fc.boolean(),
  force: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

export const aiSdkLoopCase: fc.Arbitrary<AiSdkLoopCase> = fc.record({
  conversation: arb.conversation({ maxTurns: 10 }),
  options: arb.options,
  replies: arb.replies,
});

const TOOL_NAMES = ['read_file', 'bash', 'search', 'edit_file', 'run_tests', 'lookup_order', 'web_fetch', 'ツール'];
const FUNCTION_TOOLS: NonNullable<LanguageModelV4CallOptions['tools']> = [...TOOL_NAMES, 'redact_tool_results'].map(
  (name) => ({ type: 'function', name, description: `The ${name} tool.`, inputSchema: { type: 'object' } }),
);

/** A mock model answering from `answer`, handing each received prompt to `receive`. */
function mockModel(
  receive: (options: LanguageModelV4CallOptions) => void,
  answer: () => LanguageModelV4Content[] = () => [{ type: 'text', text: 'ok' }],
  inputTokens: (options: LanguageModelV4CallOptions) => number | undefined = () => undefined,
): MockLanguageModelV4 {
  const result = (content: LanguageModelV4Content[], options: LanguageModelV4CallOptions) =>
    ({
      content,
      finishReason: {
        unified: content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop',
        raw: undefined,
      },
      usage: usageOf(inputTokens(options)),
      warnings: [],
    }) satisfies LanguageModelV4GenerateResult;
  return new MockLanguageModelV4({
    modelId: 'fuzz-model',
    supportedUrls: { '*/*': [/.*/] },
    doGenerate: async (options) => {
      receive(options);
      return result(answer(), options);
    },
    doStream: async (options) => {
      receive(options);
      return {
        stream: simulateReadableStream<LanguageModelV4StreamPart>({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'ok' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: NO_USAGE },
          ],
        }),
      };
    },
  });
}

/** The wrapped model, with a middleware outside it that records what the caller's call turned into. */
function wrapped(options: arb.FuzzOptions, recorder: EventRecorder, mock: MockLanguageModelV4) {
  const callers: { prompt: LanguageModelV4Prompt; tools: LanguageModelV4CallOptions['tools'] }[] = [];
  const inner = withContextCompression(mock, libraryOptions(options, recorder));
  const recording: LanguageModelV4Middleware = {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      callers.push({ prompt: params.prompt, tools: params.tools });
      return params;
    },
  };
  return { callers, inner, recording };
}

/** Runs one AI SDK case and checks every prompt the model received. */
export async function runAiSdkCase(input: AiSdkCase): Promise<CaseReport> {
  const { conversation, mode } = input;
  // usage only in sequential multi-call cases: parallel calls would see the learned ratio at different times
  const options = { ...input.options, usageRatio: undefined };
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(AI_SDK, checkLimits(options), counterOf(options));
  const violations: Violation[] = [];
  let prompts = 0;
  const pending: Call<LanguageModelV4Prompt>[] = [];
  const mock = mockModel((received) => {
    const caller = callers.shift();
    const { events, errors } = recorder.take();
    pending.push({ caller: caller?.prompt ?? [], sent: received.prompt, tools: caller?.tools, events, errors });
  });
  const { callers, inner, recording } = wrapped(options, recorder, mock);
  const model = wrapLanguageModel({ model: inner, middleware: recording });
  const turns = conversationTurns(conversation, caseSizing(conversation, options), {
    pending: mode !== 'generateText',
  });
  const tools = input.tools ? FUNCTION_TOOLS : undefined;
  const providerOptions = input.force ? { [CALL_OPTIONS_KEY]: { force: true } } : undefined;
  const extra = { ...(tools ? { tools } : {}), ...(providerOptions ? { providerOptions } : {}) };
  const prompt = toV4Prompt(turns);
  const history = toModelMessages(turns);
  const before = snapshot(mode === 'generateText' ? history : prompt);
  const flush = () => {
    // parallel calls report in any order: each is checked against everything reported meanwhile
    const events = pending.flatMap((call) => call.events);
    const errors = pending.flatMap((call) => call.errors);
    for (const taken of pending.splice(0)) {
      const call = input.repeat === 'parallel' ? { ...taken, events, errors } : taken;
      prompts++;
      violations.push(...checker.check(call));
    }
  };
  const send = async () => {
    if (mode === 'doGenerate') await model.doGenerate({ prompt, ...extra });
    else if (mode === 'doStream') {
      const { stream } = await model.doStream({ prompt, ...extra });
      const reader = stream.getReader();
      while (!(await reader.read()).done);
    } else {
      const toolSet = tools ? generateTools(() => undefined) : undefined;
      await generateText({
        model,
        ...(history.instructions !== undefined ? { instructions: history.instructions } : {}),
        messages: history.messages,
        ...(toolSet ? { tools: toolSet } : {}),
        ...(providerOptions ? { providerOptions } : {}),
        maxRetries: 0,
        allowSystemInMessages: true,
      });
    }
  };
  const rounds = input.repeat === 'twice' ? 2 : 1;
  for (let attempt = 0; attempt < rounds; attempt++) {
    const thrown = await guarded(
      async () => {
        await (input.repeat === 'parallel' ? Promise.all([send(), send()]) : send());
      },
      (error) => checker.checkThrown(error, callers.shift()?.prompt ?? prompt, tools),
    );
    flush();
    violations.push(...thrown);
    violations.push(...checkUnmutated(before, mode === 'generateText' ? history : prompt));
    if (thrown.length > 0) break;
  }
  return { prompts, violations, coverage: checker.coverage };
}

/** The tools of a loop: each returns the output the plan made for its call. */
function generateTools(outputFor: (toolCallId: string) => Output | undefined): ToolSet {
  const tools: ToolSet = {};
  for (const name of [...TOOL_NAMES, 'redact_tool_results']) {
    tools[name] = tool({
      description: `The ${name} tool.`,
      inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
      execute: async (_input, { toolCallId }) => {
        const output = outputFor(toolCallId);
        if (!output) return 'done';
        if (output.type === 'error-text') throw new Error(output.value);
        if (output.type === 'json') return output.value ?? null;
        if (output.type === 'content') return output.text;
        if (output.type === 'execution-denied') return `denied: ${output.reason ?? ''}`;
        return output.value;
      },
    });
  }
  return tools;
}

/** Runs a multi-step tool loop from a generated history: 3 to 8 model calls, new user messages between rounds. */
export async function runAiSdkLoopCase(input: AiSdkLoopCase): Promise<CaseReport> {
  const { conversation, options } = input;
  const recorder = new EventRecorder();
  const checker = new ConversationChecker(AI_SDK, checkLimits(options), counterOf(options));
  const size = caseSizing(conversation, options);
  const builder = new TurnBuilder(conversation, size);
  const turns = conversationTurns(conversation, size, { pending: false }, builder);
  const { instructions, messages } = toModelMessages(turns);
  let history: ModelMessage[] = messages;
  const plans = input.replies.map((reply) => ({ reply, turns: builder.reply(reply) }));
  const outputs = new Map<string, Output>();
  for (const { turns: replyTurns } of plans)
    for (const turn of replyTurns)
      for (const part of turn.parts) if (part.kind === 'result') outputs.set(part.id, part.output);
  let next = 0;
  let served = 0;
  const violations: Violation[] = [];
  let prompts = 0;
  const mock = mockModel(
    (received) => {
      const caller = callers.shift();
      const { events, errors } = recorder.take();
      prompts++;
      violations.push(
        ...checker.check({ caller: caller?.prompt ?? [], sent: received.prompt, tools: caller?.tools, events, errors }),
      );
    },
    () => answerOf(plans[served++]?.turns[0]),
    (received) => {
      if (options.usageRatio === undefined) return undefined;
      checker.noteUsage();
      return Math.round(options.usageRatio * checker.promptTokens(received.prompt, received.tools));
    },
  );
  const { callers, inner, recording } = wrapped(options, recorder, mock);
  const model = wrapLanguageModel({ model: inner, middleware: recording });
  const tools = generateTools((id) => outputs.get(id));
  while (next < plans.length) {
    const start = next;
    let steps = 0;
    while (start + steps < plans.length && (plans[start + steps]?.reply.calls.length ?? 0) > 0) steps++;
    steps = Math.min(steps + 1, plans.length - start);
    const before = snapshot(history);
    let added: ModelMessage[] = [];
    const thrown = await guarded(
      async () => {
        const result = await generateText({
          model,
          ...(instructions !== undefined ? { instructions } : {}),
          messages: history,
          tools,
          stopWhen: isStepCount(steps),
          maxRetries: 0,
          allowSystemInMessages: true,
        });
        added = result.responseMessages;
      },
      (error) => checker.checkThrown(error, callers.shift()?.prompt ?? [], FUNCTION_TOOLS),
    );
    violations.push(...thrown, ...checkUnmutated(before, history));
    if (thrown.length > 0) break;
    next = Math.max(served, start + 1);
    const last = plans[next - 1];
    history = [...history, ...added];
    if (last && last.reply.calls.length === 0)
      history.push(...toModelMessages([builder.user(last.reply.nextUser)]).messages);
  }
  return { prompts, violations, coverage: checker.coverage };
}

/** The mock's answer for a planned assistant message: its text and tool calls. */
function answerOf(turn: Turn | undefined): LanguageModelV4Content[] {
  if (!turn) return [{ type: 'text', text: 'done' }];
  return turn.parts.flatMap((part): LanguageModelV4Content[] => {
    if (part.kind === 'text') return [{ type: 'text', text: part.text }];
    if (part.kind === 'call')
      return [{ type: 'tool-call', toolCallId: part.id, toolName: part.name, input: JSON.stringify(part.input ?? {}) }];
    return [];
  });
}
