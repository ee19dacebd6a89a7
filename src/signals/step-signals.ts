/** The signals of one agent step, as `analyzeSteps` reports them. */

/** What an agent step is doing. */
export type Intent = 'EXPLORE' | 'DEBUG' | 'IMPLEMENT' | 'VERIFY' | 'DOCUMENT' | 'REFACTOR';

/** A test (or reproduction script) run: the runner invocation, its target ('*' for the whole suite), its outcome. */
export interface TestRun {
  command: string;
  target: string;
  outcome: 'pass' | 'fail' | 'error' | 'unknown';
}

/** Signals of one step: an assistant message and the tool results that answer its calls. */
export interface StepSignals {
  /** Index of the assistant message that starts the step. */
  readonly messageIndex: number;
  /** Indexes of the messages holding this step's tool results. */
  readonly resultIndexes: readonly number[];
  readonly callIds: readonly string[];
  /** File paths read or viewed. */
  readonly reads: readonly string[];
  /** File paths modified. */
  readonly edits: readonly string[];
  /** Every path named by the step's arguments and commands, normalized and deduplicated. */
  readonly files: readonly string[];
  /** The step's test run with its outcome (the first failing one when several ran). */
  readonly test: TestRun | undefined;
  readonly intent: Intent;
  /** The assistant text states that a task or subtask is done, or a call submits the task or hands it to a person. */
  readonly completion: boolean;
}
