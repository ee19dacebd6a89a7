import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';
import { SYSTEM, text } from '../helpers/fixtures.js';

const WINDOW = 3_000;
const counter = approximateCounter();

/** A summarizer that ignores any bound: far more than a quarter of the budget. */
const oversized = async ({ messages }: { messages: readonly Message[] }): Promise<SessionState> => ({
  logos: Array.from({ length: 150 }, (_, index) => `fact ${index} of ${messages.length}: ${'detail '.repeat(8)}`),
  pathos: ['tone '.repeat(200)],
  abstract: [],
  conversationSummary: 'summary '.repeat(300),
});

function engineOf() {
  return new CompressionEngine({
    contextWindow: WINDOW,
    reserveOutputTokens: 0,
    tokenCounter: counter,
    summarizer: oversized,
  });
}

/** The state pair's tokens in a call's output and the call's cap (a quarter of the budget, at the call's ratio). */
async function sendAndMeasure(engine: CompressionEngine, messages: readonly Message[]) {
  const ratio = Math.round(engine.calibration.ratio('m') * 100) / 100;
  const cap = Math.floor((0.25 * WINDOW) / ratio);
  const output = await engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'm' });
  const pair = output.messages.filter(
    (message) => message.synthetic === 'session-state' || message.synthetic === 'acknowledgement',
  );
  const tokens = pair.reduce((sum, message) => sum + counter.count((message.parts[0] as { text: string }).text), 0);
  return { output, tokens, cap, hasState: pair.length > 0 };
}

let serial = 0;
const turn = (index: number) => text(index % 2 ? 'assistant' : 'user', `m${serial++} ${'word '.repeat(40)}`);
const chatOf = (count: number) => Array.from({ length: count }, (_, index) => turn(index));

describe('the state sent stays within its cap', () => {
  it('a history resent shorter after the provider reported more tokens: the stored state is fitted to the new cap', async () => {
    const engine = engineOf();
    const history = chatOf(61);
    const first = await sendAndMeasure(engine, history);
    expect(first.output.event?.messagesFolded).toBeGreaterThan(0);
    expect(first.tokens).toBeLessThanOrEqual(first.cap);
    // the provider counts 40% more than the estimate: the next call's budget holds fewer of our tokens
    for (let call = 0; call < 5; call++) engine.recordUsage('m', 1_000, 1_400);
    const shorter = await sendAndMeasure(engine, history.slice(0, 55));
    expect(shorter.hasState).toBe(true);
    expect(shorter.cap).toBeLessThan(first.tokens);
    expect(shorter.tokens).toBeLessThanOrEqual(shorter.cap);
  });

  it('the cut is reported as a change and kept: the next call sends the same state, with no event', async () => {
    const engine = engineOf();
    const events: unknown[] = [];
    const history = chatOf(61);
    await engine.compress({ transcript: { system: SYSTEM, tools: [], messages: history }, modelId: 'm' });
    for (let call = 0; call < 5; call++) engine.recordUsage('m', 1_000, 1_400);
    const send = () =>
      engine.compress({ transcript: { system: SYSTEM, tools: [], messages: history.slice(0, 55) }, modelId: 'm' });
    const refitted = await send();
    expect(refitted.event?.decisions.map((decision) => decision.details).join(' ')).toMatch(/cut to its cap/);
    events.push(refitted.event);
    const again = await send();
    expect(again.event).toBeUndefined();
    expect(again.messages[0]).toEqual(refitted.messages[0]);
  });

  it('random edits after folds (truncate, replace, branch, grow) with an oversized summarizer and a moving ratio', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.constantFrom('grow', 'truncate', 'replace', 'branch'),
            count: fc.integer({ min: 1, max: 30 }),
            reported: fc.double({ min: 0.7, max: 1.6, noNaN: true }),
          }),
          { minLength: 2, maxLength: 10 },
        ),
        async (steps) => {
          const engine = engineOf();
          let history = chatOf(40);
          for (const { kind, count, reported } of steps) {
            if (kind === 'grow') history = [...history, ...chatOf(count)];
            else if (kind === 'truncate') history = history.slice(0, Math.max(1, history.length - count));
            else if (kind === 'replace') {
              const at = Math.min(history.length - 1, count);
              history = history.map((message, index) =>
                index === at ? text(message.role, `edited ${serial++} ${'other '.repeat(30)}`) : message,
              );
            } else history = [...history.slice(0, Math.max(1, history.length - count)), ...chatOf(count + 1)];
            if (history.at(-1)?.role !== 'user') history = [...history, text('user', `question ${serial++}`)];
            const { output, tokens, cap } = await sendAndMeasure(engine, history);
            expect(tokens).toBeLessThanOrEqual(cap);
            engine.recordUsage('m', output.estimatedTokens, Math.round(output.estimatedTokens * reported));
          }
        },
      ),
      { numRuns: 60, seed: 5 },
    );
  });
});
