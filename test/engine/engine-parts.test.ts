import { describe, expect, it, vi } from 'vitest';
import { startingPoint } from '../../src/call/compression-point.js';
import { EMPTY_STAGE_REPORT, type PromiseBreak } from '../../src/call/stage.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import type { CompressInput } from '../../src/engine/compress-call.js';
import { engineParts } from '../../src/engine/engine-parts.js';
import { BrokenPromiseError, InvalidOptionError, StoreError, TokenCounterError } from '../../src/errors.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../src/options/prompts.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { Message } from '../../src/transcript/transcript.js';
import { chat, SYSTEM, text } from '../helpers/fixtures.js';

/** engineParts on its own: which parts an engine's options build, and how the parts share what they know. */

const STATE: SessionState = {
  logos: ['The user wants short answers.'],
  pathos: [],
  abstract: [],
  conversationSummary: 'Earlier turns were condensed.',
};

const summarize = async (): Promise<SessionState> => STATE;

/** Options of a small engine that reports its errors to `errors`. */
function optionsOf(errors: CompressionErrorEvent[], options: CompressionOptions = {}): CompressionOptions {
  return {
    contextWindow: 4_000,
    reserveOutputTokens: 500,
    tokenCounter: approximateCounter(),
    onError: (event) => errors.push(event),
    ...options,
  };
}

const inputOf = (messages: readonly Message[], extra: Partial<CompressInput> = {}): CompressInput => ({
  transcript: { system: SYSTEM, tools: [], messages },
  modelId: 'test-model',
  ...extra,
});

/** Saves, through the parts, the record of a call of `messages` that folded the first two into STATE. */
async function saveFold(parts: ReturnType<typeof engineParts>, messages: readonly Message[]) {
  const facts = parts.reader.read(inputOf(messages));
  const start = startingPoint(facts, undefined);
  const point = { ...start, coveredCount: 2, state: STATE };
  const projection = parts.assembly.project(facts, point);
  const decided = { ...EMPTY_STAGE_REPORT, point, lasting: point, projection };
  await parts.records.save(facts, { start, decided, found: undefined, stored: undefined, sent: [], blocks: new Set() });
}

const BREAK: PromiseBreak = { promise: 'continuity', detail: 'message 0 would change' };

