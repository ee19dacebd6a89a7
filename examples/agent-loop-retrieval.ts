/**
 * A tool loop with the retrieval tool: the model reads a dozen log files at a small window, so the older results are
 * masked; then it needs the first one again, exactly. Instead of running the tool again it calls the retrieval tool,
 * which the placeholder names, and gets the original text back at the end of the prompt. Runs offline with a
 * scripted mock model.
 *
 *   npx tsx examples/agent-loop-retrieval.ts
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { retrievalTool, withContextCompression } from 'context-compression/ai-sdk';
import { z } from 'zod';
import { scriptedStep as step } from './lib/scripted-step.js';

const log = (day: number) =>
  Array.from(
    { length: 40 },
    (_, line) =>
      `2026-11-${String(day).padStart(2, '0')} 10:${String(line).padStart(2, '0')} job-${day} step ${line} ok`,
  ).join('\n');
const READS = 10;

// the scripted model: read ten daily logs, then ask for the first one back through the tool its placeholder names
const script = [
  ...Array.from({ length: READS }, (_, day) =>
    step(`Reading the log of day ${day + 1}.`, [[`read-${day + 1}`, 'read_log', { day: day + 1 }]]),
  ),
  step('The first log matters again; getting it back as it was.', [
    ['recall-1', 'recall', { toolCallIds: ['read-1'] }],
  ]),
  step('Day 1 ran job-1 steps 0 to 39, all ok.'),
];
const mock = new MockLanguageModelV4({ modelId: 'gpt-4o', doGenerate: async () => script.shift() ?? step('Done.') });

const model = withContextCompression(mock, {
  contextWindow: 8_000,
  reserveOutputTokens: 500,
  masking: { keepRecent: 3, clearAtLeast: 500 },
  onCompress: (event) =>
    console.log(
      `[compression] masked ${event.toolResultsMasked.count} results, ${event.tokensBefore} -> ${event.tokensAfter} tokens`,
    ),
});

const result = await generateText({
  model,
  prompt: 'What did the job of day 1 do?',
  tools: {
    read_log: tool({
      description: 'Reads the job log of a day',
      inputSchema: z.object({ day: z.number() }),
      execute: async ({ day }) => log(day),
    }),
    recall: retrievalTool(),
  },
  stopWhen: isStepCount(READS + 3),
});

const resultOf = (prompt: LanguageModelV4Prompt, id: string) => {
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolCallId === id)
        return part.output.type === 'text' ? part.output.value : JSON.stringify(part.output);
    }
  }
  return '';
};
const prompts = mock.doGenerateCalls.map((call) => call.prompt);
const before = prompts.at(-2) ?? [];
const after = prompts.at(-1) ?? [];
console.log(`\nread-1 as the model saw it before recalling:\n  ${resultOf(before, 'read-1')}`);
const recalled = resultOf(after, 'recall-1');
console.log(`\nthe retrieval tool's answer (first lines):\n  ${recalled.split('\n').slice(0, 4).join('\n  ')}`);
console.log(`\nverbatim: ${recalled.includes(log(1))}`);
console.log(
  `prefix unchanged: ${JSON.stringify(after.slice(0, before.length)) === JSON.stringify(before)} (${before.length} messages)`,
);
console.log(`\nanswer: ${result.text}`);
