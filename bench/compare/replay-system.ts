/** One system over one session: every call measured, and evidence retention at question time for conversations. */
import { CACHE_READ_PRICE, CACHE_WRITE_PRICE } from '../../examples/lib/replay.js';
import { messageText, type Transcript } from '../../src/transcript/transcript.js';
import type { Replay } from './data.js';
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
  overheadMs: number[];
  /** Prompt tokens of every call, in order. */
  tokensPerCall: number[];
  evidence: { retained: number; total: number } | undefined;
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
    overheadMs: [],
    tokensPerCall: [],
    evidence: undefined,
  };
  const run = system.create(setup);
  let firstSystem: string | undefined;
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
    firstSystem ??= systemText(transcript);
    const reasons = invalidReasons(transcript, firstSystem);
    const lost = history.instructions && !systemText(transcript).startsWith(history.instructions);
    if (lost && !reasons.includes(CHANGED)) reasons.push(CHANGED);
    if (reasons.length) figures.invalidPrompts++;
    for (const reason of reasons) figures.invalidReasons[reason] = (figures.invalidReasons[reason] ?? 0) + 1;
    onCall();
  }
  if (replay.questionTime) {
    const units = evidenceUnits(await run.call(replay.questionTime));
    figures.evidence = { retained: 0, total: 0 };
    for (const qa of replay.session.qa ?? []) {
      if (qa.category === 'adversarial' || qa.evidenceIdx.length === 0) continue;
      figures.evidence.total++;
      const texts = qa.evidenceIdx.map((index) => replay.session.messages[index]?.content ?? '');
      if (texts.every((text) => retained(text, units))) figures.evidence.retained++;
    }
    onCall();
  }
  figures.summarizerCalls = setup.summarizerCalls.count;
  return figures;
}

/** Cost of writing every token of a history once. */
export const floorCost = (tokens: number) => tokens * CACHE_WRITE_PRICE;
