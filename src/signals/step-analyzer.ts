/**
 * The step-by-step analysis behind `analyzeSteps`. What one step hands to the next (scripts written, the latest test
 * run) is an explicit, immutable value, so an analysis can stop before any step and resume there later with exactly
 * the result of analyzing the whole history at once.
 */
import type { Message, ToolCallPart, ToolResultPart } from '../transcript/transcript.js';
import { callFiles } from './call-files.js';
import { shellCommandsOf } from './command-texts.js';
import type { ScriptEffect, ScriptEffects } from './commands.js';
import { callVerbs, classifyIntent, isCompletionStatement } from './intent.js';
import { normalizePath, type PathContext } from './paths.js';
import { learnRepositoryRoot, type RepositoryRoot } from './repository-root.js';
import type { StepSignals, TestRun } from './step-signals.js';
import { detectTestRun, testOutcome } from './tests.js';

/** The state one step hands to the next. Never mutated, so keeping a reference is a snapshot. */
export interface StepCarry {
  /** Python scripts written so far, whose effects count when a later step runs them. */
  readonly scripts: ReadonlyMap<string, ScriptEffect>;
  /** The latest test run so far; a failing one makes a following reproduction run count as debugging. */
  readonly previousTest: TestRun | undefined;
  /** The repository root learned so far; absolute paths below it are named relative to it. */
  readonly root: RepositoryRoot | undefined;
  /** The file an ACI viewer has open (`open`, `create`), which `goto`, `scroll_down` and `edit` act on. */
  readonly openFile?: string;
}

/** Analyzes the steps of one history in order. */
export interface StepAnalyzer {
  /** The carried state before the next message to analyze. */
  readonly carry: StepCarry;
  /** Signals of the message at `messageIndex` if it starts a step; indexes must increase from one call to the next. */
  analyzeStep(messageIndex: number): StepSignals | undefined;
}

/** Options of `createStepAnalyzer`. */
export interface StepAnalyzerOptions {
  /**
   * Index of the first message to analyze; earlier messages are never read.
   * @default 0
   */
  from?: number;
  /**
   * The carried state at `from`, as `carry` reported it when an earlier analysis reached that index.
   * @default the state at the start of a history
   */
  carry?: StepCarry;
  /**
   * Steps analyzed before, by assistant message: a step read again with the same message, the same carried state and
   * the same result parts at the same places (the last step of a history, read on every call until its results are
   * all in) is taken from here instead of being analyzed again. Filled by the analyzer.
   */
  memo?: StepMemo;
}

/** A step as analyzed: what it read (carried state and results, by identity) and what it gave. */
interface AnalyzedStep {
  readonly messageIndex: number;
  /** The state carried to the message, before what the message itself shows. */
  readonly carry: StepCarry;
  readonly answers: readonly ToolResultPart[];
  readonly answerIndexes: readonly number[];
  readonly step: StepSignals;
  readonly after: StepCarry;
}

/** Steps analyzed before, by assistant message object (see `StepAnalyzerOptions.memo`). */
export type StepMemo = WeakMap<Message, AnalyzedStep>;

