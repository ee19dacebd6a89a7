import { describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { DEFAULT_SUMMARIZER_PROMPT } from '../../src/options/prompts.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { CompressEvent, CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { renderSummarizerPrompt } from '../../src/summarizers/render-transcript.js';
import type { SummarizeInput, Summarizer } from '../../src/summarizers/summarizer.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';
import { SYSTEM, text } from '../helpers/fixtures.js';

/**
 * A fold larger than the summarizer's window: the engine (128k... scaled down: a 150k-token window, ~110k tokens of
 * history folded down to 10% of the budget) hands a summarizer with a 32k window about 96k tokens, three windows.
 */
const WINDOW = 32_000;
const counter = approximateCounter();
/** Tokens a summarizer reads of its window, its answer's reserve (4096) left free. */
const READABLE = WINDOW - 4_096;

/** A message of about 1000 tokens carrying one fact, `FACT-<index>`. */
const message = (index: number): Message =>
  text(
    index % 2 ? 'assistant' : 'user',
    `Note ${index}: the value of FACT-${index} is recorded. ${'filler '.repeat(565)}`,
  );
const history = (count: number) => Array.from({ length: count }, (_, index) => message(index));

/** A summarizer that keeps every fact it read, and records the size of each prompt it would send. */
function factKeeper(fail?: (call: number) => boolean) {
  const inputs: Array<{ tokens: number; previous: SessionState | undefined; messages: readonly Message[] }> = [];
  const summarize = async ({ messages, previous }: SummarizeInput): Promise<SessionState> => {
    const prompt = renderSummarizerPrompt(DEFAULT_SUMMARIZER_PROMPT, { messages, previous });
    inputs.push({ tokens: counter.count(prompt), previous, messages });
    if (fail?.(inputs.length)) throw new Error('the summarizer model is down');
    const facts = messages.flatMap((each) => messageText(each).match(/FACT-\d+/g) ?? []);
    return {
      logos: [...(previous?.logos ?? []), ...facts.map((fact) => `${fact} is recorded.`)],
      pathos: [],
      abstract: [],
      conversationSummary: `Read ${facts.length} more facts.`,
    };
  };
  const summarizer: Summarizer = { name: 'fact-keeper', contextWindow: WINDOW, summarize };
  return { inputs, summarizer };
}

function engineWith(summarizer: Summarizer, options: CompressionOptions = {}) {
  const events: CompressEvent[] = [];
  const errors: CompressionErrorEvent[] = [];
  const engine = new CompressionEngine({
    contextWindow: 130_000,
    reserveOutputTokens: 4_000,
    compressTo: 0.1,
    tokenCounter: counter,
    masking: false,
    triggers: { semantic: false, staleness: false },
    recall: false,
    summarizer,
    onCompress: (event) => events.push(event),
    onError: (event) => errors.push(event),
    ...options,
  });
  const run = (messages: readonly Message[]) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });
  return { run, events, errors };
}

const stateOf = (messages: readonly Message[]) =>
  messages.find((each) => each.synthetic === 'session-state') && messageText(messages[0] as Message);

