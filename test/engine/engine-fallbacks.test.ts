import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import { HardLimitError, MessageTooLargeError, SummarizerError } from '../../src/errors.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import { messageText } from '../../src/transcript/transcript.js';
import { BUDGET, chat, expectSameObjects, inputTokens, promptTokens, real, setup, text } from '../helpers/fixtures.js';

const SECRET = 'SECRET-PROVIDER-ERROR 401 sk-live-123';
const allText = (out: CompressOutput) => [...out.system, ...out.messages].map(messageText).join('\n');

type Failing = (input: SummarizeInput) => Promise<SessionState>;
const failures: Array<[string, Failing, SummarizerError['reason']]> = [
  ['throws', async () => Promise.reject(new Error(SECRET)), 'threw'],
  ['returns {}', async () => ({}) as SessionState, 'invalid-output'],
  ['returns a string', async () => SECRET as unknown as SessionState, 'invalid-output'],
  [
    'returns wrong field types',
    async () => ({ logos: SECRET, pathos: [], abstract: [] }) as unknown as SessionState,
    'invalid-output',
  ],
  ['never resolves', () => new Promise<SessionState>(() => {}), 'timeout'],
];

/** Runs a compression with fake timers, so that a summarizer that never resolves times out deterministically. */
async function runWithClock(run: () => Promise<CompressOutput>): Promise<CompressOutput> {
  vi.useFakeTimers();
  const promise = run();
  await vi.advanceTimersByTimeAsync(5_000);
  return promise;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a failing summarizer never fails the call', () => {
  it.each(failures)(
    'between the 70 and 85 percent thresholds, summarizer %s: sends uncompressed and reports',
    async (_name, summarizer, reason) => {
      const { run, errors, events } = setup({ summarizer, summarizerTimeoutMs: 5_000 });
      const messages = chat(45);
      const out = await runWithClock(() => run(messages));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.fallback).toBe('sent-uncompressed');
      expect(SummarizerError.isInstance(errors[0]?.error)).toBe(true);
      expect(errors[0]?.error).toMatchObject({ reason });
      expectSameObjects(out.messages, messages);
      expect(out.messages).toHaveLength(messages.length);
      expect(allText(out)).not.toContain('SECRET');
      expect(events).toEqual([]);
    },
  );

  it.each(failures)('over the hard limit (summarizer %s): drops the oldest turns', async (_name, summarizer) => {
    const { run, errors, events } = setup({ summarizer, summarizerTimeoutMs: 5_000 });
    const messages = chat(53);
    expect(inputTokens(messages)).toBeGreaterThan(0.85 * BUDGET);
    const out = await runWithClock(() => run(messages));
    expect(errors.map((error) => error.fallback)).toEqual(['dropped-oldest-turns']);
    expect(out.event?.trigger).toBe('hard-limit');
    expect(out.event?.messagesDropped).toBeGreaterThan(0);
    expect(out.event?.messagesFolded).toBe(0);
    expect(events).toEqual([out.event]);
    expect(promptTokens(out)).toBeLessThanOrEqual(0.85 * BUDGET);
    expect(out.messages[0]?.synthetic).toBe('session-state');
    expect(real(out).at(-1)).toBe(messages.at(-1));
    expect(real(out)).toEqual(messages.slice(out.event?.messagesDropped));
    expect(allText(out)).not.toMatch(/SECRET|Summarizer "|invalid-output|timeout/);
    expect(findPairingProblems(out.messages)).toEqual([]);
  });

  it('a timed-out summarizer is aborted and the call waits exactly the timeout', async () => {
    const signals: AbortSignal[] = [];
    const { run, errors } = setup({
      summarizerTimeoutMs: 5_000,
      summarizer: ({ abortSignal }) => {
        signals.push(abortSignal);
        return new Promise<SessionState>(() => {});
      },
    });
    vi.useFakeTimers();
    let settled = false;
    const promise = run(chat(45)).then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    expect(signals[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await promise;
    expect(settled).toBe(true);
    expect(signals[0]?.aborted).toBe(true);
    expect(errors[0]?.error).toMatchObject({ reason: 'timeout' });
  });

  it('over the hard limit, only whole turns are dropped', async () => {
    for (const count of [53, 54, 55, 56]) {
      const { run } = setup({ summarizer: failures[0]?.[1] });
      const out = await run(chat(count));
      expect(out.event?.trigger).toBe('hard-limit');
      expect(real(out)[0]?.role).toBe('user');
    }
  });
});

describe('sizes', () => {
  it('a latest user message alone over the budget throws MessageTooLargeError with sizes', async () => {
    const { run } = setup();
    const messages = [...chat(4), text('user', 'x'.repeat(4 * 3_600))];
    const error = await run(messages).catch((caught: unknown) => caught);
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ messageTokens: 3_604, budgetTokens: BUDGET, messageIndex: 4 });
    expect((error as Error).message).toContain('3604');
    expect((error as Error).message).toContain('3500');
  });

  it('a large latest user message that fits the budget does not throw', async () => {
    const { run, errors } = setup();
    const out = await run([...chat(4), text('user', 'x'.repeat(4 * 3_000))]);
    expect(real(out).at(-1)?.parts).toHaveLength(1);
    expect(errors.map((error) => error.fallback)).toEqual(['over-hard-limit']);
    const error = errors[0]?.error;
    expect(HardLimitError.isInstance(error)).toBe(true);
    const limit = error as HardLimitError;
    expect(limit.hardLimitTokens).toBe(Math.round(BUDGET * 0.85));
    expect(limit.promptTokens).toBeGreaterThan(limit.hardLimitTokens);
  });

  it('the too-large check uses the calibrated size', async () => {
    const { engine, run } = setup();
    engine.recordUsage('test-model', 1_000, 2_000);
    const error = await run([...chat(2), text('user', 'x'.repeat(4 * 2_100))]).catch((caught: unknown) => caught);
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
  });

  it('an oversized summarizer state never pushes the prompt over the hard limit', async () => {
    const facts = Array.from({ length: 2_000 }, (_, index) => `fact ${index}`);
    const { run, errors } = setup({
      summarizer: async () => ({ logos: facts, pathos: [], abstract: [], conversationSummary: '' }),
    });
    const out = await run(chat(45));
    expect(errors).toEqual([]);
    expect(promptTokens(out)).toBeLessThanOrEqual(0.85 * BUDGET);
  });
});
