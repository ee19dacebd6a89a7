import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { toTranscript } from '../../adapters/ai-sdk/to-transcript.js';
import { aiSdkPeers } from '../../bench/compare/peers-ai-sdk.js';
import type { History, Setup, System } from '../../bench/compare/types.js';
import { recordingModel } from '../../examples/lib/replay.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import type { Transcript } from '../../src/transcript/transcript.js';
import { benchSetup } from '../helpers/bench-setup.js';

const INSTRUCTIONS = 'You are a careful coding agent. Read files before editing them and keep answers short.';

/** A distinct file body of about 500 tokens. */
const fileBody = (i: number) =>
  Array.from(
    { length: 40 },
    (_, line) => `export const value${i}_${line} = compute(${i * 31 + line}, 'm${i}-${line}'); // line ${line}`,
  ).join('\n');

/** 40 tasks: user asks, assistant reasons and reads a file, the tool answers, the assistant reports. */
function conversation(): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let i = 0; i < 40; i++) {
    messages.push({ role: 'user', content: `Task ${i}: check module m${i} and report what it exports.` });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: `Module m${i} must be read first.` },
        { type: 'text', text: `Reading src/m${i}.ts.` },
        { type: 'tool-call', toolCallId: `call-${i}`, toolName: 'read_file', input: { path: `src/m${i}.ts` } },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call-${i}`,
          toolName: 'read_file',
          output: { type: 'text', value: fileBody(i) },
        },
      ],
    });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Module m${i} exports value${i}_0 to 39.` }] });
  }
  return messages;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

const full = deepFreeze(conversation());
const snapshot = JSON.stringify(full);
/** One call before every assistant message, on histories sharing the same message objects. */
const histories: History[] = full.flatMap((message, end) =>
  message.role === 'assistant' ? [{ instructions: INSTRUCTIONS, model: full.slice(0, end), base: [] }] : [],
);

const meter = new MessageMeter(tiktokenCounter());
const tokens = (transcript: Transcript) =>
  [...transcript.system, ...transcript.messages].reduce((sum, message) => sum + meter.measure(message).tokens, 0);
const partsOf = (transcript: Transcript, type: string) =>
  transcript.messages.flatMap((message, index) => message.parts.filter((part) => part.type === type).map(() => index));

const setup = benchSetup;

/** The prompt without any system in between: what every history costs in full. */
async function fullPrompt(history: History): Promise<Transcript> {
  const mock = recordingModel();
  await generateText({ model: mock, instructions: history.instructions, messages: [...history.model] });
  return toTranscript(mock.doGenerateCalls[0]?.prompt ?? [], undefined);
}

async function replay(system: System, at: Setup) {
  const run = system.create(at);
  const steps: { sent: Transcript; full: Transcript; summaries: number }[] = [];
  for (const history of histories) {
    const sent = await run.call(history);
    steps.push({ sent, full: await fullPrompt(history), summaries: at.summarizerCalls.count });
  }
  return steps;
}

const peer = (name: string) => {
  const system = aiSdkPeers().find((candidate) => candidate.name === name);
  if (!system) throw new Error(`no system ${name}`);
  return system;
};

describe('AI SDK peers', () => {
  it('name and configure every system on one line', () => {
    const systems = aiSdkPeers();
    expect(systems.map((system) => system.name)).toEqual([
      'AI SDK pruneMessages',
      'context-chef (in-flight)',
      'context-chef (persisted)',
    ]);
    for (const system of systems) expect(system.config).not.toMatch(/\n/);
  });

  it('pruneMessages drops old tool calls, results and reasoning, keeps the text and the system prompt', async () => {
    const at = setup();
    const steps = await replay(peer('AI SDK pruneMessages'), at);
    const last = steps.at(-1);
    if (!last) throw new Error('no steps');
    const count = last.sent.messages.length;
    expect(partsOf(last.full, 'tool-result').length).toBe(40);
    // tool parts survive only in the last two messages; reasoning only in the last message
    expect(partsOf(last.sent, 'tool-call').every((index) => index >= count - 2)).toBe(true);
    expect(partsOf(last.sent, 'tool-result').every((index) => index >= count - 2)).toBe(true);
    expect(partsOf(last.sent, 'tool-result').length).toBe(1);
    expect(partsOf(last.sent, 'reasoning').every((index) => index === count - 1)).toBe(true);
    expect(JSON.stringify(last.sent.messages.map((message) => message.parts))).toContain('Module m0 exports');
    expect(last.sent.system.map((message) => message.parts[0])).toMatchObject([{ text: INSTRUCTIONS }]);
    expect(tokens(last.sent)).toBeLessThan(tokens(last.full) / 5);
    expect(at.summarizerCalls.count).toBe(0);
  });

  it('context-chef in-flight sends the full history under budget, summarizes over it, and re-expands after', async () => {
    const at = setup();
    const steps = await replay(peer('context-chef (in-flight)'), at);
    const first = steps.findIndex((step) => step.summaries > 0);
    expect(first).toBeGreaterThan(0);
    for (const step of steps.slice(0, first)) expect(tokens(step.sent)).toBe(tokens(step.full));
    expect(tokens(steps[first - 1]?.full as Transcript)).toBeLessThanOrEqual(at.budget);
    const compressed = steps.filter((step) => tokens(step.sent) < tokens(step.full));
    expect(compressed.length).toBeGreaterThan(10);
    for (const step of compressed) {
      expect(tokens(step.sent)).toBeLessThanOrEqual(at.budget);
      expect(JSON.stringify(step.sent.messages[0]?.parts)).toContain('This session is being continued');
    }
    // the documented in-flight limit: the call after a compression is not checked and re-sends the whole history
    expect(steps.some((step) => tokens(step.full) > at.budget && tokens(step.sent) === tokens(step.full))).toBe(true);
    // a summary that fails its shrink guard costs a call without compressing
    expect(at.summarizerCalls.count).toBeGreaterThanOrEqual(compressed.length);
  });

  it('context-chef persisted compacts its own store once over budget and stays compact', async () => {
    const at = setup();
    const steps = await replay(peer('context-chef (persisted)'), at);
    const first = steps.findIndex((step) => step.summaries > 0);
    expect(first).toBeGreaterThan(0);
    for (const step of steps.slice(0, first)) expect(tokens(step.sent)).toBe(tokens(step.full));
    for (const step of steps.slice(first)) {
      expect(tokens(step.sent)).toBeLessThan(tokens(step.full));
      expect(tokens(step.sent)).toBeLessThanOrEqual(at.budget);
      expect(JSON.stringify(step.sent.messages[0]?.parts)).toContain('This session is being continued');
    }
    expect(at.summarizerCalls.count).toBeGreaterThan(1);
    expect(at.summarizerCalls.count).toBeLessThan(steps.length - first);
  });

  it('leaves the shared history untouched', async () => {
    for (const system of aiSdkPeers()) await replay(system, setup());
    expect(JSON.stringify(full)).toBe(snapshot);
  });
});
