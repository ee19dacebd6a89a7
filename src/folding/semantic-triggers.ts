import {
  type SemanticTriggerOptions,
  SemanticTriggerOptionsSchema,
  type SemanticTriggerSettings,
} from '../options/compression-options.js';
import { parseOptions } from '../options/option-issue-error.js';
import type { TriggerName } from '../reports/decisions.js';
import { moduleOf, type StepSignals } from '../signals/transcript-signals.js';
import type { Message } from '../transcript/transcript.js';

export {
  DEFAULT_SEMANTIC_TRIGGER_OPTIONS,
  type SemanticTriggerOptions,
  type SemanticTriggerSettings,
} from '../options/compression-options.js';

/** The end of a finished segment: everything before `messageIndex` may be folded. */
export interface Boundary {
  readonly trigger: TriggerName;
  /** The step that starts after the boundary. */
  readonly stepIndex: number;
  /** Index of that step's assistant message: the fold point. */
  readonly messageIndex: number;
  readonly confidence: number;
  readonly details: string;
}

/** A module or test target as a reader would name it. */
const named = (name: string) => (name === '.' ? 'the repository root' : name === '*' ? 'the test suite' : name);

const MUTATING_API =
  /^(?:update|book|cancel|create|send|delete|modify|transfer|add|remove|submit|set|exchange|return)_/i;

/** A boundary found while scanning, before the step it names is known to exist and to be finished. */
interface Candidate {
  readonly trigger: TriggerName;
  readonly stepIndex: number;
  readonly confidence: number;
  readonly details: string;
}

/** What a scan carries from step to step, and the candidates it found so far. */
export interface BoundaryScan {
  /** Steps scanned. */
  readonly count: number;
  readonly editedSinceBoundary: readonly string[];
  readonly failedTargets: ReadonlySet<string>;
  readonly candidates: readonly Candidate[];
}

/** The scan of no step. */
export const EMPTY_BOUNDARY_SCAN: BoundaryScan = {
  count: 0,
  editedSinceBoundary: [],
  failedTargets: new Set(),
  candidates: [],
};

/**
 * Scans `steps` from `scan.count` up to `until`, returning the scan there; `scan` is not changed, so a stored scan
 * can be continued by several calls.
 */
export function scanBoundaries(
  messages: readonly Message[],
  steps: readonly StepSignals[],
  scan: BoundaryScan,
  until: number,
  settings: SemanticTriggerSettings,
): BoundaryScan {
  const candidates = [...scan.candidates];
  const at = (stepIndex: number, trigger: TriggerName, confidence: number, details: string) =>
    candidates.push({ trigger, stepIndex, confidence, details });
  let editedSinceBoundary = [...scan.editedSinceBoundary];
  const failedTargets = new Set(scan.failedTargets);
  for (let index = scan.count; index < until; index++) {
    const step = steps[index] as StepSignals;
    const previous = steps[index - 1];
    // intent and completion are read from the assistant's words; they mark agent work only in a turn that acts with
    // tools. In a chat (people talking, no tool in the turn) a change of topic is not a finished subtask.
    const acting = step.callIds.length > 0 || (previous !== undefined && sameTurnTools(messages, previous, step));
    if (previous && settings.intent && acting && previous.callIds.length > 0) {
      const transition = settings.transitions.find(([from, to]) => previous.intent === from && step.intent === to);
      if (transition)
        at(index, 'intent', 0.6, `intent changed from ${transition[0]} to ${transition[1]} at step ${index + 1}`);
    }
    const working = [...step.edits, ...step.reads];
    if (
      previous &&
      editedSinceBoundary.length > 0 &&
      working.length > 0 &&
      working.every((file) => !editedSinceBoundary.includes(file))
    ) {
      const before = new Set(editedSinceBoundary.map((file) => moduleOf(file)));
      if (settings.module && working.every((file) => !before.has(moduleOf(file)))) {
        at(
          index,
          'boundary:module',
          0.7,
          `work moved from ${[...before].map(named).join(', ')} to ${named(moduleOf(working[0] as string))} at step ${index + 1}`,
        );
      } else if (settings.file) {
        at(
          index,
          'boundary:file',
          0.5,
          `work moved from ${editedSinceBoundary.join(', ')} to ${working[0]} at step ${index + 1}`,
        );
      }
    }
    editedSinceBoundary.push(...step.edits.filter((file) => !editedSinceBoundary.includes(file)));
    if (step.test?.outcome === 'pass') {
      if (settings.subtask && editedSinceBoundary.length > 0) {
        at(
          index + 1,
          'subtask',
          0.9,
          `edit -> test -> pass: ${named(step.test.target)} passed at step ${index + 1} after edits of ${editedSinceBoundary.join(', ')}`,
        );
        editedSinceBoundary = [];
      }
      if (settings.test && failedTargets.has(step.test.target)) {
        at(index + 1, 'boundary:test', 0.85, `${named(step.test.target)} passed at step ${index + 1} after failing`);
        failedTargets.delete(step.test.target);
      }
    } else if (step.test && step.test.outcome !== 'unknown') failedTargets.add(step.test.target);
    if (settings.subtask && step.completion && acting)
      at(index + 1, 'subtask', 0.8, `the assistant declared a task done at step ${index + 1}`);
    if (settings.api) {
      const message = messages[step.messageIndex];
      const mutating = message?.parts.find((part) => part.type === 'tool-call' && MUTATING_API.test(part.name));
      const failed = step.resultIndexes.some((resultIndex) =>
        messages[resultIndex]?.parts.some(
          (part) => part.type === 'tool-result' && (part.isError || /^error\b/i.test(part.output)),
        ),
      );
      if (mutating?.type === 'tool-call' && !failed)
        at(index + 1, 'boundary:api', 0.6, `${mutating.name} succeeded at step ${index + 1}`);
    }
  }
  return { count: Math.max(scan.count, until), editedSinceBoundary, failedTargets, candidates };
}

/** Whether `previous` called tools and no user message came between it and `step` (one turn of agent work). */
function sameTurnTools(messages: readonly Message[], previous: StepSignals, step: StepSignals): boolean {
  if (previous.callIds.length === 0) return false;
  for (let index = previous.messageIndex + 1; index < step.messageIndex; index++) {
    if (messages[index]?.role === 'user') return false;
  }
  return true;
}

/**
 * The boundaries of a finished scan: only those before the current (last) step, so a fold never touches the step the
 * model is working on; one per step, the most confident; in step order.
 */
export function boundariesOf(scan: BoundaryScan, steps: readonly StepSignals[]): Boundary[] {
  const best = new Map<number, Boundary>();
  for (const candidate of scan.candidates) {
    const step = steps[candidate.stepIndex];
    if (!step || candidate.stepIndex >= steps.length - 1) continue;
    const current = best.get(candidate.stepIndex);
    if (!current || candidate.confidence > current.confidence) {
      best.set(candidate.stepIndex, { ...candidate, messageIndex: step.messageIndex });
    }
  }
  return [...best.values()].sort((a, b) => a.stepIndex - b.stepIndex);
}

/**
 * Finds the segment boundaries of an agent transcript from its step signals, in step order. Only boundaries before
 * the current (last) step are returned, so a fold never touches the step the model is working on.
 */
export function findBoundaries(
  messages: readonly Message[],
  steps: readonly StepSignals[],
  options: SemanticTriggerOptions = {},
): Boundary[] {
  const settings = parseOptions(SemanticTriggerOptionsSchema, options, '');
  return boundariesOf(scanBoundaries(messages, steps, EMPTY_BOUNDARY_SCAN, steps.length, settings), steps);
}
