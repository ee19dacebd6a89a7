import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { ListenerError } from '../../src/errors.js';
import type { CompressionReport } from '../../src/reports/compression-report.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import { chat, SYSTEM, text } from '../helpers/fixtures.js';

/** `onCall` hears of every call, also of those that only reuse an earlier compression (which `onCompress` does not). */
describe('onCall', () => {
  const engineWith = (onCall: (report: CompressionReport) => void, errors: CompressionErrorEvent[] = []) =>
    new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      onCall,
      onCompress: () => {},
      onError: (event) => errors.push(event),
    });
  const call = (engine: CompressionEngine, messages: ReturnType<typeof chat>) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });

  it('reports every call: the history, the prompt, the state, and the changes when there are any', async () => {
    const reports: CompressionReport[] = [];
    const engine = engineWith((report) => reports.push(report));
    await call(engine, chat(4));
    const history = [...chat(60), text('user', 'And now?')];
    const folding = await call(engine, history);
    const reusing = await call(engine, history);
    expect(reports).toHaveLength(3);
    const [short, folded, again] = reports as [CompressionReport, CompressionReport, CompressionReport];
    expect(short).toMatchObject({ stateInPrompt: false, messagesOutOfPrompt: 0 });
    expect(short.change).toBeUndefined();
    expect(short.promptTokens).toBe(short.historyTokens);
    // the change onCompress heard, in the report's one shape (the decisions are the event's own)
    const { decisions: _decisions, ...change } = folding.event ?? { decisions: [] };
    expect(folded.change).toEqual(change);
    expect(folded.stateInPrompt).toBe(true);
    expect(folded.messagesOutOfPrompt).toBeGreaterThan(0);
    expect(folded.promptTokens).toBeLessThan(folded.historyTokens);
    // the same history again: nothing changes (no event, onCompress silent), the report still says what was sent
    expect(reusing.event).toBeUndefined();
    expect(again).toMatchObject({
      stateInPrompt: true,
      messagesOutOfPrompt: folded.messagesOutOfPrompt,
    });
    expect(again.change).toBeUndefined();
    expect(again.promptTokens).toBe(folded.promptTokens);
    expect(again.cacheablePrefixTokens).toBe(again.promptTokens);
  });

  it('a listener that throws goes to onError; the call returns', async () => {
    const errors: CompressionErrorEvent[] = [];
    const engine = engineWith(() => {
      throw new Error('dashboard down');
    }, errors);
    const out = await call(engine, chat(4));
    expect(out.messages.length).toBeGreaterThan(0);
    expect(ListenerError.isInstance(errors[0]?.error)).toBe(true);
    expect(errors[0]?.error.message).toMatch(/onCall listener threw/);
  });

  it('must be a function', () => {
    expect(() => engineWith('log' as never)).toThrow(/onCall/);
  });
});

describe('listeners that return a rejected promise', () => {
  it('onCall and onCompress: the rejection goes to onError, nothing is left unhandled', async () => {
    const errors: CompressionErrorEvent[] = [];
    const engine = new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      onCall: async () => {
        throw new Error('dashboard write failed');
      },
      onCompress: async () => {
        throw new Error('log write failed');
      },
      onError: (event) => errors.push(event),
    });
    await engine.compress({
      transcript: { system: SYSTEM, tools: [], messages: [...chat(60), text('user', 'And now?')] },
      modelId: 'test-model',
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    const messages = errors.map((event) => event.error.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/onCall listener threw: dashboard write failed/),
        expect.stringMatching(/onCompress listener threw: log write failed/),
      ]),
    );
  });

  it('the cache-stable prefix is in calibrated tokens, like the prompt', async () => {
    const reports: CompressionReport[] = [];
    const engine = new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      onCall: (report) => reports.push(report),
    });
    const messages = [...chat(4), text('user', 'And now?')];
    const first = await engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'm' });
    engine.recordUsage('m', first.estimatedTokens, first.estimatedTokens * 2);
    await engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'm' });
    const again = reports.at(-1) as CompressionReport;
    expect(again.cacheablePrefixTokens).toBe(again.promptTokens);
    expect(again.promptTokens).toBeGreaterThan((reports[0] as CompressionReport).promptTokens * 1.5);
  });
});
