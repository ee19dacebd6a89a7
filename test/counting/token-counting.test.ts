import { describe, expect, it, vi } from 'vitest';
import { TokenCalibration } from '../../src/counting/calibration.js';
import { gptTokenizerCounter } from '../../src/counting/gpt-tokenizer-counter.js';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS, MessageMeter, maxUtf8Bytes } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { approximateCounter, type TokenCounter } from '../../src/counting/token-counter.js';
import { utf8BytesCounter } from '../../src/counting/utf8-bytes-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { InvalidOptionError } from '../../src/errors.js';
import type { Message, Transcript } from '../../src/transcript/transcript.js';

const text = (role: Message['role'], body: string): Message => ({ role, parts: [{ type: 'text', text: body }] });

/** An approximate counter whose count() is a spy, to see what gets tokenized. */
function spyCounter(): TokenCounter & { count: ReturnType<typeof vi.fn<(text: string) => number>> } {
  const inner = approximateCounter();
  return { name: 'spy', count: vi.fn((input: string) => inner.count(input)) };
}

describe.each([
  ['gptTokenizerCounter', gptTokenizerCounter, 'gpt-tokenizer:o200k_base'],
  ['tiktokenCounter', tiktokenCounter, 'tiktoken:o200k_base'],
])('%s', (_name, create, name) => {
  const counter = create();

  it.each(['<|endoftext|>', 'before <|fim_prefix|> after', '<|fim_middle|><|fim_suffix|><|endofprompt|>'])(
    'counts special-token strings as text: %s',
    (input) => {
      expect(() => counter.count(input)).not.toThrow();
      // As plain text a special-token string takes several ordinary tokens, never the single special token.
      expect(counter.count(input)).toBeGreaterThan(1);
    },
  );

  it('counts ordinary text, the empty string and is stable', () => {
    expect(counter.name).toBe(name);
    expect(counter.count('')).toBe(0);
    expect(counter.count('hello world')).toBe(2);
    expect(counter.count('a'.repeat(1000))).toBe(counter.count('a'.repeat(1000)));
  });

  it('a message meter over it measures special-token text without throwing', () => {
    const meter = new MessageMeter(counter);
    const measure = meter.measure(text('user', 'Please explain <|endoftext|> and <|fim_prefix|>.'));
    expect(measure.tokens).toBeGreaterThan(DEFAULT_MESSAGE_OVERHEAD_TOKENS + 2);
  });
});

describe('gptTokenizerCounter and tiktokenCounter agree', () => {
  const gpt = gptTokenizerCounter();
  const tiktoken = tiktokenCounter();
  const words = 'const total = items.reduce((sum, item) => sum + item.price, 0); // déjà vu 東京 ✓\n'.repeat(300);

  it.each([
    ['code and prose', words],
    ['a text longer than one chunk, cut at spaces', `${words} ${words}`],
    ['a run without spaces (base64)', 'QUJDRGVmZ2hpamtsbW5vcA+/'.repeat(1_000)],
    ['CJK without spaces', '東京都の天気は晴れです。'.repeat(1_000)],
    ['lone surrogates', 'a\ud800b\udc00c\ud83d'],
    ['special-token strings', '<|endoftext|><|fim_prefix|> <|im_start|>'],
  ])('on %s', (_name, input) => {
    expect(gpt.count(input)).toBe(tiktoken.count(input));
  });

  it('rejects an unknown encoding when the counter is created', () => {
    expect(() => gptTokenizerCounter('o100k' as 'o200k_base')).toThrow(InvalidOptionError);
  });
});

