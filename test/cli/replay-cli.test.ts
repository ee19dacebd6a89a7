import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AIMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConversations, TranscriptFormatError } from '../../adapters/cli/formats.js';
import { main } from '../../adapters/cli/main.js';

/**
 * The replay command on one agent conversation written in every format it reads: each gives the same calls and the
 * same raw tokens (the formats carry the same messages), and the window makes it compress.
 */
const TURNS = 24;
const SYSTEM_TEXT = 'You are a coding agent.';
const question = 'The build of billing fails since the upgrade. Find out why and fix it.';
const fileText = (turn: number) =>
  `// src/module${turn}.ts\n${'export const total = items.reduce((a, b) => a + b.price, 0);\n'.repeat(30)}`;
const note = (turn: number) => `Module ${turn} sums the prices; nothing wrong there.`;
const args = (turn: number) => ({ path: `src/module${turn}.ts` });

const formats: Record<string, () => unknown> = {
  'AI SDK ModelMessage[]': () => [
    { role: 'system', content: SYSTEM_TEXT },
    { role: 'user', content: question },
    ...Array.from({ length: TURNS }, (_, turn) => [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'read_file', input: args(turn) }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call_${turn}`,
            toolName: 'read_file',
            output: { type: 'text', value: fileText(turn) },
          },
        ],
      },
      { role: 'assistant', content: note(turn) },
      { role: 'user', content: `Go on with module ${turn + 1}.` },
    ]).flat(),
  ],
  'AI SDK UIMessage[]': () => [
    { id: 's', role: 'system', parts: [{ type: 'text', text: SYSTEM_TEXT }] },
    { id: 'u', role: 'user', parts: [{ type: 'text', text: question }] },
    ...Array.from({ length: TURNS }, (_, turn) => [
      {
        id: `a${turn}`,
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          {
            type: 'tool-read_file',
            toolCallId: `call_${turn}`,
            state: 'output-available',
            input: args(turn),
            output: fileText(turn),
          },
          { type: 'step-start' },
          { type: 'text', text: note(turn) },
        ],
      },
      { id: `u${turn}`, role: 'user', parts: [{ type: 'text', text: `Go on with module ${turn + 1}.` }] },
    ]).flat(),
  ],
  'LangChain messages (toJSON)': () => langChainMessages().map((message) => message.toJSON()),
  'LangChain messages (stored)': () => mapChatMessagesToStoredMessages(langChainMessages()),
  'OpenAI chat messages': () => openAIMessages(),
  'OpenAI request body': () => ({ model: 'gpt-4o', messages: openAIMessages() }),
};

function langChainMessages() {
  return [
    new SystemMessage(SYSTEM_TEXT),
    new HumanMessage(question),
    ...Array.from({ length: TURNS }, (_, turn) => [
      new AIMessage({ content: '', tool_calls: [{ id: `call_${turn}`, name: 'read_file', args: args(turn) }] }),
      new ToolMessage({ content: fileText(turn), tool_call_id: `call_${turn}`, name: 'read_file' }),
      new AIMessage(note(turn)),
      new HumanMessage(`Go on with module ${turn + 1}.`),
    ]).flat(),
  ];
}

function openAIMessages() {
  return [
    { role: 'developer', content: SYSTEM_TEXT },
    { role: 'user', content: question },
    ...Array.from({ length: TURNS }, (_, turn) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${turn}`,
            type: 'function',
            function: { name: 'read_file', arguments: JSON.stringify(args(turn)) },
          },
        ],
      },
      { role: 'tool', tool_call_id: `call_${turn}`, content: fileText(turn) },
      { role: 'assistant', content: note(turn) },
      { role: 'user', content: `Go on with module ${turn + 1}.` },
    ]).flat(),
  ];
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the command; `output` is what it printed, on stdout and (errors, usage) on stderr, in order. */
async function run(...argv: string[]): Promise<{ code: number; output: string }> {
  let output = '';
  const code = await main(argv, {
    stdout: (text) => (output += text),
    error: (text) => (output += text),
    stderr: process.stderr,
  });
  return { code, output };
}

/** A cell of the table's first row (the first conversation). */
const figure = (output: string, column: number) => {
  const lines = output.split('\n');
  const header = lines.findIndex((line) => line.startsWith('conversation '));
  return lines[header + 1]?.trim().split(/\s{2,}/)[column];
};

/** The command's output on the conversation written in one format. */
async function replayFormat(name: string): Promise<{ code: number; output: string }> {
  const file = join(dir, `${name.replace(/\W+/g, '-')}.json`);
  await writeFile(file, JSON.stringify((formats[name] as () => unknown)()));
  return run('replay', file, '--window', '8000', '--quiet');
}

