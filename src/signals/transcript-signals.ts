/**
 * Transcript signals: per agent step, the files it read and changed, the tests it ran and how they ended,
 * what it was doing (intent), and whether it said a task is done. Pure, deterministic and offline; these are the
 * raw inputs for semantic compression triggers (intent shifts, file/module boundaries, subtask completion).
 * Only tool-call arguments and shell commands name a step's paths; tool outputs only decide test outcomes.
 */

import type { Message, ToolCallPart, ToolResultPart } from '../transcript/transcript.js';
import { type CommandFiles, commandFiles, type ScriptEffects } from './commands.js';
import { classifyIntent, isCompletionStatement, shellCommandsOf } from './intent.js';
import { fileOperand, hasFileName, looksLikePath, moduleOf, normalizePath } from './paths.js';
import { patchPaths } from './shell.js';
import type { Intent, StepSignals, TestRun } from './step-signals.js';
import { detectTestRun, testOutcome } from './tests.js';

export type { Intent, StepSignals, TestRun };
export { classifyIntent, detectTestRun, isCompletionStatement, moduleOf };

/** Intent shifts that mark a natural point to compress the finished phase. */
export const DEFAULT_INTENT_TRANSITIONS: ReadonlyArray<readonly [Intent, Intent]> = [
  ['EXPLORE', 'IMPLEMENT'],
  ['DEBUG', 'VERIFY'],
  ['IMPLEMENT', 'DOCUMENT'],
  ['IMPLEMENT', 'VERIFY'],
];

/** File paths in a command or argument string, normalized and deduplicated in order of appearance. */
export function extractPaths(text: string): string[] {
  return commandFiles(text).files;
}

const PATH_KEYS =
  /^(?:path|paths|file|files|filename|filenames|file_?path|filepath|target|target_file|source|dest|destination|notebook_path|dir|directory|old_path|new_path)$/i;
const PATCH_KEYS = /^(?:patch|diff|input)$/i;
const EDIT_TOOL = /(?:write|edit|create|replace|patch|insert|update|modify|save|append|delete|remove|rename|move|mv)/i;
const EDIT_KEYS =
  /^(?:content|contents|new|old|new_str|old_str|new_string|old_string|new_text|old_text|text|edits|diff|patch|insert_line|file_text)$/i;
const READ_TOOL = /(?:read|view|open|cat|show|get_file|get_content|fetch_file)/i;
const EDITOR_VERB: Record<string, 'read' | 'edit'> = {
  view: 'read',
  read: 'read',
  open: 'read',
  create: 'edit',
  str_replace: 'edit',
  insert: 'edit',
  undo_edit: 'edit',
  edit: 'edit',
  write: 'edit',
};

/** Files of one tool call: shell commands are parsed; JSON path keys and path-like values are classified. */
export function callFiles(call: { name: string; args: unknown }, scripts?: ScriptEffects): CommandFiles {
  const reads: string[] = [];
  const edits: string[] = [];
  const files: string[] = [];
  const push = (list: string[], path: string) => {
    if (path !== '' && !list.includes(path)) list.push(path);
    if (path !== '' && !files.includes(path)) files.push(path);
  };
  for (const command of shellCommandsOf(call.args)) {
    const found = commandFiles(command, scripts);
    for (const path of found.reads) push(reads, path);
    for (const path of found.edits) push(edits, path);
    for (const path of found.files) push(files, path);
  }
  if (!call.args || typeof call.args !== 'object' || Array.isArray(call.args)) return { reads, edits, files };
  const record = call.args as Record<string, unknown>;
  const verb = typeof record.command === 'string' ? EDITOR_VERB[record.command] : undefined;
  const edits_ =
    verb === 'edit' ||
    (verb === undefined && (EDIT_TOOL.test(call.name) || Object.keys(record).some((k) => EDIT_KEYS.test(k))));
  const reads_ = verb === 'read' || (verb === undefined && !edits_ && READ_TOOL.test(call.name));
  const visit = (value: unknown, key: string, depth: number) => {
    if (depth > 4) return;
    if (typeof value === 'string') {
      if (PATCH_KEYS.test(key) && /^(?:\*\*\* |diff --git |--- )/m.test(value)) {
        for (const path of patchPaths(value)) push(edits, normalizePath(path));
        return;
      }
      if (/^(?:command|cmd|script|shell|commandLine|command_line)$/.test(key)) return;
      const operand = PATH_KEYS.test(key) ? fileOperand(value) : undefined;
      const found =
        operand && (/[./]/.test(operand) || hasFileName(operand))
          ? operand
          : /\s/.test(value.trim())
            ? undefined
            : looksLikePath(value);
      if (!found) return;
      const path = normalizePath(found);
      if (PATH_KEYS.test(key) && edits_) push(edits, path);
      else if (PATH_KEYS.test(key) && reads_) push(reads, path);
      else push(files, path);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key, depth + 1);
    } else if (value && typeof value === 'object') {
      for (const [inner, item] of Object.entries(value as Record<string, unknown>)) visit(item, inner, depth + 1);
    }
  };
  for (const [key, value] of Object.entries(record)) visit(value, key, 0);
  return { reads, edits, files };
}

