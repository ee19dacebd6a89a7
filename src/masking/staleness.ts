import {
  type StalenessOptions,
  StalenessOptionsSchema,
  type StalenessSettings,
} from '../options/compression-options.js';
import { parseOptions } from '../options/option-issue-error.js';
import { findQuotes, type Quotes } from '../signals/results-in-use.js';
import type { StepSignals } from '../signals/transcript-signals.js';
import { type Message, messageText, stableStringify } from '../transcript/transcript.js';
import type { ResultSite } from './observation-masking.js';

export {
  DEFAULT_STALENESS_OPTIONS,
  type StalenessOptions,
  type StalenessSettings,
} from '../options/compression-options.js';

/** An observation judged stale, with why. */
export interface StaleObservation {
  readonly key: string;
  readonly score: number;
  readonly superseded: boolean;
  readonly reason: string;
}

const WORD = /[A-Za-z_][A-Za-z0-9_]{2,}/g;

/** Term counts by text, kept by the engine across calls. */
export interface TermMemo {
  get(text: string): Map<string, number> | undefined;
  set(text: string, counts: Map<string, number>): unknown;
}

/** Term counts of a text (its first 20,000 characters), memoized per text when a memo is given. */
function terms(text: string, memo: TermMemo | undefined): Map<string, number> {
  const cached = memo?.get(text);
  if (cached) return cached;
  const counts = new Map<string, number>();
  for (const match of text.slice(0, 20_000).matchAll(WORD)) {
    const term = match[0].toLowerCase();
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  memo?.set(text, counts);
  return counts;
}

/** Lexical relevance: cosine of TF-IDF vectors, the document frequencies taken from the given corpus. */
export function tfidfCosine(
  a: Map<string, number>,
  b: Map<string, number>,
  documentFrequency: Map<string, number>,
  documents: number,
): number {
  const weight = (term: string, count: number) =>
    count * Math.log(1 + documents / (1 + (documentFrequency.get(term) ?? 0)));
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (const [term, count] of a) {
    const wa = weight(term, count);
    normA += wa * wa;
    const other = b.get(term);
    if (other !== undefined) dot += wa * weight(term, other);
  }
  for (const [term, count] of b) normB += weight(term, count) ** 2;
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/** What a step says and does, as text: its assistant message and call arguments. */
function stepText(messages: readonly Message[], step: StepSignals): string {
  const message = messages[step.messageIndex];
  return message ? messageText(message) : '';
}

/** Where each tool result's step is, and which results may be stale at all (not the current step, not folded). */
function candidatesOf(steps: readonly StepSignals[], sites: readonly ResultSite[], from: number) {
  const stepOfResult = new Map<number, number>();
  steps.forEach((step, index) => {
    for (const resultIndex of step.resultIndexes) stepOfResult.set(resultIndex, index);
  });
  const current = steps.length - 1;
  const candidates = sites.filter(
    (site) => site.messageIndex >= from && (stepOfResult.get(site.messageIndex) ?? current) < current,
  );
  return { stepOfResult, current, candidates };
}

/**
 * Tool results superseded by a later step: a read of a file that a later step edited, or a test log followed by a
 * later run of the same test (or of the whole suite). Cheap (indexed by file and test target): run on every call.
 */
export function findSupersededObservations({
  steps,
  sites,
  from,
}: {
  steps: readonly StepSignals[];
  sites: readonly ResultSite[];
  from: number;
}): StaleObservation[] {
  const { stepOfResult, candidates } = candidatesOf(steps, sites, from);
  const lastEdit = new Map<string, number>();
  const lastRun = new Map<string, number>();
  steps.forEach((step, index) => {
    for (const file of step.edits) lastEdit.set(file, index);
    if (step.test) lastRun.set(step.test.target, index);
  });
  const stale: StaleObservation[] = [];
  for (const site of candidates) {
    const stepIndex = stepOfResult.get(site.messageIndex) as number;
    const reason = supersededBy(steps, stepIndex, lastEdit, lastRun);
    if (reason) stale.push({ key: site.key, score: 1, superseded: true, reason });
  }
  return stale;
}

/**
 * Tool results whose staleness score reaches the threshold: 0.3 x age + 0.4 x (1 - recent references) + 0.3 x
 * (1 - relevance to the recent steps), with the configured weights. A recent step refers to a result when it names a
 * file of the result's call or quotes a value of its output (a term specific to it, in its text or in any argument of
 * any tool), so results of tools that name no file (lookups, queries, HTTP calls) count their uses too. More costly
 * (a TF-IDF cosine per result): the engine runs it only when a masking step happens anyway.
 */
export function findStaleObservations({
  options = {},
  ...input
}: StalenessInput & { options?: StalenessOptions }): StaleObservation[] {
  return scoreStaleObservations({ ...input, settings: parseOptions(StalenessOptionsSchema, options, '') });
}

/** What the staleness score reads: the history, its step signals and tool results, from the first message in view. */
interface StalenessInput {
  messages: readonly Message[];
  steps: readonly StepSignals[];
  sites: readonly ResultSite[];
  from: number;
  /** Term counts of earlier calls (the engine keeps one). */
  termMemo?: TermMemo;
  /**
   * The results from `from` on that the given assistant messages quote (see `findQuotes`); the engine passes its
   * incremental scan. @default findQuotes over `messages`
   */
  quotes?: (readers: readonly number[]) => Quotes;
}

/** `findStaleObservations` with settings the engine resolved once, so a masking step does not check them again. */
export function scoreStaleObservations({
  messages,
  steps,
  sites,
  from,
  termMemo,
  quotes = (readers) => findQuotes({ messages, system: [], sites, from, readers }),
  settings,
}: StalenessInput & { settings: StalenessSettings }): StaleObservation[] {
  const weights = settings.weights;
  const { stepOfResult, current, candidates } = candidatesOf(steps, sites, from);
  const recent = steps.slice(Math.max(0, steps.length - settings.window));
  const recentTexts = recent.map((step) => stepText(messages, step));
  const quoted = candidates.length > 0 ? quotes(recent.map((step) => step.messageIndex)) : new Map();
  const context = recentTexts.join('\n');
  const contextTerms = terms(context, termMemo);
  const observationTerms = new Map(candidates.map((site) => [site.key, terms(resultOutput(messages, site), termMemo)]));
  const documentFrequency = new Map<string, number>();
  for (const vector of [...observationTerms.values(), contextTerms]) {
    for (const term of vector.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const superseded = new Set(findSupersededObservations({ steps, sites, from }).map((observation) => observation.key));
  const stale: StaleObservation[] = [];
  for (const site of candidates) {
    if (superseded.has(site.key)) continue;
    const stepIndex = stepOfResult.get(site.messageIndex) as number;
    const step = steps[stepIndex] as StepSignals;
    const age = Math.min(1, (current - stepIndex) / settings.maxAge);
    // a later step refers to the observation when it names one of its files or quotes a value of its output
    const quoting = quoted.get(site.key);
    const references = recent.filter(
      (later, index) =>
        steps.length - recent.length + index > stepIndex &&
        (quoting?.includes(later.messageIndex) ||
          step.files.some((file) => later.files.includes(file) || (recentTexts[index] ?? '').includes(file))),
    ).length;
    const relevance = settings.relevance
      ? settings.relevance(resultOutput(messages, site), context)
      : tfidfCosine(
          observationTerms.get(site.key) ?? new Map(),
          contextTerms,
          documentFrequency,
          candidates.length + 1,
        );
    const score =
      weights.age * age +
      weights.references * (1 - Math.min(1, references / settings.maxReferences)) +
      weights.relevance * (1 - Math.max(0, Math.min(1, relevance)));
    if (score >= settings.threshold) {
      stale.push({
        key: site.key,
        score,
        superseded: false,
        reason: `stale (score ${score.toFixed(2)}): ${current - stepIndex} steps old, ${references} references in the last ${settings.window} steps, relevance ${relevance.toFixed(2)}`,
      });
    }
  }
  return stale;
}

/** Why a step's observation is superseded by a later step, or undefined. */
function supersededBy(
  steps: readonly StepSignals[],
  stepIndex: number,
  lastEdit: ReadonlyMap<string, number>,
  lastRun: ReadonlyMap<string, number>,
): string | undefined {
  const step = steps[stepIndex] as StepSignals;
  if (step.reads.length > 0 && step.edits.length === 0) {
    for (const file of step.reads) {
      const edited = lastEdit.get(file);
      if (edited !== undefined && edited > stepIndex) return `superseded by the edit of ${file} at step ${edited + 1}`;
    }
  }
  if (step.test) {
    const same = lastRun.get(step.test.target);
    const suite = lastRun.get('*');
    const later = Math.max(
      same !== undefined && same > stepIndex ? same : -1,
      suite !== undefined && suite > stepIndex ? suite : -1,
    );
    if (later > stepIndex) {
      const target = later === same && step.test.target !== '*' ? step.test.target : 'the test suite';
      return `superseded by a later run of ${target} at step ${later + 1}`;
    }
  }
  return undefined;
}

function resultOutput(messages: readonly Message[], site: ResultSite): string {
  const message = messages[site.messageIndex];
  if (!message) return '';
  for (const part of message.parts) if (part.type === 'tool-result' && part.callId === site.callId) return part.output;
  return stableStringify(message.parts);
}
