import { describe, expect, it } from 'vitest';
import { gptTokenizerCounter } from '../../src/counting/gpt-tokenizer-counter.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { fitState } from '../../src/session-state/fit-state.js';
import { sessionStateMessages } from '../../src/session-state/render-session-state.js';
import type { SessionState } from '../../src/session-state/session-state.js';

const htmlTable = `<table><tr><th>id</th><th>name &amp; role</th></tr>${Array.from(
  { length: 300 },
  (_, row) => `<tr><td>${row}</td><td>R&amp;D &lt;lead&gt;</td></tr>`,
).join('')}</table>`;
const brackets = '<<<&&&>>>'.repeat(2_000);

const summaries: Array<[string, string]> = [
  ['an HTML table', htmlTable],
  ['<<<&&&>>>', brackets],
  ['prose with a table in it', `The report, as sent: ${htmlTable} and the totals below it. `.repeat(3)],
];

describe.each([
  ['gptTokenizerCounter', gptTokenizerCounter()],
  ['approximateCounter', approximateCounter()],
])('fitState with %s: the state pair as sent stays within the cap', (_name, counter) => {
  const meter = new MessageMeter(counter);
  const pairTokens = (state: SessionState, acknowledgement?: string) =>
    sessionStateMessages(state, acknowledgement).reduce((sum, message) => sum + meter.measure(message).tokens, 0);

  describe.each(summaries)('a summary of %s', (_kind, summary) => {
    it.each([300, 875, 2_000, 8_000])('within a cap of %i tokens', (cap) => {
      const state: SessionState = {
        logos: Array.from({ length: 40 }, (_, index) => `fact ${index}: <b>${index}</b> & <i>more</i>`),
        pathos: ['terse <3'],
        abstract: ['HTML & XML'],
        salience: ['<td>R&amp;D</td>', 'keep <<this>> & that'],
        timeline: ['#1-20 · 8 May 2023: table, report', '#21-40: totals, rows'],
        toolCalls: Array.from(
          { length: 60 },
          (_, index) => `call-${index} bash({"command":"grep -n '<a>' f${index}"})`,
        ),
        conversationSummary: summary,
      };
      const fitted = fitState(state, cap, meter);
      // the folded calls keep the newest: a list that was cut ends with the last call
      if (fitted.toolCalls) expect(fitted.toolCalls.at(-1)).toBe(state.toolCalls?.at(-1));
      expect(pairTokens(fitted)).toBeLessThanOrEqual(cap);
      // what is kept of the summary is its start, marked as cut
      expect(summary.startsWith(fitted.conversationSummary.replace(/\.\.\.$/, ''))).toBe(true);
      expect(fitted.timeline?.length ?? 0).toBeGreaterThan(0);
    });
  });

  it('a state of escaped entries alone, no summary to cut', () => {
    const state: SessionState = {
      logos: Array.from({ length: 300 }, (_, index) => `<<<&&&>>> ${index} <<<&&&>>>`),
      pathos: [],
      abstract: [],
      conversationSummary: '',
    };
    expect(pairTokens(fitState(state, 875, meter))).toBeLessThanOrEqual(875);
  });

  it('counts the acknowledgement the pair is sent with', () => {
    const acknowledgement = 'Understood, and noted in full. '.repeat(20);
    const state: SessionState = { logos: [], pathos: [], abstract: [], conversationSummary: brackets };
    expect(pairTokens(fitState(state, 875, meter, acknowledgement), acknowledgement)).toBeLessThanOrEqual(875);
  });

  it('a 100k-character summary is counted a few times, not per cut', () => {
    const counted: number[] = [];
    const spying = new MessageMeter({
      name: 'spy',
      count: (text) => {
        counted.push(text.length);
        return counter.count(text);
      },
    });
    const state: SessionState = { logos: [], pathos: [], abstract: [], conversationSummary: '東京&<'.repeat(25_000) };
    const fitted = fitState(state, 2_000, spying);
    expect(pairTokens(fitted)).toBeLessThanOrEqual(2_000);
    // the whole state once (350k characters escaped), then starts of the summary of at most 16 characters a token
    expect(counted.filter((length) => length > 100_000)).toHaveLength(1);
    const rest = counted.filter((length) => length <= 100_000);
    expect(rest.reduce((sum, length) => sum + length, 0)).toBeLessThan(60_000);
  });
});

describe('fitState and the folded tool calls', () => {
  const meter = new MessageMeter(gptTokenizerCounter());
  it('holds the list to its share of the cap, newest kept, when the state is over the cap', () => {
    const toolCalls = Array.from({ length: 400 }, (_, index) => `call-${index} read_file({"path":"src/f${index}.ts"})`);
    const state: SessionState = { logos: ['the task'], pathos: [], abstract: [], toolCalls, conversationSummary: 'x' };
    const fitted = fitState(state, 2_000, meter);
    const kept = fitted.toolCalls ?? [];
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(toolCalls.length);
    expect(kept).toEqual(toolCalls.slice(-kept.length));
    expect(meter.countText(JSON.stringify(kept))).toBeLessThanOrEqual(0.15 * 2_000);
    expect(fitted.logos).toEqual(['the task']);
  });
});