describe('MessageMeter memoization', () => {
  const history = (count: number) =>
    Array.from({ length: count }, (_, index) => text(index % 2 ? 'assistant' : 'user', `message number ${index}`));

  it('tokenizes only the new message when the same history arrives again as new objects', () => {
    const counter = spyCounter();
    const meter = new MessageMeter(counter);
    const first = history(100);
    const firstMeasures = first.map((message) => meter.measure(message));
    expect(counter.count).toHaveBeenCalledTimes(100);

    counter.count.mockClear();
    const second = [...history(100), text('user', 'a brand new question')];
    expect(second[0]).not.toBe(first[0]);
    const secondMeasures = second.map((message) => meter.measure(message));
    expect(counter.count).toHaveBeenCalledTimes(1);
    expect(counter.count).toHaveBeenCalledWith('a brand new question');
    expect(secondMeasures.slice(0, 100)).toEqual(firstMeasures);
  });

  it('measuring the same object twice neither hashes nor counts again', () => {
    const counter = spyCounter();
    const meter = new MessageMeter(counter);
    const message = text('user', 'hello');
    expect(meter.measure(message)).toBe(meter.measure(message));
    expect(counter.count).toHaveBeenCalledTimes(1);
  });

  it('distinguishes role, part type and tool ids in the hash', () => {
    const meter = new MessageMeter(approximateCounter());
    const hashes = [
      text('user', 'same'),
      text('assistant', 'same'),
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'same' }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'a', name: 't', output: 'same' }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'b', name: 't', output: 'same' }] },
    ].map((message) => meter.measure(message as Message).hash);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('counts overhead, text, tool calls and file estimates', () => {
    const meter = new MessageMeter(approximateCounter());
    expect(meter.measure(text('user', 'x'.repeat(40))).tokens).toBe(DEFAULT_MESSAGE_OVERHEAD_TOKENS + 10);
    const file: Message = {
      role: 'user',
      parts: [{ type: 'file', mediaType: 'image/png', fingerprint: 'u', tokens: 85 }],
    };
    expect(meter.measure(file).tokens).toBe(DEFAULT_MESSAGE_OVERHEAD_TOKENS + 85);
    const call: Message = {
      role: 'assistant',
      parts: [{ type: 'tool-call', id: 'c1', name: 'read', args: { p: 'a' } }],
    };
    expect(meter.measure(call).tokens).toBe(DEFAULT_MESSAGE_OVERHEAD_TOKENS + Math.ceil('read {"p":"a"}'.length / 4));
  });
});

describe('engine counts system messages and tool definitions', () => {
  const engine = new CompressionEngine({
    contextWindow: 100_000,
    tokenCounter: approximateCounter(),
    awarenessBlock: '',
  });
  const messages = [text('user', 'x'.repeat(400))];
  const base: Transcript = { system: [], tools: [], messages };
  const tools = [{ name: 'read_file', description: 'Reads a file from the workspace.', schema: { type: 'object' } }];

  it('counts the messages alone', async () => {
    const out = await engine.compress({ transcript: base, modelId: 'm' });
    expect(out.estimatedTokens).toBe(DEFAULT_MESSAGE_OVERHEAD_TOKENS + 100);
  });

  it('adds system messages with their overhead', async () => {
    const system = [text('system', 's'.repeat(200)), text('system', 't'.repeat(80))];
    const out = await engine.compress({ transcript: { ...base, system }, modelId: 'm' });
    expect(out.estimatedTokens).toBe(
      DEFAULT_MESSAGE_OVERHEAD_TOKENS + 100 + 2 * DEFAULT_MESSAGE_OVERHEAD_TOKENS + 50 + 20,
    );
  });

  it('adds tool definitions as their JSON', async () => {
    const out = await engine.compress({ transcript: { ...base, tools }, modelId: 'm' });
    const toolTokens = Math.ceil(JSON.stringify(tools).length / 4);
    expect(out.estimatedTokens).toBe(DEFAULT_MESSAGE_OVERHEAD_TOKENS + 100 + toolTokens);
  });

  it('awaits the load of a counter that loads its tokenizer on demand before it counts', async () => {
    let loaded = false;
    const onDemand: TokenCounter = {
      name: 'on-demand',
      count: (input) => {
        if (!loaded) throw new Error('counted before load');
        return Math.ceil(input.length / 4);
      },
      load: async () => {
        loaded = true;
      },
    };
    const engine = new CompressionEngine({ contextWindow: 100_000, tokenCounter: onDemand, awarenessBlock: '' });
    const out = await engine.compress({ transcript: base, modelId: 'm' });
    expect(out.estimatedTokens).toBe(DEFAULT_MESSAGE_OVERHEAD_TOKENS + 100);
  });

  it('counts the awareness block as part of the system prompt once it is sent, and not before', async () => {
    const aware = new CompressionEngine({
      contextWindow: 100_000,
      tokenCounter: approximateCounter(),
      awarenessBlock: 'a'.repeat(40),
    });
    const untouched = await aware.compress({ transcript: base, modelId: 'm' });
    expect(untouched.system).toHaveLength(0);
    expect(untouched.estimatedTokens).toBe(DEFAULT_MESSAGE_OVERHEAD_TOKENS + 100);
    // a turn to fold: the changed prompt carries the block, counted with it
    const turns: Transcript = {
      ...base,
      messages: [
        ...messages,
        { role: 'assistant', parts: [{ type: 'text', text: 'b'.repeat(400) }] },
        { role: 'user', parts: [{ type: 'text', text: 'c'.repeat(40) }] },
      ],
    };
    const folded = await aware.compress({ transcript: turns, modelId: 'm', force: true });
    expect(folded.event?.messagesFolded).toBeGreaterThan(0);
    expect(folded.system).toHaveLength(1);
    const sent = [...folded.system, ...folded.messages];
    const counted = sent.reduce((sum, message) => sum + aware.meter.measure(message).tokens, 0);
    expect(folded.estimatedTokens).toBe(counted);
  });
});

