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

describe('the state sent stays within its cap, cut only when the prompt needs it', () => {
  it('a cap that moved with the calibration alone: the stored state is sent as it was, nothing rewritten', async () => {
    const engine = engineOf();
    const history = chatOf(61);
    const first = await sendAndMeasure(engine, history);
    expect(first.output.event?.messagesFolded).toBeGreaterThan(0);
    expect(first.tokens).toBeLessThanOrEqual(first.cap);
    // the provider counts 15% more than the estimate: the cap in our tokens is smaller now, the prompt still fits
    for (let call = 0; call < 5; call++) engine.recordUsage('m', 1_000, 1_150);
    const next = [...history, text('assistant', 'ok'), text('user', 'and then?')];
    const after = await sendAndMeasure(engine, next);
    expect(after.cap).toBeLessThan(first.tokens);
    // the same state, byte for byte: the cached prefix holds, and no change is reported
    expect(after.output.messages[0]).toEqual(first.output.messages[0]);
    expect(after.output.event).toBeUndefined();
  });

  it('a prompt the stored state would take over the hard limit: the state is cut, reported from before the cut, and kept', async () => {
    const engine = engineOf();
    const history = chatOf(61);
    await engine.compress({ transcript: { system: SYSTEM, tools: [], messages: history }, modelId: 'm' });
    // the provider counts 2.5 times the estimate: with the state as stored, the prompt would be over the hard limit
    for (let call = 0; call < 5; call++) engine.recordUsage('m', 1_000, 2_500);
    const send = () => sendAndMeasure(engine, [...history, text('assistant', 'ok'), text('user', 'and then?')]);
    const cut = await send();
    expect(cut.tokens).toBeLessThanOrEqual(cut.cap);
    expect(cut.output.event?.decisions.map((decision) => decision.details).join(' ')).toMatch(/cut to its cap/);
    // what the cut freed is in the report: the tokens before it count the state as stored
    expect(cut.output.event?.tokensBefore).toBeGreaterThan(cut.output.event?.tokensAfter ?? 0);
    const again = await send();
    expect(again.output.event).toBeUndefined();
    expect(again.output.messages[0]).toEqual(cut.output.messages[0]);
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
          const sentBefore = new Set<string>();
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
            // within its cap, or a stored state an earlier call sent, as it was (a cap that moved rewrites nothing)
            const pair = output.messages[0]?.synthetic === 'session-state' ? JSON.stringify(output.messages[0]) : '';
            if (tokens > cap) expect(sentBefore.has(pair)).toBe(true);
            sentBefore.add(pair);
            engine.recordUsage('m', output.estimatedTokens, Math.round(output.estimatedTokens * reported));
          }
        },
      ),
      { numRuns: 60, seed: 5 },
    );
  });
});
