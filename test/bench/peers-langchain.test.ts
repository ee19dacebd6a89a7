import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { langChainPeers } from '../../bench/compare/peers-langchain.js';
import type { History, System } from '../../bench/compare/types.js';
import { MessageMeter } from '../../src/counting/message-meter.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import type { Transcript } from '../../src/transcript/transcript.js';
import { benchSetup } from '../helpers/bench-setup.js';

const TURNS = 40;

function fileText(turn: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 30; line++)
    lines.push(
      `${line}: export function handler${turn}_${line}(request) { return compute(${turn * 31 + line}, 'k${line}'); }`,
    );
  return lines.join('\n');
}

/** A system prompt and 40 turns (ask, tool call, long tool result, answer); every message with an id. */
function session(): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage({ content: 'You are a careful coding agent.', id: 'system' })];
  for (let turn = 0; turn < TURNS; turn++) {
    messages.push(new HumanMessage({ content: `Please read src/file${turn}.ts and explain it.`, id: `h${turn}` }));
    messages.push(
      new AIMessage({
        content: '',
        id: `c${turn}`,
        tool_calls: [{ id: `call${turn}`, name: 'read_file', args: { path: `src/file${turn}.ts` } }],
      }),
    );
    messages.push(
      new ToolMessage({ content: fileText(turn), id: `t${turn}`, tool_call_id: `call${turn}`, name: 'read_file' }),
    );
    messages.push(new AIMessage({ content: `file${turn} defines 30 handlers.`, id: `a${turn}` }));
  }
  return messages;
}

/** Histories before each assistant message, growing by appending and reusing the same objects. */
function histories(base: readonly BaseMessage[]): History[] {
  const calls: History[] = [];
  base.forEach((message, index) => {
    if (message.getType() === 'ai') calls.push({ instructions: undefined, model: [], base: base.slice(0, index) });
  });
  return calls;
}

const setup = benchSetup;

const meter = new MessageMeter(tiktokenCounter());
const tokens = (prompt: Transcript) =>
  [...prompt.system, ...prompt.messages].reduce((sum, message) => sum + meter.measure(message).tokens, 0);

function peer(name: string): System {
  const found = langChainPeers().find((system) => system.name.includes(name));
  if (!found) throw new Error(`no peer ${name}`);
  return found;
}

async function replay(name: string) {
  const base = session();
  const snapshot = JSON.stringify(base);
  const objects = [...base];
  const calls = histories(base);
  const config = setup();
  const run = peer(name).create(config);
  const prompts: Transcript[] = [];
  for (const history of calls) prompts.push(await run.call(history));
  expect(JSON.stringify(base)).toBe(snapshot);
  expect(base.every((message, index) => message === objects[index])).toBe(true);
  const full = tokens(
    (await peer('trimMessages')
      .create({ ...config, budget: 1e9 })
      .call(calls.at(-1) as History)) as Transcript,
  );
  return { prompts, config, full };
}

const toolOutputs = (prompt: Transcript) =>
  prompt.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-result' ? [part] : [])));

describe('LangChain peers', () => {
  it('summarizationMiddleware calls the stand-in and shrinks the prompt below the full history', async () => {
    const { prompts, config, full } = await replay('summarization');
    expect(full).toBeGreaterThan(config.budget);
    expect(config.summarizerCalls.count).toBeGreaterThan(0);
    // its summarizer priced as a provider bills it: every request holds the messages it summarizes, and an answer
    expect(config.summarizerCalls.inputTokens).toBeGreaterThan(config.summarizerCalls.count * 100);
    expect(config.summarizerCalls.outputTokens).toBeGreaterThan(0);
    expect(config.summarizerCalls.outputTokens).toBeLessThan(config.summarizerCalls.inputTokens);
    const last = prompts.at(-1) as Transcript;
    expect(tokens(last)).toBeLessThan(full);
    expect(last.system).toHaveLength(1);
    const first = last.messages[0]?.parts[0];
    expect(first?.type === 'text' && first.text.startsWith('Here is a summary of the conversation to date')).toBe(true);
    // triggered at 70% of the budget and cut back to 60%, so no prompt gets far past the trigger
    for (const prompt of prompts) expect(tokens(prompt)).toBeLessThan(config.budget);
  });

  it('contextEditingMiddleware replaces old tool results with its placeholder, and the clears persist', async () => {
    const { prompts, config } = await replay('contextEditing');
    const last = prompts.at(-1) as Transcript;
    const outputs = toolOutputs(last);
    expect(outputs).toHaveLength(TURNS);
    expect(outputs.filter((part) => part.output === '[cleared]').length).toBeGreaterThan(TURNS / 2);
    expect(outputs.slice(-3).every((part) => part.output !== '[cleared]')).toBe(true);
    expect(tokens(last)).toBeLessThan(config.budget);
    // a result cleared once stays cleared: the edit lives in the agent state
    let cleared = new Set<string>();
    for (const prompt of prompts) {
      const now = new Set(toolOutputs(prompt).flatMap((part) => (part.output === '[cleared]' ? [part.callId] : [])));
      for (const id of cleared) expect(now.has(id)).toBe(true);
      cleared = now;
    }
  });

  it('trimMessages keeps every prompt under budget, system first, then a human message', async () => {
    const { prompts, config, full } = await replay('trimMessages');
    expect(full).toBeGreaterThan(config.budget);
    for (const prompt of prompts) {
      expect(tokens(prompt)).toBeLessThanOrEqual(config.budget);
      expect(prompt.system).toHaveLength(1);
      expect(prompt.messages[0]?.role).toBe('user');
    }
    expect(prompts.at(-1)?.messages.length).toBeLessThan((histories(session()).at(-1)?.base.length ?? 0) - 1);
  });

  it('trimMessages fails clearly when no human message fits (one task message, then tool turns)', async () => {
    const task = session().filter((message) => message.getType() !== 'human' || message.id === 'h0');
    const run = peer('trimMessages').create(setup());
    await expect(run.call({ instructions: undefined, model: [], base: task })).rejects.toThrow(
      /LangChain trimMessages failed: no human message fits in 7000 tokens/,
    );
  });
});
