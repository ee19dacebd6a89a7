import { describe, expect, it } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { truncateHeadAndTail } from '../../src/strategies/head-and-tail.js';
import { truncateOversizedResults } from '../../src/strategies/truncate-tool-result.js';
import { findPairingProblems } from '../../src/transcript/tool-pairs.js';
import type { Message } from '../../src/transcript/transcript.js';

/** Tokens the cut marker itself may add beyond the limit. */
const MARKER_ALLOWANCE = 40;

const logLines = (count: number) =>
  Array.from(
    { length: count },
    (_, index) => `line ${index}: status=ok elapsed=${index * 7}ms path=/srv/app/${index}.ts`,
  ).join('\n');

const inputs = {
  'a log with lines': logLines(500),
  'one long line': 'abcdefghij'.repeat(800),
  'prose with few breaks': Array.from(
    { length: 40 },
    (_, index) => `Paragraph ${index}. ${'lorem ipsum dolor '.repeat(30)}`,
  ).join('\n\n'),
};

describe.each([
  ['approximate', approximateCounter()],
  ['tiktoken', tiktokenCounter()],
])('truncateHeadAndTail with the %s counter', (_name, counter) => {
  it.each(Object.entries(inputs))('%s: keeps head and tail under the limit with a marker', (_kind, text) => {
    for (const limit of [100, 400, 1_000]) {
      const out = truncateHeadAndTail(text, limit, counter);
      const [head, tail] = out.split(/\n\[\.\.\. .* cut from the middle of this output \.\.\.\]\n/);
      expect(head).toBeDefined();
      expect(tail).toBeDefined();
      expect(text.startsWith(head as string)).toBe(true);
      expect(text.endsWith(tail as string)).toBe(true);
      expect((head as string).length).toBeGreaterThan(0);
      expect((tail as string).length).toBeGreaterThan(0);
      expect(counter.count(out)).toBeLessThanOrEqual(limit + MARKER_ALLOWANCE);
      expect(out).toBe(truncateHeadAndTail(text, limit, counter));
    }
  });

  it('returns the text unchanged when it is within the limit', () => {
    const text = logLines(10);
    expect(truncateHeadAndTail(text, counter.count(text), counter)).toBe(text);
    expect(truncateHeadAndTail(text, 100_000, counter)).toBe(text);
  });
});

describe('truncateHeadAndTail marker', () => {
  const counter = approximateCounter();

  it('states how many lines, tokens and characters were cut, exactly', () => {
    const text = logLines(500);
    const out = truncateHeadAndTail(text, 300, counter);
    const match =
      /\n\[\.\.\. (\d+) lines, about (\d+) tokens \((\d+) characters\) cut from the middle of this output \.\.\.\]\n/.exec(
        out,
      );
    expect(match).not.toBeNull();
    const [marker, lines, tokens, characters] = match as unknown as [string, string, string, string];
    const head = out.slice(0, match?.index);
    const tail = out.slice((match?.index ?? 0) + marker.length);
    const cut = text.slice(head.length, text.length - tail.length);
    expect(Number(characters)).toBe(cut.length);
    expect(head.length + cut.length + tail.length).toBe(text.length);
    expect(Number(lines)).toBe(cut.split('\n').length - 1);
    expect(Number(tokens)).toBeGreaterThan(counter.count(text) - 300 - MARKER_ALLOWANCE);
  });

  it('cuts at line breaks when the output has lines', () => {
    const out = truncateHeadAndTail(logLines(500), 300, counter);
    const [head, tail] = out.split(/\n\[\.\.\..*\.\.\.\]\n/) as [string, string];
    expect(head.endsWith('\n')).toBe(true);
    expect(tail.startsWith('line ')).toBe(true);
  });

  it('omits the line count for a single-line output', () => {
    const out = truncateHeadAndTail('z'.repeat(10_000), 200, counter);
    expect(out).toMatch(/\[\.\.\. about \d+ tokens \(\d+ characters\) cut/);
  });
});

describe('truncateOversizedResults', () => {
  const meter = new MessageMeter(approximateCounter());
  const big = logLines(400);
  const messages: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'read both files' }] },
    {
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: 'small', name: 'read', args: { path: 'a.ts' } },
        { type: 'tool-call', id: 'large', name: 'read', args: { path: 'b.log' } },
      ],
    },
    {
      role: 'tool',
      parts: [
        { type: 'tool-result', callId: 'small', name: 'read', output: 'tiny' },
        { type: 'tool-result', callId: 'large', name: 'read', output: big, original: { keep: true } },
      ],
    },
  ];
  const out = truncateOversizedResults(
    messages,
    messages.map((message) => meter.measure(message)),
    500,
    meter,
  );

  it('shortens only the oversized result and keeps ids, names and pairing', () => {
    expect(out.truncated).toBe(1);
    expect(out.truncatedIds).toEqual(['large']);
    expect(out.messages[0]).toBe(messages[0]);
    expect(out.messages[1]).toBe(messages[1]);
    const tool = out.messages[2] as Message;
    expect(tool.edited).toBe(true);
    expect(tool.parts[0]).toBe(messages[2]?.parts[0]);
    expect(tool.parts[1]).toMatchObject({
      type: 'tool-result',
      callId: 'large',
      name: 'read',
      edited: true,
      original: { keep: true },
    });
    expect(findPairingProblems(out.messages)).toEqual([]);
  });

  it('reports the new token counts and leaves the input alone', () => {
    expect(out.tokens[2]).toBe(meter.measure(out.messages[2] as Message).tokens);
    expect(out.tokens[2]).toBeLessThanOrEqual(500 + MARKER_ALLOWANCE + 10);
    const original = messages[2]?.parts[1];
    expect(original?.type === 'tool-result' && original.output).toBe(big);
  });
});

describe('truncateOversizedResults with the retrieval tool', () => {
  const meter = new MessageMeter(approximateCounter());
  const history: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'Check the log.' }] },
    {
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: 'log-1', name: 'bash', args: { command: 'cat app.log' } },
        { type: 'tool-call', id: 'back-1', name: 'get_back', args: { toolCallIds: ['old-1'] } },
      ],
    },
    {
      role: 'tool',
      parts: [
        { type: 'tool-result', callId: 'log-1', name: 'bash', output: logLines(500) },
        { type: 'tool-result', callId: 'back-1', name: 'get_back', output: logLines(300) },
      ],
    },
  ];

  it('ends a cut result with a line naming the retrieval tool and the call id, within the limit', () => {
    const measures = history.map((message) => meter.measure(message));
    const out = truncateOversizedResults(history, measures, 500, meter, undefined, 'get_back');
    const parts = (out.messages[2] as Message).parts;
    const cut = parts[0] as { output: string };
    expect(cut.output.endsWith('[Shortened to save context; get_back gives it back verbatim (call id "log-1").]')).toBe(
      true,
    );
    expect(meter.countText(cut.output)).toBeLessThanOrEqual(500 + MARKER_ALLOWANCE);
    // the retrieval tool's own answer is never cut: the model asked for it whole
    expect((parts[1] as { output: string }).output).toBe(logLines(300));
    expect(out.truncatedIds).toEqual(['log-1']);
  });
});
