import { describe, expect, it } from 'vitest';
import { retained } from '../../bench/compare/metrics.js';
import { oracleCovered, strictUnits } from '../../bench/memory/retention.js';
import { sessionStateMessages } from '../../src/session-state/render-session-state.js';
import type { Message } from '../../src/transcript/transcript.js';

const text = (role: Message['role'], body: string): Message => ({ role, parts: [{ type: 'text', text: body }] });

describe('strict evidence retention', () => {
  const evidence = 'Caroline adopted a rescue dog named Biscuit in Portland last spring';
  const state = sessionStateMessages({
    // the evidence's words are spread over two entries: pooled they are all there, one by one they are not
    logos: ['Caroline adopted a rescue dog last spring', 'The dog is named Biscuit and lives in Portland'],
    pathos: [],
    abstract: [],
    conversationSummary: 'They talked about pets.',
  });

  it('counts each state entry on its own, never the state pooled', () => {
    const { units, stateTokens } = strictUnits({
      system: [],
      messages: [...state, text('user', 'And the dog?')],
      tools: [],
    });
    expect(stateTokens).toBeGreaterThan(0);
    expect(units.map((unit) => unit.text)).toContain('The dog is named Biscuit and lives in Portland');
    expect(retained(evidence, units)).toBe(false);
    const pooled = [
      {
        text: state.map((message) => (message.parts[0] as { text: string }).text).join('\n'),
        words: new Set(evidence.toLowerCase().split(' ')),
      },
    ];
    expect(retained(evidence, pooled)).toBe(true);
  });

  it('finds evidence kept verbatim in a message', () => {
    const { units, verbatim } = strictUnits({
      system: [],
      messages: [text('user', `By the way: ${evidence}.`)],
      tools: [],
    });
    expect(retained(evidence, units)).toBe(true);
    expect(verbatim).toHaveLength(1);
  });
});

describe('the oracle ceiling', () => {
  it('serves the questions whose missing turns cost least, with one shared set of turns in the budget', () => {
    const tokens = (turn: number) => [10, 20, 30, 40][turn] ?? 0;
    const gaps = [
      { turns: [3], tokens: 40, own: 0 },
      { turns: [0, 1], tokens: 30, own: 0 },
      { turns: [1], tokens: 20, own: 0 },
      { turns: [], tokens: 0, own: 0 },
    ];
    // budget 30: nothing missing (free), then [1] (20), then [0, 1] costs only 10 more; [3] no longer fits
    expect(oracleCovered(gaps, 30, tokens).size).toBe(3);
    expect([...oracleCovered(gaps, 0, tokens)]).toEqual([3]);
  });

  it('serves a question from its own recall budget when its missing turns fit there', () => {
    const tokens = (turn: number) => [10, 20, 30, 40][turn] ?? 0;
    const gaps = [
      { turns: [3], tokens: 40, own: 30 },
      { turns: [0, 1], tokens: 30, own: 30 },
    ];
    // [0, 1] fits the question's own recall tokens; [3] needs 40 of the shared tokens
    expect(oracleCovered(gaps, 0, tokens).size).toBe(1);
    expect(oracleCovered(gaps, 40, tokens).size).toBe(2);
  });
});
