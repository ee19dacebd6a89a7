import { describe, expect, it } from 'vitest';
import { MessageMeter, maxUtf8Bytes } from '../../src/counting/message-meter.js';
import { approximateCounter, type TokenCounter } from '../../src/counting/token-counter.js';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { CompressionOptions } from '../../src/options/options.js';
import type { CompressionReport } from '../../src/reports/compression-report.js';
import type { Message } from '../../src/transcript/transcript.js';
import { agentLoop, chat, SYSTEM, text } from '../helpers/fixtures.js';

/** A counter that records every text it counts; `bytesBound` as given. */
function countingCounter(bytesBound: boolean): { counter: TokenCounter; texts: string[] } {
  const texts: string[] = [];
  const inner = approximateCounter();
  return {
    texts,
    counter: {
      name: 'recording',
      count: (value) => {
        texts.push(value);
        return inner.count(value);
      },
      bytesBound,
    },
  };
}

/** The engine with a recording counter, the report of every call, and a call of `messages`. */
function harness(bytesBound: boolean, options: CompressionOptions = {}) {
  const { counter, texts } = countingCounter(bytesBound);
  const reports: CompressionReport[] = [];
  const engine = new CompressionEngine({
    contextWindow: 100_000,
    reserveOutputTokens: 1_000,
    tokenCounter: counter,
    onCall: (report) => reports.push(report),
    ...options,
  });
  const call = (messages: readonly Message[], force = false) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model', force });
  return { engine, texts, reports, call };
}

/** Every figure of a report, read now. */
const figures = (report: CompressionReport | undefined) => ({
  historyTokens: report?.historyTokens,
  promptTokens: report?.promptTokens,
  cacheablePrefixTokens: report?.cacheablePrefixTokens,
  messagesOutOfPrompt: report?.messagesOutOfPrompt,
  stateInPrompt: report?.stateInPrompt,
  change: report?.change,
});

/** What a call sends and reports, read in full (the summarizer's time aside). */
const sent = (out: CompressOutput) => ({
  messages: out.messages,
  estimatedTokens: out.estimatedTokens,
  decisions: out.decisions,
  deferred: out.deferred,
  event: out.event && { ...out.event, summarizerMs: 0 },
});

/** A long chat far below the window: ~58 tokens a message, ~300 bytes. */
const longChat = [...chat(201)];

