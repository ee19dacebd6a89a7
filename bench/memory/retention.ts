/** Strict evidence retention: each message, and each entry of the session state, is a unit of its own. */
import { messageText, type Transcript } from '../../src/transcript/transcript.js';
import { contentWords, meter } from '../compare/metrics.js';

type Unit = { text: string; words: Set<string> };

/**
 * Every message of a prompt as one unit, except the state message, whose every entry is a unit of its own; `verbatim`
 * holds the messages alone (what the oracle starts from).
 */
export function strictUnits(transcript: Transcript): { units: Unit[]; verbatim: Unit[]; stateTokens: number } {
  const units: Unit[] = [];
  const verbatim: Unit[] = [];
  let stateTokens = 0;
  for (const message of [...transcript.system, ...transcript.messages]) {
    const text = messageText(message);
    const state = /^<session_state>\n([\s\S]*)\n<\/session_state>$/.exec(text);
    if (!state) {
      const unit = { text, words: contentWords(text) };
      units.push(unit);
      verbatim.push(unit);
      continue;
    }
    stateTokens += meter.measure(message).tokens;
    const parsed = JSON.parse(state[1] as string) as Record<string, string[] | string>;
    for (const value of Object.values(parsed)) {
      for (const entry of Array.isArray(value) ? value : [value])
        units.push({ text: entry, words: contentWords(entry) });
    }
  }
  return { units, verbatim, stateTokens };
}

/**
 * The ceiling: one set of verbatim turns for all the questions (they all find the same stored state), chosen knowing
 * them, within the tokens the project's state takes: questions whose missing turns cost least are served first.
 */
export function oracleCovered(
  gaps: readonly { turns: readonly number[]; tokens: number }[],
  budget: number,
  tokensOf: (turn: number) => number,
): number {
  const chosen = new Set<number>();
  let used = 0;
  let covered = 0;
  for (const gap of [...gaps].sort((a, b) => a.tokens - b.tokens)) {
    const extra = gap.turns.filter((turn) => !chosen.has(turn));
    const cost = extra.reduce((sum, turn) => sum + tokensOf(turn), 0);
    if (used + cost > budget) continue;
    for (const turn of extra) chosen.add(turn);
    used += cost;
    covered++;
  }
  return covered;
}
