/** Strict evidence retention: each message, and each entry of the session state, is a unit of its own. */
import { messageText, type Transcript } from '../../src/transcript/transcript.js';
import { blockEntries, contentWords, meter } from '../compare/metrics.js';

type Unit = { text: string; words: Set<string> };

/**
 * Every message of a prompt as one unit, except the state message, whose every entry is a unit of its own, and a
 * recall block, whose every quoted piece is one; `verbatim` holds the caller's messages alone (what the oracle starts
 * from).
 */
export function strictUnits(transcript: Transcript): {
  units: Unit[];
  verbatim: Unit[];
  stateTokens: number;
  recallTokens: number;
} {
  const units: Unit[] = [];
  const verbatim: Unit[] = [];
  let stateTokens = 0;
  let recallTokens = 0;
  for (const message of [...transcript.system, ...transcript.messages]) {
    const text = messageText(message);
    const block = blockEntries(text);
    if (!block) {
      const unit = { text, words: contentWords(text) };
      units.push(unit);
      verbatim.push(unit);
      continue;
    }
    if (block.kind === 'state') stateTokens += meter.measure(message).tokens;
    else recallTokens += meter.measure(message).tokens;
    for (const entry of block.entries) units.push({ text: entry, words: contentWords(entry) });
  }
  return { units, verbatim, stateTokens, recallTokens };
}

/**
 * The ceiling, knowing the questions, in the tokens the project spends beyond the kept messages: each question has
 * its own verbatim turns in the tokens of its recall block (`own`: a recall block is chosen per user message), and
 * one set of verbatim turns shared by all of them (they all find the same stored state) fills the tokens the
 * project's state takes, questions whose missing turns cost least first. The indexes of the gaps it covers.
 */
export function oracleCovered(
  gaps: readonly { turns: readonly number[]; tokens: number; own: number }[],
  budget: number,
  tokensOf: (turn: number) => number,
): Set<number> {
  const chosen = new Set<number>();
  let used = 0;
  const covered = new Set<number>();
  const order = gaps.map((gap, index) => ({ gap, index }));
  for (const { gap, index } of order) if (gap.tokens <= gap.own) covered.add(index);
  const rest = order.filter(({ gap }) => gap.tokens > gap.own).sort((a, b) => a.gap.tokens - b.gap.tokens);
  for (const { gap, index } of rest) {
    const extra = gap.turns.filter((turn) => !chosen.has(turn));
    const cost = extra.reduce((sum, turn) => sum + tokensOf(turn), 0);
    if (used + cost > budget) continue;
    for (const turn of extra) chosen.add(turn);
    used += cost;
    covered.add(index);
  }
  return covered;
}
