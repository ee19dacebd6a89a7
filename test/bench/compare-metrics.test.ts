import { describe, expect, it } from 'vitest';
import { contentWords, invalidReasons, retained } from '../../bench/compare/metrics.js';
import type { Message, Transcript } from '../../src/transcript/transcript.js';

const text = (role: Message['role'], value: string): Message => ({ role, parts: [{ type: 'text', text: value }] });
const transcript = (messages: Message[], system = 'You are helpful.'): Transcript => ({
  system: [text('system', system)],
  messages,
  tools: [],
});

describe('comparison metrics', () => {
  it('finds evidence verbatim, or by 80% of its content words in one unit, never across units', () => {
    const evidence = 'Caroline: I went to the LGBTQ support group yesterday and it was so powerful.';
    const units = (texts: string[]) => texts.map((value) => ({ text: value, words: contentWords(value) }));
    expect(retained(evidence, units([`before ${evidence} after`]))).toBe(true);
    expect(retained(evidence, units(['Caroline went to an LGBTQ support group yesterday; powerful.']))).toBe(true);
    expect(retained(evidence, units(['Caroline went to a support group.', 'LGBTQ yesterday powerful went']))).toBe(
      false,
    );
    expect(retained(evidence, units(['Melanie painted a lake at sunrise.']))).toBe(false);
  });

  it('flags orphan tool results, empty messages and a changed system prompt, not an empty tool output', () => {
    const call: Message = { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'ls', args: {} }] };
    const result: Message = { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name: 'ls', output: '' }] };
    expect(invalidReasons(transcript([text('user', 'hi'), call, result]), 'You are helpful.')).toEqual([]);
    expect(invalidReasons(transcript([text('user', 'hi'), result]), 'You are helpful.')).toEqual([
      'orphan tool call or result',
    ]);
    expect(invalidReasons(transcript([text('user', ''), text('assistant', 'ok')]), 'You are helpful.')).toEqual([
      'empty message',
    ]);
    expect(invalidReasons(transcript([text('user', 'hi')], 'Changed.'), 'You are helpful.')).toEqual([
      'system prompt changed',
    ]);
  });
});
