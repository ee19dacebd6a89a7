import { describe, expect, it } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { chunkBudget, nextChunk, renderedTokens, summarizerWindow } from '../../src/summarizers/summarizer-chunks.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';
import { deepFreeze, text } from '../helpers/fixtures.js';

const meter = new MessageMeter(approximateCounter());
const tokensOf = (messages: readonly Message[]) => messages.reduce((sum, each) => sum + renderedTokens(each, meter), 0);

/** An assistant message with two parallel calls, and the tool message with both results (~`size` tokens each). */
function toolStep(index: number, size: number): Message[] {
  return [
    {
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: `a-${index}`, name: 'read', args: { path: `f${index}` } },
        { type: 'tool-call', id: `b-${index}`, name: 'grep', args: { query: `q${index}` } },
      ],
    },
    {
      role: 'tool',
      parts: [
        { type: 'tool-result', callId: `a-${index}`, name: 'read', output: `line ${index} `.repeat(size / 2) },
        { type: 'tool-result', callId: `b-${index}`, name: 'grep', output: `hit ${index} `.repeat(size / 2) },
      ],
    },
  ];
}

/** Every chunk of `messages` within `budget`, in order. */
function chunks(messages: readonly Message[], budget: number): Array<readonly Message[]> {
  const all: Array<readonly Message[]> = [];
  for (let from = 0; from < messages.length; ) {
    const chunk = nextChunk(messages, from, budget, meter);
    all.push(chunk.messages);
    from = chunk.next;
  }
  return all;
}

describe('summarizer chunks', () => {
  it('cut between whole messages, never between a tool call and its result', () => {
    const messages = deepFreeze([
      text('user', 'Fix it.'),
      ...[0, 1, 2, 3, 4, 5].flatMap((index) => toolStep(index, 300)),
    ]);
    const cut = chunks(messages, 1_000);
    expect(cut.length).toBeGreaterThan(2);
    for (const chunk of cut) {
      expect(tokensOf(chunk)).toBeLessThanOrEqual(1_000);
      expect(findPairingProblems(chunk)).toEqual([]);
    }
    expect(cut.flat()).toEqual(messages);
  });

  it('cut a message larger than a chunk to its head and tail, alone in its chunk, without changing it', () => {
    const long = text('user', `START ${'middle '.repeat(4_000)} END`);
    const messages = deepFreeze([text('user', 'before'), long, text('assistant', 'after')]);
    const cut = chunks(messages, 1_000);
    expect(cut).toHaveLength(3);
    const clipped = cut[1] ?? [];
    expect(clipped).toHaveLength(1);
    expect(tokensOf(clipped)).toBeLessThanOrEqual(1_000);
    const clippedText = messageText(clipped[0] as Message);
    expect(clippedText.startsWith('START middle')).toBe(true);
    expect(clippedText.endsWith('middle  END')).toBe(true);
    expect(clippedText).toMatch(/\[\.\.\. \d+ characters omitted \.\.\.\]/);
    expect(messageText(long)).toHaveLength(6 + 7 * 4_000 + 4);
  });

  it('cut a tool call with a result larger than a chunk together, the result shortened', () => {
    const messages = deepFreeze(toolStep(0, 8_000));
    const [only] = chunks(messages, 1_500);
    expect(only).toHaveLength(2);
    expect(findPairingProblems(only ?? [])).toEqual([]);
    expect(tokensOf(only ?? [])).toBeLessThanOrEqual(1_500);
  });

  it('budget the window less the fixed prompt, the state so far, the answer and the margin', () => {
    const window = { contextWindow: 32_000, fixedPrompt: 'x'.repeat(4_000) };
    // 32000 - 1000 (fixed) - 3 ("(none yet)") - 4096 (answer) - 3200 (10%)
    expect(chunkBudget(window, undefined, meter)).toBe(23_701);
    const state = { logos: ['y'.repeat(40_000)], pathos: [], abstract: [], conversationSummary: '' };
    expect(chunkBudget(window, state, meter)).toBeLessThan(23_701 - 9_000);
    // however large the state, a chunk keeps an eighth of the window
    const huge = { ...state, logos: ['z'.repeat(400_000)] };
    expect(chunkBudget(window, huge, meter)).toBe(4_000);
  });

  it('take the window from the option, else the summarizer; none for a summarizer without one', () => {
    const summarize = async () => ({ logos: [], pathos: [], abstract: [], conversationSummary: '' });
    expect(summarizerWindow({ name: 'f', summarize }, undefined)).toBeUndefined();
    expect(summarizerWindow({ name: 'f', summarize }, 8_000)).toEqual({ contextWindow: 8_000, fixedPrompt: '' });
    const own = { name: 'm', summarize, contextWindow: 128_000, fixedPrompt: 'Summarize.' };
    expect(summarizerWindow(own, undefined)).toEqual({ contextWindow: 128_000, fixedPrompt: 'Summarize.' });
    expect(summarizerWindow(own, 16_000)?.contextWindow).toBe(16_000);
    expect(summarizerWindow({ ...own, contextWindow: Number.NaN }, undefined)).toBeUndefined();
  });
});
