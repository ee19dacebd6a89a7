/**
 * Transcript signals: per agent step, the files it read and changed, the tests it ran and how they ended,
 * what it was doing (intent), and whether it said a task is done. Pure, deterministic and offline; these are the
 * raw inputs for semantic compression triggers (intent shifts, file/module boundaries, subtask completion).
 * Only tool-call arguments and shell commands name a step's paths; tool outputs only decide test outcomes and whether
 * an editor's view showed a directory or a file.
 */

import type { Message } from '../transcript/transcript.js';
import { callFiles } from './call-files.js';
import { commandFiles } from './commands.js';
import { classifyIntent, isCompletionStatement } from './intent.js';
import { moduleOf } from './paths.js';
import { createStepAnalyzer, type StepCarry } from './step-analyzer.js';
import type { Intent, StepSignals, TestRun } from './step-signals.js';
import { detectTestRun } from './tests.js';

export type { Intent, StepCarry, StepSignals, TestRun };
export { callFiles, classifyIntent, createStepAnalyzer, detectTestRun, isCompletionStatement, moduleOf };

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

/** Signals of every assistant step of a transcript, in order (engine-made synthetic messages are skipped). */
export function analyzeSteps(messages: readonly Message[]): StepSignals[] {
  const analyzer = createStepAnalyzer(messages);
  const steps: StepSignals[] = [];
  for (let index = 0; index < messages.length; index++) {
    const step = analyzer.analyzeStep(index);
    if (step) steps.push(step);
  }
  return steps;
}