describe('a fold larger than the summarizer window', () => {
  it('gives the summarizer no prompt larger than its window (before: the whole span in one call)', async () => {
    const { inputs, summarizer } = factKeeper();
    const { run } = engineWith(summarizer);
    await run(history(97));
    expect(inputs.length).toBeGreaterThan(0);
    expect(Math.max(...inputs.map((input) => input.tokens))).toBeLessThanOrEqual(READABLE);
  });

  it('is summarized in 3-4 chunks merged into one state that keeps facts of the first and the last chunk', async () => {
    const { inputs, summarizer } = factKeeper();
    const { run, events, errors } = engineWith(summarizer);
    const messages = history(97);
    const out = await run(messages);
    expect(errors).toEqual([]);
    const folded = events[0]?.messagesFolded ?? 0;
    const foldedTokens = messages.slice(0, folded).reduce((sum, each) => sum + counter.count(messageText(each)), 0);
    expect(foldedTokens).toBeGreaterThan(2.9 * WINDOW);
    expect(inputs.length).toBeGreaterThanOrEqual(3);
    expect(inputs.length).toBeLessThanOrEqual(4);
    for (const input of inputs) expect(input.tokens).toBeLessThanOrEqual(READABLE);
    // each call after the first merges into the state the one before returned; every message is read once, in order
    expect(inputs[0]?.previous).toBeUndefined();
    expect(inputs[1]?.previous?.logos).toContain('FACT-0 is recorded.');
    expect(inputs.flatMap((input) => input.messages)).toEqual(messages.slice(0, folded));
    // one fold, reported once, with its calls
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ trigger: 'budget', summarizerCalls: inputs.length });
    const state = stateOf(out.messages);
    expect(state).toContain('FACT-0 is recorded.');
    expect(state).toContain(`FACT-${folded - 1} is recorded.`);
  });

  it('fits the window of the option, which overrides the summarizer own', async () => {
    const { inputs, summarizer } = factKeeper();
    const { run, events } = engineWith(
      { ...summarizer, contextWindow: undefined },
      { summarizerContextWindow: 16_000 },
    );
    await run(history(97));
    expect(Math.max(...inputs.map((input) => input.tokens))).toBeLessThanOrEqual(16_000 - 4_000);
    expect(events[0]?.summarizerCalls).toBe(inputs.length);
    expect(inputs.length).toBeGreaterThan(5);
  });

  it('is one call, as before, for a summarizer with no window', async () => {
    const { inputs, summarizer } = factKeeper();
    const { run, events } = engineWith({ ...summarizer, contextWindow: undefined });
    await run(history(97));
    expect(inputs).toHaveLength(1);
    expect(events[0]?.summarizerCalls).toBe(1);
  });

  it('fails as a whole when a middle chunk fails: the call goes on uncompressed, and a later call folds', async () => {
    const { inputs, summarizer } = factKeeper((call) => call === 2);
    const { run, events, errors } = engineWith(summarizer);
    const messages = history(97);
    const out = await run(messages);
    expect(errors.map((error) => [error.fallback, error.error.name])).toEqual([
      ['sent-uncompressed', 'SummarizerError'],
    ]);
    expect(events).toEqual([]);
    expect(out.messages).toEqual(messages);
    expect(inputs).toHaveLength(2);
    // nothing of the failed fold was kept: the next fold starts from no state, after the usual wait of a few messages
    const later = [...messages, ...history(101).slice(97)];
    const again = await run(later);
    expect(inputs.length).toBeGreaterThan(4);
    expect(inputs[2]?.previous).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]?.summarizerCalls).toBe(inputs.length - 2);
    expect(stateOf(again.messages)).toContain('FACT-0 is recorded.');
  });

  it('holds the fold lease of a shared store for every call, and stores one state for the fold', async () => {
    const inner = memoryStateStore();
    const leaseWrites: Array<{ owner: string; until: number }> = [];
    const foldWrites: string[] = [];
    const store: StateStore = {
      get: (key) => inner.get(key),
      set: (key, value, options) => {
        if (key.includes('lease:')) leaseWrites.push(value as { owner: string; until: number });
        if (key.includes('fold:')) foldWrites.push(key);
        return inner.set(key, value, options);
      },
      setIfAbsent: (key, value, options) => {
        if (key.includes('lease:')) leaseWrites.push(value as { owner: string; until: number });
        return inner.setIfAbsent?.(key, value, options) ?? Promise.resolve(false);
      },
      delete: (key) => inner.delete?.(key) ?? Promise.resolve(),
    };
    const { inputs, summarizer } = factKeeper();
    const { run, events } = engineWith(summarizer, { store });
    await run(history(97));
    expect(inputs.length).toBeGreaterThanOrEqual(3);
    // taken once, then renewed before each later call, by the same holder, never shortened
    expect(leaseWrites).toHaveLength(inputs.length);
    expect(new Set(leaseWrites.map((lease) => lease.owner)).size).toBe(1);
    for (let index = 1; index < leaseWrites.length; index++)
      expect(leaseWrites[index]?.until).toBeGreaterThanOrEqual(leaseWrites[index - 1]?.until ?? 0);
    expect(foldWrites).toHaveLength(1);
    expect(events[0]?.summarizerCalls).toBe(inputs.length);
  });
});
