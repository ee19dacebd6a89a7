/** One system over one session: every call measured, and evidence retention at question time for conversations. */
import { CACHE_READ_PRICE, CACHE_WRITE_PRICE, OUTPUT_PRICE } from '../../examples/lib/replay.js';
import { messageText, type Transcript } from '../../src/transcript/transcript.js';
import { askedAt, QUESTION, type Replay } from './data.js';
import { commonPrefixTokens, evidenceUnits, invalidReasons, measure, retained, sumTokens } from './metrics.js';
import type { Setup, System } from './types.js';

const CHANGED = 'system prompt changed';
const systemText = (transcript: Transcript) => transcript.system.map(messageText).join('\n\n');

/** The figures of one system on one session. */
export interface SessionFigures {
  calls: number;
  inputTokens: number;
  cachedTokens: number;
  cost: number;
  peakTokens: number;
  callsOverWindow: number;
  invalidPrompts: number;
  invalidReasons: Record<string, number>;
  summarizerCalls: number;
  /**
   * What the summarizing LLM's calls of the replay cost, in input-token units: their requests (o200k) at 1x, as
   * separate requests share no cached prefix, and their answers at `OUTPUT_PRICE`.
   */
  summarizerCost: number;
  overheadMs: number[];
  /** Prompt tokens of every call, in order. */
  tokensPerCall: number[];
  /**
   * Conversations: of the questions with evidence (adversarial ones left out), each asked as the last user message of
   * its own call on the state after the replay, how many found all their evidence in the prompt; per category too.
   */
  evidence: { retained: number; total: number; byCategory: Record<string, [number, number]> } | undefined;
  /** Summarizer calls made by the question calls (a system that compacts when a question arrives). */
  questionSummarizerCalls: number;
}

/** Replays a session through a system; throws when the system cannot be driven on it. */
export async function replaySystem(
  system: System,
  replay: Replay,
  setup: Setup,
  onCall: () => void,
): Promise<SessionFigures> {
  const figures: SessionFigures = {
    calls: 0,
    inputTokens: 0,
    cachedTokens: 0,
    cost: 0,
    peakTokens: 0,
    callsOverWindow: 0,
    invalidPrompts: 0,
    invalidReasons: {},
    summarizerCalls: 0,
    summarizerCost: 0,
    overheadMs: [],
    tokensPerCall: [],
    evidence: undefined,
    questionSummarizerCalls: 0,
  };
  const run = system.create(setup);
  let previousSystem: string | undefined;
  let previous: ReturnType<typeof measure> = [];
  for (const history of replay.calls) {
    const started = performance.now();
    const transcript = await run.call(history);
    figures.overheadMs.push(performance.now() - started);
    const measures = measure(transcript);
    const tokens = sumTokens(measures);
    const cached = commonPrefixTokens(previous, measures);
    previous = measures;
    figures.calls++;
    figures.inputTokens += tokens;
    figures.cachedTokens += cached;
    figures.cost += cached * CACHE_READ_PRICE + (tokens - cached) * CACHE_WRITE_PRICE;
    figures.peakTokens = Math.max(figures.peakTokens, tokens);
    figures.tokensPerCall.push(tokens);
    if (tokens > setup.contextWindow) figures.callsOverWindow++;
    // the system text may grow at its end (an addition after the caller's system prompt keeps its bytes and the
    // cached prefix up to them: this package's awareness block from its first change) but never change otherwise
    const current = systemText(transcript);
    const expected = previousSystem === undefined || current.startsWith(previousSystem) ? current : previousSystem;
    previousSystem = current;
    const reasons = invalidReasons(transcript, expected);
    const lost = history.instructions && !systemText(transcript).startsWith(history.instructions);
    if (lost && !reasons.includes(CHANGED)) reasons.push(CHANGED);
    if (reasons.length) figures.invalidPrompts++;
    for (const reason of reasons) figures.invalidReasons[reason] = (figures.invalidReasons[reason] ?? 0) + 1;
    onCall();
  }
  figures.summarizerCalls = setup.summarizerCalls.count;
  figures.summarizerCost = setup.summarizerCalls.inputTokens + setup.summarizerCalls.outputTokens * OUTPUT_PRICE;
  if (replay.questionTime) {
    const questions = (replay.session.qa ?? []).filter(
      (qa) => qa.category !== 'adversarial' && qa.evidenceIdx.length > 0,
    );
    // A run that keeps its state by content (this project: records keyed by history hashes) first gets a generic
    // question as long as the longest real one: whatever a new user message compacts is compacted there, once, and
    // every real question, replacing it, finds that state. A run with a state of its own asks each question on a
    // copy of its state after the replay, as a thread's checkpoint would be resumed.
    if (!run.fork && questions.length > 0) {
      const longest = Math.max(...questions.map((qa) => qa.question.length));
      await run.call(askedAt(replay.questionTime, QUESTION.repeat(Math.ceil(longest / QUESTION.length))));
    }
    const before = setup.summarizerCalls.count;
    figures.evidence = { retained: 0, total: 0, byCategory: {} };
    for (const qa of questions) {
      const units = evidenceUnits(await (run.fork?.() ?? run).call(askedAt(replay.questionTime, qa.question)));
      const texts = qa.evidenceIdx.map((index) => replay.session.messages[index]?.content ?? '');
      const kept = texts.every((text) => retained(text, units));
      const category = figures.evidence.byCategory[qa.category] ?? [0, 0];
      figures.evidence.byCategory[qa.category] = category;
      figures.evidence.total++;
      category[1]++;
      if (kept) {
        figures.evidence.retained++;
        category[0]++;
      }
    }
    figures.questionSummarizerCalls = setup.summarizerCalls.count - before;
    onCall();
  }
  return figures;
}

/** Cost of writing every token of a history once. */
export const floorCost = (tokens: number) => tokens * CACHE_WRITE_PRICE;
