import type { ModelMessage } from 'ai';
import { expect, vi } from 'vitest';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { approximateCounter } from '../../src/counting/token-counter.js';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { DEFAULT_AWARENESS_BLOCK } from '../../src/options/prompts.js';
import type { CompressEvent, CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import { type Message, messageText } from '../../src/transcript/transcript.js';

/** Shared transcripts and an engine harness for the engine tests: contextWindow 4_000, reserve 500. */
export const BUDGET = 3_500; // contextWindow 4_000 - reserveOutputTokens 500
export const text = (role: Message['role'], body: string): Message => ({ role, parts: [{ type: 'text', text: body }] });
export const SYSTEM = [text('system', 'You are a careful assistant. Answer briefly.')];

/** A chat of `count` messages alternating user/assistant (odd counts end with a user message), ~58 tokens each. */
export const chat = (count: number): Message[] =>
  Array.from({ length: count }, (_, i) => text(i % 2 ? 'assistant' : 'user', `Message ${i}: ${'word '.repeat(40)}`));

/** An agent loop: one task, then `steps` assistant messages with two parallel calls and one tool message each. */
/** An assistant step that makes one tool call. */
export const callOf = (id: string, name: string, args: unknown): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', id, name, args }],
});
/** The tool message with the result of one call. */
export const resultOf = (id: string, name: string, output: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool-result', callId: id, name, output }],
});
/** About 500 tokens of a file, each line different. */
export const fileText = (name: string) =>
  Array.from({ length: 60 }, (_, line) => `${name} line ${line}: export const value${line} = ${line};`).join('\n');

/** One agent step: a file read and its result, `lines` lines of code (about 228 tokens at the default 40). */
export const readStep = (index: number, lines = 40): Message[] => [
  callOf(`read-${index}`, 'read_file', { path: `src/m${index}.ts` }),
  resultOf(`read-${index}`, 'read_file', `// m${index}\n${`export const v${index} = ${index};\n`.repeat(lines)}`),
];

/** A user asks for a file, the assistant reads it and answers, the user thanks it: one tool call and its result. */
export const readOneFile = (): Message[] => [
  text('user', 'Read the file.'),
  callOf('r1', 'read_file', { path: 'a.ts' }),
  resultOf('r1', 'read_file', 'const a = 1;'),
  text('assistant', 'Read it.'),
  text('user', 'Thanks.'),
];

export function agentLoop(steps: number, outputChars = 300): Message[] {
  const messages = [text('user', 'Fix the failing test in src/app.ts.')];
  for (let i = 0; i < steps; i++) {
    messages.push({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: `thinking about step ${i}` },
        { type: 'tool-call', id: `read-${i}`, name: 'read', args: { path: `src/f${i}.ts` } },
        { type: 'tool-call', id: `grep-${i}`, name: 'grep', args: { query: `x${i}` } },
      ],
    });
    messages.push({
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: `read-${i}`,
          name: 'read',
          output: `content of f${i} `.repeat(outputChars / 15),
        },
        { type: 'tool-result', callId: `grep-${i}`, name: 'grep', output: `src/f${i}.ts:1: x${i}` },
      ],
    });
  }
  return messages;
}

export const meter = new MessageMeter(approximateCounter());
export const tokens = (messages: readonly Message[]) => messages.reduce((sum, m) => sum + meter.measure(m).tokens, 0);
export const promptTokens = (out: CompressOutput) => tokens([...out.system, ...out.messages]);
export const inputTokens = (messages: readonly Message[]) =>
  tokens([...SYSTEM, text('system', DEFAULT_AWARENESS_BLOCK), ...messages]);
/** A plain chat as AI SDK messages: user messages as users, every other message as assistant text. */
export const chatModelMessages = (messages: readonly Message[]): ModelMessage[] =>
  messages.map((message) =>
    message.role === 'user'
      ? { role: 'user', content: messageText(message) }
      : { role: 'assistant', content: messageText(message) },
  );
export const real = (out: CompressOutput) => out.messages.filter((message) => !message.synthetic);

export function setup(options: CompressionOptions = {}) {
  const summarize = vi.fn(
    async ({ messages, previous }: SummarizeInput): Promise<SessionState> => ({
      logos: [...(previous?.logos ?? []), `folded ${messages.length} messages`],
      pathos: [],
      abstract: [],
      conversationSummary: 'Earlier turns were condensed.',
    }),
  );
  const events: CompressEvent[] = [];
  const errors: CompressionErrorEvent[] = [];
  const engine = new CompressionEngine({
    contextWindow: 4_000,
    reserveOutputTokens: 500,
    tokenCounter: approximateCounter(),
    // these suites test the budget, masking and redaction mechanics alone; triggers have their own tests
    triggers: { semantic: false, staleness: false },
    summarizer: summarize,
    onCompress: (event) => events.push(event),
    onError: (event) => errors.push(event),
    ...options,
  });
  const run = (messages: readonly Message[], extra: { namespace?: string; force?: boolean } = {}) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model', ...extra });
  return { engine, summarize, events, errors, run };
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Each element of `actual` is the very object at the same index of `expected` (compares identity, not content). */
export function expectSameObjects(actual: readonly unknown[], expected: readonly unknown[]): void {
  expect(actual).toHaveLength(expected.length);
  for (let index = 0; index < actual.length; index++) expect(actual[index]).toBe(expected[index]);
}