describe('engineParts', () => {
  it('makes summaries ahead of time with a summarizer named model:..., not with a function', () => {
    const withModel = engineParts(optionsOf([], { summarizer: { name: 'model:small', summarize } }));
    expect(withModel.ahead).toBeDefined();
    expect(withModel.services.aheadActive()).toBe(true);
    const withFunction = engineParts(optionsOf([], { summarizer: summarize }));
    expect(withFunction.ahead).toBeUndefined();
    expect(withFunction.services.aheadActive()).toBe(false);
  });

  it('makes no summaries ahead of time when they are turned off, or folding is', () => {
    const model = { name: 'model:small', summarize };
    expect(engineParts(optionsOf([], { summarizer: model, summarizeAhead: false })).ahead).toBeUndefined();
    expect(engineParts(optionsOf([], { summarizer: model, folding: false })).ahead).toBeUndefined();
    expect(engineParts(optionsOf([], { summarizer: summarize, summarizeAhead: {} })).ahead).toBeDefined();
  });

  it('keeps promises that throw with onBrokenPromise: throw, and that report otherwise', () => {
    const throwing = engineParts(optionsOf([], { onBrokenPromise: 'throw' }));
    expect(() => throwing.promises.rejected(BREAK)).toThrow(BrokenPromiseError);
    const reporting = engineParts(optionsOf([]));
    expect(reporting.promises.rejected(BREAK)).toBe(BREAK);
  });

  it('throws the library’s option error for invalid options', () => {
    expect(() => engineParts({ compressAt: 2 })).toThrow(InvalidOptionError);
    expect(() => engineParts({ compressAt: 0.9, hardLimit: 0.8 })).toThrow(InvalidOptionError);
    expect(() => engineParts({ contextWindow: 4_000, reserveOutputTokens: 3_000 })).toThrow(InvalidOptionError);
    expect(() => engineParts({ compresAt: 0.5 } as CompressionOptions)).toThrow(/compressAt/);
  });

  it('keeps records in a memory store of its own when no store is given', async () => {
    const parts = engineParts(optionsOf([]));
    const messages = chat(6);
    await saveFold(parts, messages.slice(0, 4));
    const { found } = await parts.records.load(parts.reader.read(inputOf(messages)));
    expect(found).toMatchObject({ coveredCount: 2, state: STATE });
    // another engine's memory store is another store
    const other = engineParts(optionsOf([]));
    expect((await other.records.load(other.reader.read(inputOf(messages)))).found).toBeUndefined();
  });

  it('keeps records in the caller’s store when one is given, shared by the engines built with it', async () => {
    const store = memoryStateStore();
    const set = vi.spyOn(store, 'set');
    const parts = engineParts(optionsOf([], { store }));
    const messages = chat(6);
    await saveFold(parts, messages.slice(0, 4));
    expect(set).toHaveBeenCalled();
    const other = engineParts(optionsOf([], { store }));
    const { found } = await other.records.load(other.reader.read(inputOf(messages)));
    expect(found).toMatchObject({ coveredCount: 2, state: STATE });
  });

  it('reads a failing store of the caller’s as empty, reported with the without-store fallback', async () => {
    const errors: CompressionErrorEvent[] = [];
    const broken: StateStore = {
      get: async () => {
        throw new Error('connection refused');
      },
      set: async () => {},
    };
    const parts = engineParts(optionsOf(errors, { store: broken }));
    const { found } = await parts.records.load(parts.reader.read(inputOf(chat(6))));
    expect(found).toBeUndefined();
    expect(errors.map((event) => event.fallback)).toEqual(['without-store']);
    expect(StoreError.isInstance(errors[0]?.error)).toBe(true);
  });

  it('reads calls for the model’s budget, with the awareness block after the caller’s system prompt', () => {
    const parts = engineParts(optionsOf([], { namespace: 'tenant' }));
    const facts = parts.reader.read(inputOf(chat(4), { namespace: 'user-1' }));
    expect(facts.limits.budget).toBe(3_500);
    expect(facts.limits.budget).toBe(parts.models.budgetFor('test-model'));
    expect(facts.scope).toEqual(['tenant', 'user-1']);
    expect(facts.system).toHaveLength(SYSTEM.length + 1);
    expect(facts.system[0]).toBe(SYSTEM[0]);
    expect(facts.system.at(-1)?.parts[0]).toMatchObject({ type: 'text', text: DEFAULT_AWARENESS_BLOCK });
  });

  it('shares one calibration between the model limits and the calls it reads', () => {
    const parts = engineParts(optionsOf([]));
    parts.models.used('test-model', 1_000, 1_250);
    expect(parts.calibration.ratio('test-model')).toBe(1.25);
    const facts = parts.reader.read(inputOf(chat(4)));
    expect(facts.limits.ratio).toBe(1.25);
    expect(facts.limits.compressAt).toBeCloseTo((0.7 * 3_500) / 1.25);
  });

  it('counts with the caller’s counter, falling back to the approximate count when it throws', () => {
    const errors: CompressionErrorEvent[] = [];
    const fixed = engineParts(optionsOf(errors, { tokenCounter: { name: 'fixed', count: () => 7 } }));
    expect(fixed.meter.countText('any text at all')).toBe(7);
    const failing = engineParts(
      optionsOf(errors, {
        tokenCounter: {
          name: 'failing',
          count: () => {
            throw new Error('no tokenizer');
          },
        },
      }),
    );
    const body = 'x'.repeat(400);
    expect(failing.meter.countText(body)).toBe(approximateCounter().count(body));
    expect(errors.map((event) => event.fallback)).toEqual(['approximate-count']);
    expect(TokenCounterError.isInstance(errors[0]?.error)).toBe(true);
  });

  it('shares one memory between the assembly and the promises: a prompt remembered is owed', () => {
    const parts = engineParts(optionsOf([]));
    const messages = chat(6);
    const earlier = parts.reader.read(inputOf(messages.slice(0, 4)));
    parts.promises.sentAsItCame(
      earlier,
      undefined,
      parts.promises.promises(earlier, undefined),
      {} as Parameters<typeof parts.promises.sentAsItCame>[3],
    );
    expect(parts.memory.sentPrompts.previous(earlier.conversationKey)?.history.length).toBe(4);
    const facts = parts.reader.read(inputOf(messages));
    expect(parts.promises.promises(facts, undefined).owed()).toBe(true);
  });

  it('makes the listeners safe: an onError that throws never fails the engine’s parts', async () => {
    const broken: StateStore = {
      get: async () => {
        throw new Error('connection refused');
      },
      set: async () => {},
    };
    const parts = engineParts(
      optionsOf([], {
        store: broken,
        onError: () => {
          throw new Error('listener bug');
        },
      }),
    );
    expect(() =>
      parts.listeners.onError({ error: new BrokenPromiseError(BREAK), fallback: 'continued' }),
    ).not.toThrow();
    await expect(parts.records.load(parts.reader.read(inputOf(chat(6))))).resolves.toMatchObject({ found: undefined });
  });

  it('turns recall off in the limits of its calls when the recall option is off', () => {
    const on = engineParts(optionsOf([]));
    expect(on.reader.read(inputOf(chat(4))).limits.maxRecallTokens).toBeGreaterThan(0);
    const off = engineParts(optionsOf([], { recall: false }));
    expect(off.reader.read(inputOf(chat(4))).limits.maxRecallTokens).toBe(0);
  });

  it('reads a call whose facts start from the parts’ memory of the conversation', () => {
    const parts = engineParts(optionsOf([]));
    const messages = [text('user', 'Hello.'), text('assistant', 'Hi.'), text('user', 'Fold this.')];
    const first = parts.reader.read(inputOf(messages));
    // an equal message of a later call is read as the earlier call's object
    const copies = messages.map((message) => ({ ...message }));
    const second = parts.reader.read(inputOf(copies));
    expect(second.messages[0]).toBe(first.messages[0]);
    expect(second.input[0]).toBe(copies[0]);
  });
});