describe('context-compression replay', () => {
  it.each(Object.keys(formats))('reads %s and replays it call by call', async (name) => {
    const { code, output } = await replayFormat(name);
    expect(code, output).toBe(0);
    expect(output).toMatch(/calls that compressed:\n\s+call \d+ .*folded \d+ messages/);
    // one conversation; calls: the assistant turns after the first message
    expect(figure(output, 1)).toBe(`${TURNS * 2}`);
  });

  it('gives the same figures for the same conversation in every format', async () => {
    const outputs = new Map<string, string>();
    for (const name of Object.keys(formats)) outputs.set(name, (await replayFormat(name)).output);
    const raw = new Set([...outputs.values()].map((output) => figure(output, 2)));
    const sent = new Set([...outputs.values()].map((output) => figure(output, 3)));
    expect(outputs.size).toBe(Object.keys(formats).length);
    // the system text and the tool results are the same; raw tokens differ only by what a format cannot carry
    expect(raw.size, [...outputs.values()].join('\n')).toBe(1);
    expect(sent.size).toBe(1);
  });

  it('reads JSON lines: one message per line, or one conversation per line', async () => {
    const messages = formats['OpenAI chat messages']?.() as unknown[];
    const lines = join(dir, 'messages.jsonl');
    await writeFile(lines, messages.map((message) => JSON.stringify(message)).join('\n'));
    expect(figure((await run('replay', lines, '--window', '8000', '--quiet')).output, 1)).toBe(`${TURNS * 2}`);
    const sessions = join(dir, 'sessions.jsonl');
    await writeFile(
      sessions,
      ['a', 'b'].map((id) => JSON.stringify({ id, messages: messages.slice(0, 30) })).join('\n'),
    );
    const { output } = await run('replay', sessions, '--window', '8000', '--quiet');
    expect(output).toMatch(/2 conversations/);
    expect(output).toMatch(/^all\s+\d+/m);
  });

  it('a plain JSON array of chat messages (what crashed the demo) is read as chat messages', () => {
    const [conversation] = readConversations(
      JSON.stringify([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]),
      'chat.json',
    );
    expect(conversation?.prompt).toHaveLength(2);
  });

  it('writes figures.json and a chart of tokens per call with --out', async () => {
    const file = join(dir, 'chart-input.json');
    await writeFile(file, JSON.stringify(formats['AI SDK ModelMessage[]']?.()));
    const out = join(dir, 'out');
    const { code, output } = await run('replay', file, '--window', '8000', '--out', out, '--quiet');
    expect(code).toBe(0);
    expect(output).toContain(`wrote figures.json, chart.svg to ${out}`);
    const figures = JSON.parse(await readFile(join(out, 'figures.json'), 'utf8'));
    expect(figures.conversations[0].calls).toHaveLength(TURNS * 2);
    const svg = await readFile(join(out, 'chart.svg'), 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('raw history');
    expect(svg).toContain('compressed');
    // the thresholds the calls were decided against, and a mark for each fold
    const { limits } = figures.conversations[0];
    expect(limits).toEqual({ contextWindow: 8000, budget: 6000, compressAt: 4200, compressTo: 3600, hardLimit: 5100 });
    for (const label of ['budget 6000', 'hard limit 5100', 'compress at 4200', 'fold to 3600'])
      expect(svg).toContain(label);
    expect(svg).toContain('fold');
  });

  it('never draws two threshold labels on top of each other: they alternate sides, highest first', async () => {
    // the project's session at 16k: the lines 1,200 tokens apart are 10 pixels apart on this chart's scale
    const out = join(dir, 'labels');
    const session = join(import.meta.dirname, '../../examples/sessions/coding-agent.jsonl');
    const { code } = await run('replay', session, '--window', '16000', '--out', out, '--quiet');
    expect(code).toBe(0);
    const svg = await readFile(join(out, 'chart.svg'), 'utf8');
    const labels = [...svg.matchAll(/translate\(([\d.]+),([\d.]+)\)"[^>]*>(budget|hard limit|compress at|fold to) /g)];
    expect(labels.map((label) => label[3]).sort()).toEqual(['budget', 'compress at', 'fold to', 'hard limit']);
    for (const side of new Set(labels.map((label) => label[1]))) {
      const ys = labels.filter((label) => label[1] === side).map((label) => Number(label[2]));
      for (const [index, y] of ys.entries())
        for (const other of ys.slice(index + 1)) expect(Math.abs(y - other)).toBeGreaterThan(11);
    }
  }, 60_000);

  it('explains every call with --explain: its tokens against the thresholds, and why', async () => {
    const file = join(dir, 'explain-input.json');
    await writeFile(file, JSON.stringify(formats['AI SDK ModelMessage[]']?.()));
    const { code, output } = await run('replay', file, '--window', '8000', '--quiet', '--explain');
    expect(code, output).toBe(0);
    expect(output).toContain(
      'every call, against a budget of 6,000 tokens (8,000 window): compress at 4,200 (70%), fold down to 3,600 (60%), never above 5,100 (85%)',
    );
    const calls = output.split('\n').filter((line) => /^ {2}call \d+: /.test(line));
    expect(calls).toHaveLength(TURNS * 2);
    expect(calls[0]).toMatch(
      /^ {2}call 1: [\d,]+ -> [\d,]+ tokens \(\d+%\), 0 cached: below the threshold: nothing to compress$/,
    );
    // a fold says why, in the decision's words
    expect(
      calls.some((line) => /passed the 70% threshold; folded \d+ messages into the session state/.test(line)),
    ).toBe(true);
    expect(calls.some((line) => line.endsWith('as the last compression left it, grown by the new messages'))).toBe(
      true,
    );
  });

  it('names the formats it reads when a file is none of them, and exits with 1', async () => {
    const file = join(dir, 'unknown.json');
    await writeFile(file, JSON.stringify([{ speaker: 'me', text: 'hi' }]));
    const { code, output } = await run('replay', file);
    expect(code).toBe(1);
    expect(output).toMatch(/not a transcript this command reads \(message 1 has no role, type or parts\)/);
    expect(output).toMatch(/AI SDK ModelMessage\[\] or UIMessage\[\], LangChain messages .*OpenAI chat messages/);
    expect(() => readConversations('', 'empty.json')).toThrow(TranscriptFormatError);
  });

  it('explains bad arguments with the usage', async () => {
    expect((await run('replay')).output).toMatch(/no file given[\s\S]*usage: context-compression replay/);
    expect((await run('replay', 'x.json', '--window', '10')).output).toMatch(/--window must be a whole number >= 1024/);
    expect((await run('replay', 'x.json', '--summarizer', 'gpt-4o')).output).toMatch(/only "offline"/);
    expect((await run('compress', 'x.json')).code).toBe(2);
    const misspelled = await run('replay', 'x.json', '--windw', '8000');
    expect(misspelled.code).toBe(2);
    expect(misspelled.output).toMatch(/unknown option --windw: did you mean --window\?[\s\S]*usage:/);
    expect((await run('replay', 'x.json', '--zzz')).output).toMatch(/unknown option --zzz: the options are --window, /);
  });

  it('UIMessages: a stored system message with content, tool parts by state (denied, no outcome yet)', () => {
    const [conversation] = readConversations(
      JSON.stringify([
        { id: 's', role: 'system', content: 'Be brief.' },
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Deploy?' }] },
        {
          id: 'a',
          role: 'assistant',
          parts: [
            { type: 'tool-deploy', toolCallId: 'd1', state: 'output-denied', input: { env: 'prod' } },
            { type: 'tool-status', toolCallId: 's1', state: 'input-available', input: {} },
            { type: 'text', text: 'Not deployed.' },
          ],
        },
      ]),
      'ui.json',
    );
    expect(conversation?.format).toBe('AI SDK UIMessage[]');
    const prompt = conversation?.prompt ?? [];
    expect(prompt[0]).toEqual({ role: 'system', content: 'Be brief.' });
    const calls = prompt.flatMap((message) =>
      typeof message.content === 'string' ? [] : message.content.filter((part) => part.type === 'tool-call'),
    );
    // the denied call stays with its outcome; the call without one is left out
    expect(calls.map((part) => (part as { toolCallId: string }).toolCallId)).toEqual(['d1']);
    const results = prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content);
    expect(results).toEqual([
      { type: 'tool-result', toolCallId: 'd1', toolName: 'deploy', output: { type: 'execution-denied' } },
    ]);
  });

  it("names an OpenAI tool result by its call's tool", () => {
    const [conversation] = readConversations(JSON.stringify(formats['OpenAI chat messages']?.()), 'openai.json');
    const result = conversation?.prompt.find((message) => message.role === 'tool')?.content[0];
    expect(result).toMatchObject({ type: 'tool-result', toolName: 'read_file' });
  });

  it('a history the engine cannot send is one line on stderr and exit 1, not a stack trace', async () => {
    const file = join(dir, 'too-large.json');
    await writeFile(
      file,
      JSON.stringify([
        { role: 'user', content: 'x '.repeat(20_000) },
        { role: 'assistant', content: 'ok' },
      ]),
    );
    const { code, output } = await run('replay', file, '--window', '2000');
    expect(code).toBe(1);
    expect(output).toMatch(/too-large\.json: conversation 1: /);
    expect(output).not.toMatch(/\n\s+at /);
    expect((await run('replay', file, '--window', '2000', '--reserve', '1500')).output).toMatch(
      /--reserve 1500 leaves too little/,
    );
  });
});