/** Name of a tool that submits or finishes the whole task. */
const SUBMIT_TOOL = /^(?:submit|finish|attempt_completion|complete_task|task_complete|mark_complete|final_answer)$/i;
const SUBMIT_MARKER = /\becho\s+['"]?COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\b/;
const TEST_TOOL = /(?:^|_)tests?(?:$|_)/i;

/** Test run of one call: a test command in its shell arguments, or a test tool (`run_tests`) by name. */
function callTest(call: ToolCallPart, result: ToolResultPart | undefined): TestRun | undefined {
  for (const command of shellCommandsOf(call.args)) {
    const run = detectTestRun(command, result?.output, result?.isError);
    if (run) return run;
  }
  if (!TEST_TOOL.test(call.name)) return undefined;
  const args = (call.args && typeof call.args === 'object' ? call.args : {}) as Record<string, unknown>;
  const target = [args.path, args.target, args.file, args.pattern].find((v) => typeof v === 'string') as
    | string
    | undefined;
  return {
    command: call.name,
    target: target ? normalizePath(target) : '*',
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

/** Signals of every assistant step of a transcript, in order (engine-made synthetic messages are skipped). */
export function analyzeSteps(messages: readonly Message[]): StepSignals[] {
  const results = new Map<string, { index: number; part: ToolResultPart }[]>();
  messages.forEach((message, index) => {
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      const list = results.get(part.callId) ?? [];
      list.push({ index, part });
      results.set(part.callId, list);
    }
  });
  const scripts: ScriptEffects = new Map();
  const steps: StepSignals[] = [];
  let previousTest: TestRun | undefined;
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'assistant' || message.synthetic) return;
    const calls = message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
    const reads: string[] = [];
    const edits: string[] = [];
    const files: string[] = [];
    const resultIndexes: number[] = [];
    const tests: TestRun[] = [];
    let submitted = false;
    for (const call of calls) {
      const found = callFiles(call, scripts);
      for (const [list, add] of [
        [reads, found.reads],
        [edits, found.edits],
        [files, found.files],
      ] as const)
        for (const path of add) if (!list.includes(path)) list.push(path);
      const answers = (results.get(call.id) ?? []).filter((r) => r.index > messageIndex);
      for (const answer of answers) if (!resultIndexes.includes(answer.index)) resultIndexes.push(answer.index);
      const run = callTest(call, answers[0]?.part);
      if (run) tests.push(run);
      if (SUBMIT_TOOL.test(call.name) || shellCommandsOf(call.args).some((c) => SUBMIT_MARKER.test(c)))
        submitted = true;
    }
    resultIndexes.sort((a, b) => a - b);
    const test = tests.find((t) => t.outcome === 'fail' || t.outcome === 'error') ?? tests[0];
    const text = stepText(message);
    const intent = classifyIntent(text, calls, reads, edits, test, previousTest);
    if (test) previousTest = test;
    steps.push({
      messageIndex,
      resultIndexes,
      callIds: calls.map((call) => call.id),
      reads,
      edits,
      files,
      test,
      intent,
      completion: submitted || isCompletionStatement(text),
    });
  });
  return steps;
}
