/**
 * A tool loop with observation masking and the redaction tool: the model reads files, and when it no longer needs a
 * result it says so with `redact_tool_results`, in parallel with its next call. From the next step on that result
 * is replaced by the model's reason; the call stays. Runs offline with a scripted mock model.
 *
 *   npx tsx examples/agent-loop-redaction.ts
 */
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { DEFAULT_REDACTION_TOOL_NAME, redactionTool, withContextCompression } from 'context-compression/ai-sdk';
import { z } from 'zod';
import { scriptedStep as step } from './lib/scripted-step.js';

const files: Record<string, string> = {
  'src/config.ts': `export const config = {\n  retries: 3,\n  timeoutMs: 2_500,\n${'  // tuning notes\n'.repeat(120)}};\n`,
  'src/client.ts': `import { config } from './config';\n${'export async function call() { /* ... */ }\n'.repeat(80)}`,
};

// the scripted model: read both files, then drop the config file it has already used, then answer
const script = [
  step('Reading the config.', [['read-1', 'read_file', { path: 'src/config.ts' }]]),
  step('Retries are 3 and the timeout 2,500 ms. Now the client; the config text is no longer needed.', [
    ['read-2', 'read_file', { path: 'src/client.ts' }],
    [
      'redact-1',
      DEFAULT_REDACTION_TOOL_NAME,
      {
        toolCallIds: ['read-1'],
        reason: 'Noted retries=3 and timeoutMs=2500 from src/config.ts; the rest is not needed.',
      },
    ],
  ]),
  step('The client reads config.retries (3) and config.timeoutMs (2,500).'),
];
const mock = new MockLanguageModelV4({ modelId: 'gpt-4o', doGenerate: async () => script.shift() ?? step('Done.') });

const model = withContextCompression(mock, {
  onCompress: (event) =>
    console.log(
      `[compression] ${event.decisions.map((decision) => `${decision.trigger}: ${decision.details}`).join('; ')}`,
    ),
});

const result = await generateText({
  model,
  instructions: 'You are a coding agent. Redact tool results you no longer need.',
  prompt: 'How does the client use the config?',
  tools: {
    read_file: tool({
      description: 'Reads a file of the repository',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => files[path] ?? `error: ${path} not found`,
    }),
    [DEFAULT_REDACTION_TOOL_NAME]: redactionTool(),
  },
  stopWhen: isStepCount(5),
});

console.log(`\nanswer: ${result.text}\n`);
const last = mock.doGenerateCalls.at(-1)?.prompt ?? [];
for (const message of last) {
  if (message.role !== 'tool') continue;
  for (const part of message.content) {
    if (part.type !== 'tool-result') continue;
    const text = part.output.type === 'text' ? part.output.value : JSON.stringify(part.output);
    console.log(
      `${part.toolCallId} (${part.toolName}) as the model saw it in the last step:\n  ${text.slice(0, 200).replace(/\n/g, '\n  ')}${text.length > 200 ? ' ...' : ''}`,
    );
  }
}
