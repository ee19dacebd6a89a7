import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import type { Message } from '../../src/transcript/transcript.js';
import { setup, text } from '../helpers/fixtures.js';

/** A tool loop whose every result is larger than the per-result cap. */
function loop(steps: number): Message[] {
  const messages: Message[] = [text('user', 'Summarize the logs.')];
  for (let step = 0; step < steps; step++) {
    messages.push({
      role: 'assistant',
      parts: [{ type: 'tool-call', id: `log-${step}`, name: 'logs', args: { step } }],
    });
    const lines = Array.from(
      { length: 300 },
      (_, line) => `step ${step} line ${line}: request served in ${line % 97} ms`,
    );
    messages.push({
      role: 'tool',
      parts: [{ type: 'tool-result', callId: `log-${step}`, name: 'logs', output: lines.join('\n') }],
    });
  }
  return messages;
}

describe('oversized tool results in a loop', () => {
  it('count each cut once, in the call that made it, with the tokens it saved', async () => {
    const { run, events } = setup({
      contextWindow: 200_000,
      reserveOutputTokens: 2_000,
      maxToolResultTokens: 1_000,
      masking: false,
      folding: false,
    });
    const history = loop(12);
    const perCall: number[] = [];
    for (let end = 3; end <= history.length; end += 2) {
      const before = events.length;
      await run(JSON.parse(JSON.stringify(history.slice(0, end))));
      perCall.push(events.slice(before).reduce((sum, event) => sum + event.toolResultsTruncated, 0));
    }
    expect(perCall).toEqual(Array.from({ length: 12 }, () => 1));
    for (const event of events) expect(event.tokensBefore).toBeGreaterThan(event.tokensAfter);
  });

  it('cut each result once: later calls tokenize only what is new, with fresh message objects', async () => {
    let counted = 0;
    const base = approximateCounter();
    const tokenCounter = {
      name: 'counting',
      count: (text: string) => {
        counted += text.length;
        return base.count(text);
      },
    };
    const { run } = setup({
      contextWindow: 200_000,
      reserveOutputTokens: 2_000,
      maxToolResultTokens: 1_000,
      masking: false,
      folding: false,
      tokenCounter,
    });
    const history = loop(20);
    const resultChars = ((history[2] as Message).parts[0] as { output: string }).output.length;
    const perCall: number[] = [];
    for (let end = 3; end <= history.length; end += 2) {
      counted = 0;
      await run(JSON.parse(JSON.stringify(history.slice(0, end))));
      perCall.push(counted);
    }
    // the new result is counted whole, cut, and its head and tail counted: about three times its size, whatever the step
    for (const chars of perCall.slice(2)) expect(chars).toBeLessThan(4 * resultChars);
    expect(perCall.at(-1)).toBeLessThan(2 * (perCall[2] as number));
  });
});