describe('a call far below every threshold', () => {
  it('counts only the newest messages when the byte lengths of the others prove the prompt below the threshold', async () => {
    // 201 messages of ~250 bytes: ~50k bytes, under the threshold of 69,300 tokens: only the latest message is counted
    const { texts, call } = harness(true);
    const out = await call(longChat);
    expect(out.messages).toEqual(longChat);
    expect(texts.length).toBeLessThan(10);
    // the figures are counted when read, and equal a full count
    const full = harness(false);
    expect(sent(out)).toEqual(sent(await full.call(longChat)));
  });

  it('counts from the newest message back until the proof holds, when the byte lengths alone do not', async () => {
    // a threshold of 70% of 30,000 tokens: ~12,000 tokens of text at ~4 bytes a token is over it in bytes, under it
    // counted
    const messages = chat(201);
    const bounded = harness(true, { contextWindow: 31_000 });
    const out = await bounded.call(messages);
    const full = harness(false, { contextWindow: 31_000 });
    const expected = await full.call(messages);
    const countedBeforeReading = bounded.texts.length;
    expect(countedBeforeReading).toBeGreaterThan(1);
    expect(countedBeforeReading).toBeLessThan(full.texts.length);
    expect(sent(out)).toEqual(sent(expected));
    expect(figures(bounded.reports[0])).toEqual(figures(full.reports[0]));
  });

  it('sends what every stage would send, call after call, with the same reports', async () => {
    const bounded = harness(true);
    const full = harness(false);
    for (const end of [3, 41, 42, 121, 201]) {
      const messages = longChat.slice(0, end);
      expect(sent(await bounded.call(messages))).toEqual(sent(await full.call(messages)));
    }
    expect(bounded.reports.map(figures)).toEqual(full.reports.map(figures));
  });

  it('counts the rest once the call is out, so a figure read later costs nothing', async () => {
    const { texts, call } = harness(true);
    const out = await call(longChat);
    const before = texts.length;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(texts.length).toBeGreaterThan(before);
    const after = texts.length;
    expect(out.estimatedTokens).toBeGreaterThan(0);
    expect(texts.length).toBe(after);
  });

  it('keeps at most eight counts waiting when calls come without a turn of the event loop', async () => {
    const { texts, call } = harness(true);
    const conversations = Array.from({ length: 30 }, (_, index) =>
      chat(9).map((message) =>
        text(message.role, `Conversation ${index}. ${message.parts[0]?.type === 'text' ? message.parts[0].text : ''}`),
      ),
    );
    const outputs = [];
    for (const messages of conversations) outputs.push(await call(messages));
    const before = texts.length;
    await new Promise((resolve) => setTimeout(resolve, 5));
    // each waiting count reads one conversation's 9 messages; the 22 older ones are counted only if read
    expect(texts.length - before).toBeLessThanOrEqual(8 * 9);
    expect(texts.length - before).toBeGreaterThan(0);
    const full = harness(false);
    expect(outputs[0]?.estimatedTokens).toBe((await full.call(conversations[0] ?? [])).estimatedTokens);
  });

  it('keeps at most eight counts waiting for the whole process, however many engines make calls without a turn', async () => {
    // an engine per conversation (a server making one per request, a batch script): a queue per engine kept every
    // engine alive through its timer until the event loop turned
    const engines = Array.from({ length: 30 }, () => harness(true));
    for (const [index, engine] of engines.entries()) {
      await engine.call(
        chat(9).map((message) =>
          text(message.role, `Chat ${index}. ${message.parts[0]?.type === 'text' ? message.parts[0].text : ''}`),
        ),
      );
    }
    const before = engines.reduce((sum, engine) => sum + engine.texts.length, 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const counted = engines.reduce((sum, engine) => sum + engine.texts.length, 0) - before;
    expect(counted).toBeLessThanOrEqual(8 * 9);
    expect(counted).toBeGreaterThan(0);
  });

  it('leaves the decision to the stages when a tool result, a stored state, a forced call or an unbounded counter is involved', async () => {
    const messages = [...agentLoop(6), text('user', 'Go on.')];
    const withTools = harness(true);
    await withTools.call(messages);
    const fullTools = harness(false);
    await fullTools.call(messages);
    expect(withTools.texts.length).toBe(fullTools.texts.length);

    const forced = harness(true);
    const out = await forced.call(longChat, true);
    expect(out.event?.messagesFolded).toBeGreaterThan(0);
    // the next call finds the stored state: it is read by the stages, not sent as it came
    const next = await forced.call([...longChat, text('assistant', 'Yes.'), text('user', 'And then?')]);
    expect(next.messages[0]?.synthetic).toBe('session-state');

    const unbounded = harness(false);
    await unbounded.call(longChat);
    expect(unbounded.texts.length).toBeGreaterThanOrEqual(longChat.length);
  });

  it('compresses as before when the prompt is over the threshold', async () => {
    const messages = chat(301);
    const bounded = harness(true, { contextWindow: 12_000 });
    const full = harness(false, { contextWindow: 12_000 });
    const out = await bounded.call(messages);
    expect(out.event?.messagesFolded).toBeGreaterThan(0);
    expect(sent(out)).toEqual(sent(await full.call(messages)));
  });
});

describe('the byte bound', () => {
  it('is at least the UTF-8 length of any text', () => {
    const encoder = new TextEncoder();
    for (const value of ['plain ascii', 'héllo wörld', '東京は晴れ', 'emoji 😀👍🏽', 'lone \ud800 surrogate', '']) {
      expect(maxUtf8Bytes(value)).toBeGreaterThanOrEqual(encoder.encode(value).length);
    }
    expect(maxUtf8Bytes('plain ascii')).toBe(11);
    expect(maxUtf8Bytes('東京')).toBe(6);
  });

  it('bounds the count of a message from above, and gives the count once it is known', () => {
    const meter = new MessageMeter(approximateCounter(1));
    const message = text('user', '東京は晴れ, and then 😀 some more words');
    const bound = meter.bound(message);
    expect(meter.bounded).toBe(true);
    expect(bound).toBeGreaterThanOrEqual(meter.measure(message).tokens);
    expect(meter.bound(message)).toBe(meter.measure(message).tokens);
    expect(meter.hash(message)).toBe(meter.measure(message).hash);
    expect(new MessageMeter(approximateCounter(0.5)).bounded).toBe(false);
  });
});