const SUBMIT_MARKER = /\becho\s+['"]?COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\b/;
const TEST_TOOL = /(?:^|_)tests?(?:$|_)/i;

/** An analyzer of `messages` from `from` on. */
export function createStepAnalyzer(
  messages: readonly Message[],
  { from = 0, carry = startingCarry(), memo }: StepAnalyzerOptions = {},
): StepAnalyzer {
  // a step's results always come after it, so results before `from` never answer a step analyzed here
  const results = new Map<string, { index: number; part: ToolResultPart }[]>();
  for (let index = from; index < messages.length; index++) {
    for (const part of (messages[index] as Message).parts) {
      if (part.type !== 'tool-result') continue;
      const list = results.get(part.callId) ?? [];
      list.push({ index, part });
      results.set(part.callId, list);
    }
  }
  let state = carry;
  let next = from;
  return {
    get carry() {
      return state;
    },
    analyzeStep(messageIndex) {
      if (messageIndex < next) throw new RangeError(`message ${messageIndex} comes before message ${next}`);
      // messages skipped over may still state the repository root
      for (; next < messageIndex; next++) state = learnFrom(state, messages[next]);
      next = messageIndex + 1;
      const message = messages[messageIndex];
      if (message?.role !== 'assistant' || message.synthetic) {
        state = learnFrom(state, message);
        return undefined;
      }
      const answersOf = (callId: string) => (results.get(callId) ?? []).filter((r) => r.index > messageIndex);
      const answers: { index: number; part: ToolResultPart }[] = [];
      for (const part of message.parts) if (part.type === 'tool-call') answers.push(...answersOf(part.id));
      const known = memo?.get(message);
      if (known && readsTheSame(known, messageIndex, state, answers)) {
        state = known.after;
        return known.step;
      }
      const carried = state;
      const { step, carry: after } = analyzeStep(message, messageIndex, answersOf, learnFrom(state, message));
      memo?.set(message, {
        messageIndex,
        carry: carried,
        answers: answers.map((answer) => answer.part),
        answerIndexes: answers.map((answer) => answer.index),
        step,
        after,
      });
      state = after;
      return step;
    },
  };
}

/** Whether a step analyzed before read exactly what the step at `messageIndex` reads now. */
function readsTheSame(
  known: AnalyzedStep,
  messageIndex: number,
  carry: StepCarry,
  answers: readonly { index: number; part: ToolResultPart }[],
): boolean {
  if (known.messageIndex !== messageIndex || known.carry !== carry || known.answers.length !== answers.length)
    return false;
  return answers.every(
    (answer, index) => answer.part === known.answers[index] && answer.index === known.answerIndexes[index],
  );
}

/** The state at the start of a history whose system prompt is `system`: the repository root it states, if any. */
export function startingCarry(system: readonly Message[] = []): StepCarry {
  return system.reduce<StepCarry>(learnFrom, { scripts: new Map(), previousTest: undefined, root: undefined });
}

/** The carried state after a message that may state or show the repository root. */
function learnFrom(carry: StepCarry, message: Message | undefined): StepCarry {
  if (!message || message.synthetic) return carry;
  const root = learnRepositoryRoot(carry.root, message);
  return root === carry.root ? carry : { ...carry, root };
}

/** Signals of one assistant message and the state it hands on; `carry` already holds what the message shows. */
function analyzeStep(
  message: Message,
  messageIndex: number,
  answersOf: (callId: string) => { index: number; part: ToolResultPart }[],
  carry: StepCarry,
): { step: StepSignals; carry: StepCarry } {
  const scripts: ScriptEffects = new Map(carry.scripts);
  const context: PathContext = { repository: carry.root?.path };
  const calls = message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
  const reads: string[] = [];
  const edits: string[] = [];
  const files: string[] = [];
  const resultIndexes: number[] = [];
  const tests: TestRun[] = [];
  let submitted = false;
  let openFile = carry.openFile;
  for (const call of calls) {
    const answers = answersOf(call.id);
    const found = callFiles(call, scripts, context, { openFile, output: answers[0]?.part.output });
    openFile = found.openFile;
    for (const [list, add] of [
      [reads, found.reads],
      [edits, found.edits],
      [files, found.files],
    ] as const)
      for (const path of add) if (!list.includes(path)) list.push(path);
    for (const answer of answers) if (!resultIndexes.includes(answer.index)) resultIndexes.push(answer.index);
    const run = callTest(call, answers[0]?.part, context);
    if (run) tests.push(run);
    if (callVerbs(call).includes('finish') || shellCommandsOf(call.args).some((c) => SUBMIT_MARKER.test(c)))
      submitted = true;
  }
  resultIndexes.sort((a, b) => a - b);
  const test = tests.find((t) => t.outcome === 'fail' || t.outcome === 'error') ?? tests[0];
  const text = stepText(message);
  const step: StepSignals = {
    messageIndex,
    resultIndexes,
    callIds: calls.map((call) => call.id),
    reads,
    edits,
    files,
    test,
    intent: classifyIntent(text, calls, reads, edits, test, carry.previousTest),
    completion: submitted || isCompletionStatement(text),
  };
  return { step, carry: { ...carry, scripts, previousTest: test ?? carry.previousTest, openFile } };
}

/** Test run of one call: a test command in its shell arguments, or a test tool (`run_tests`) by name. */
function callTest(call: ToolCallPart, result: ToolResultPart | undefined, context: PathContext): TestRun | undefined {
  for (const command of shellCommandsOf(call.args)) {
    const run = detectTestRun(command, result?.output, result?.isError, context);
    if (run) return run;
  }
  if (!TEST_TOOL.test(call.name)) return undefined;
  const args = (call.args && typeof call.args === 'object' ? call.args : {}) as Record<string, unknown>;
  const target = [args.path, args.target, args.file, args.pattern].find((v) => typeof v === 'string') as
    | string
    | undefined;
  return {
    command: call.name,
    target: target ? normalizePath(target, context) : '*',
    outcome: testOutcome('tool', result?.output, result?.isError),
  };
}

/** Text of an assistant message that carries its intent: text and reasoning parts, and `thought` arguments. */
function stepText(message: Message): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
    if (part.type === 'tool-call' && part.args && typeof part.args === 'object') {
      for (const key of ['thought', 'reasoning', 'plan', 'explanation']) {
        const value = (part.args as Record<string, unknown>)[key];
        if (typeof value === 'string') texts.push(value);
      }
    }
  }
  return texts.join('\n');
}