describe('TokenCalibration', () => {
  it('is 1 until a response was seen and learns the ratio per model', () => {
    const calibration = new TokenCalibration();
    expect(calibration.ratio('anthropic:claude')).toBe(1);
    calibration.record('anthropic:claude', 1_000, 1_200);
    expect(calibration.ratio('anthropic:claude')).toBeCloseTo(1.2);
    expect(calibration.ratio('openai:gpt-4o')).toBe(1);
    calibration.record('anthropic:claude', 1_000, 1_400);
    expect(calibration.ratio('anthropic:claude')).toBeCloseTo(1.3);
  });

  it.each([
    ['undefined report', 1_000, undefined],
    ['zero report', 1_000, 0],
    ['negative report', 1_000, -50],
    ['NaN report', 1_000, Number.NaN],
    ['infinite report', 1_000, Number.POSITIVE_INFINITY],
    ['zero estimate', 0, 1_000],
    ['negative estimate', -10, 1_000],
    ['ratio far above', 1_000, 50_000],
    ['ratio far below', 1_000, 10],
  ])('ignores nonsense: %s', (_name, estimated, reported) => {
    const calibration = new TokenCalibration();
    calibration.record('m', 1_000, 1_100);
    calibration.record('m', estimated, reported);
    expect(calibration.ratio('m')).toBeCloseTo(1.1);
  });

  it('bounds the weight of history so it keeps adapting', () => {
    const calibration = new TokenCalibration(4);
    for (let index = 0; index < 50; index++) calibration.record('m', 1_000, 1_000);
    calibration.record('m', 1_000, 2_000);
    expect(calibration.ratio('m')).toBeCloseTo(1.25);
  });

  it("learns down to the counter's floor: UTF-8 bytes of pretty-printed JSON, at 7-12 bytes a token", () => {
    const tree = (depth: number): unknown =>
      depth === 0
        ? { id: 12345, name: 'widget', ok: true }
        : { level: depth, children: [tree(depth - 1), tree(depth - 1)] };
    for (const indent of [2, 4]) {
      const text = JSON.stringify(tree(6), null, indent);
      const bytes = utf8BytesCounter().count(text);
      const reported = gptTokenizerCounter().count(text);
      expect(reported / bytes).toBeLessThan(0.2);
      const engine = new CompressionEngine({ contextWindow: 16_000, tokenCounter: utf8BytesCounter() });
      engine.recordUsage('m', bytes, reported);
      expect(engine.calibration.ratio('m')).toBeCloseTo(reported / bytes, 5);
      // a counter without a floor of its own takes such a report for a wrong one
      const words = new CompressionEngine({ contextWindow: 16_000, tokenCounter: { name: 'w', count: maxUtf8Bytes } });
      words.recordUsage('m', bytes, reported);
      expect(words.calibration.ratio('m')).toBe(1);
    }
    const calibration = new TokenCalibration(20, 1 / 16);
    calibration.record('m', 1_000, 10);
    expect(calibration.ratio('m')).toBe(1);
  });

  it.each([0, -0.1, 1.5, Number.NaN, '0.1'])('rejects a counter whose calibrationFloor is %s', (floor) => {
    const tokenCounter = { name: 'c', count: (text: string) => text.length, calibrationFloor: floor as number };
    expect(() => new CompressionEngine({ contextWindow: 8_000, tokenCounter })).toThrow(InvalidOptionError);
  });

  it('engine.recordUsage feeds the calibration the engine uses', () => {
    const engine = new CompressionEngine({ contextWindow: 4_000, tokenCounter: approximateCounter() });
    engine.recordUsage('p:m', 1_000, 1_500);
    expect(engine.calibration.ratio('p:m')).toBeCloseTo(1.5);
  });
});
