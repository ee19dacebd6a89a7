import { describe, expect, it } from 'vitest';
import { gptTokenizerCounter } from '../../src/counting/gpt-tokenizer-counter.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { truncateHeadAndTail } from '../../src/strategies/head-and-tail.js';
import { shortenByRelevance } from '../../src/strategies/shorten-by-relevance.js';
import { truncateOversizedResults } from '../../src/strategies/truncate-tool-result.js';
import type { Message } from '../../src/transcript/transcript.js';

const counter = gptTokenizerCounter();

/** A test run's log: 60 passing modules, one failing in the middle, a summary at the end. */
function testLog(): string {
  const lines = ['$ pytest -q tests/', 'collected 600 items', ''];
  for (let module = 0; module < 60; module++) {
    if (module === 31) {
      lines.push(
        'tests/test_config.py::test_parse_config_defaults FAILED',
        '    def test_parse_config_defaults():',
        '>       assert parse_config("app.toml").timeout == 30',
        'E       AssertionError: assert 10 == 30',
        '',
      );
      continue;
    }
    for (let test = 0; test < 8; test++) lines.push(`tests/test_module_${module}.py::test_case_${test} PASSED`);
    lines.push('');
  }
  lines.push('=========== 1 failed, 599 passed in 12.31s ===========');
  return lines.join('\n');
}

/** Line numbers (1-based) each marker says it stands for. */
function markedLines(text: string): number[] {
  const lines: number[] = [];
  for (const match of text.matchAll(/\[\.\.\. lines? (\d+)(?:-(\d+))? left out/g)) {
    const first = Number(match[1]);
    const last = Number(match[2] ?? match[1]);
    for (let line = first; line <= last; line++) lines.push(line);
  }
  return lines;
}

describe('shortenByRelevance', () => {
  const log = testLog();
  const context = 'Why does test_parse_config_defaults fail?\nbash {"command":"pytest -q tests/"}';

  it('keeps the block the request is about, which a head-and-tail cut loses', () => {
    const headAndTail = truncateHeadAndTail(log, 400, counter);
    expect(headAndTail).not.toContain('AssertionError');
    const out = shortenByRelevance(log, 400, counter, { context });
    expect(out).toContain('E       AssertionError: assert 10 == 30');
    expect(out).toContain('$ pytest -q tests/'); // the head
    expect(out).toContain('1 failed, 599 passed'); // the tail
    expect(counter.count(out)).toBeLessThanOrEqual(400);
  });

  it('leaves every line present: kept verbatim, or inside exactly one marker', () => {
    const out = shortenByRelevance(log, 400, counter, { context });
    const source = log.split('\n');
    const marked = markedLines(out);
    expect(new Set(marked).size).toBe(marked.length);
    const kept = out.split('\n').filter((line) => !line.startsWith('[... '));
    // the kept lines, in order, are the source lines the markers do not stand for
    const expected = source.filter((_, index) => !marked.includes(index + 1));
    expect(kept).toEqual(expected);
    expect(marked.length + expected.length).toBe(source.length);
  });

  it('names the key terms of what it left out', () => {
    const out = shortenByRelevance(log, 400, counter, { context });
    expect(out).toMatch(/\[\.\.\. lines \d+-\d+ left out, about \d+ tokens; mentions [^\]]*test_module_\d+/);
  });

  it('puts failures first when the request names nothing in the output', () => {
    const out = shortenByRelevance(log, 400, counter, { context: 'run the tests' });
    expect(out).toContain('AssertionError');
  });

  it('is deterministic, returns short text as it is, and cuts few-line text head-and-tail', () => {
    expect(shortenByRelevance(log, 400, counter, { context })).toBe(shortenByRelevance(log, 400, counter, { context }));
    expect(shortenByRelevance('short', 400, counter, { context })).toBe('short');
    const oneLine = 'abcdefghij '.repeat(2_000);
    expect(shortenByRelevance(oneLine, 300, counter, { context })).toBe(truncateHeadAndTail(oneLine, 300, counter));
  });
});

describe('truncateOversizedResults shortens by what the result was asked for', () => {
  const meter = new MessageMeter(approximateCounter());
  const messages = (question: string): Message[] => [
    { role: 'user', parts: [{ type: 'text', text: question }] },
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'run', name: 'bash', args: { command: 'pytest -q' } }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: 'run', name: 'bash', output: testLog() }] },
  ];
  const shortened = (question: string) => {
    const input = messages(question);
    const out = truncateOversizedResults(
      input,
      input.map((message) => meter.measure(message)),
      500,
      meter,
    );
    const part = (out.messages[2] as Message).parts[0];
    return part?.type === 'tool-result' ? part.output : '';
  };

  it('keeps the module the user asked about', () => {
    expect(shortened('What happened in test_module_12?')).toContain('tests/test_module_12.py::test_case_3 PASSED');
    expect(shortened('What happened in test_module_44?')).not.toContain('tests/test_module_12.py::test_case_3');
  });
});
