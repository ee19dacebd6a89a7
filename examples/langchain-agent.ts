/**
 * LangChain.js: a `createAgent` tool loop with `contextCompressionMiddleware`. A scripted model reads files, edits
 * them and runs tests for 20 steps, and once flags results it no longer needs with `redact_tool_results`. The
 * agent's state keeps every message; the model sees a compressed view, with the system message untouched.
 * Runs offline in a few seconds.
 *
 *   npx tsx examples/langchain-agent.ts
 */
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import {
  type CompressEvent,
  contextCompressionMiddleware,
  DEFAULT_REDACTION_TOOL_NAME,
  redactionTool,
} from 'context-compression/langchain';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';

const fileText = (path: string) =>
  `// ${path}\n${Array.from(
    { length: 50 },
    (_, line) => `export function step${line}(input: Record<string, number>) { return input.total * ${line + 1}; }`,
  ).join('\n')}\n`;

const testLog = (suite: string, passed: boolean) =>
  `$ npx vitest run ${suite}\n${Array.from({ length: 40 }, (_, index) => ` ✓ ${suite} > case ${index} (3 ms)`).join('\n')}\n${
    passed
      ? ` Tests  41 passed (41)`
      : ` ✗ ${suite} > rounds half-even\n   AssertionError: expected 412.35 to be 412.34\n Tests  1 failed | 40 passed (41)`
  }`;

/** How many more runs of a suite fail before it passes. */
const failing = new Map([
  ['tests/auth', 1],
  ['tests/billing', 1],
  ['tests/api', 1],
]);

const tools = [
  tool(async ({ path }) => fileText(path), {
    name: 'read_file',
    description: 'Reads a file of the repository',
    schema: z.object({ path: z.string() }),
  }),
  tool(async ({ path }) => `edited ${path}`, {
    name: 'edit_file',
    description: 'Applies a change to a file',
    schema: z.object({ path: z.string(), change: z.string() }),
  }),
  tool(
    async ({ suite }) => {
      const failuresLeft = failing.get(suite) ?? 0;
      failing.set(suite, failuresLeft - 1);
      return testLog(suite, failuresLeft <= 0);
    },
    {
      name: 'run_tests',
      description: 'Runs a test suite and returns its log',
      schema: z.object({ suite: z.string() }),
    },
  ),
  redactionTool(),
];

// The script: one list of tool calls per model step, then the answer.
type Call = [name: string, args: Record<string, unknown>];
const read = (path: string): Call => ['read_file', { path }];
const edit = (path: string): Call => ['edit_file', { path, change: 'use half-even rounding' }];
const test = (suite: string): Call => ['run_tests', { suite }];
const script: Call[][] = [
  [read('src/auth/session.ts')],
  [read('src/auth/token.ts')],
  [test('tests/auth')],
  [read('tests/auth/session.test.ts')],
  [edit('src/auth/session.ts')],
  [test('tests/auth')],
  [
    read('src/billing/invoice.ts'),
    [DEFAULT_REDACTION_TOOL_NAME, { toolCallIds: ['call_2'], reason: 'src/auth/token.ts played no part in the fix.' }],
  ],
  [read('src/billing/tax.ts')],
  [test('tests/billing')],
  [read('src/billing/rounding.ts')],
  [edit('src/billing/rounding.ts')],
  [test('tests/billing')],
  [read('src/api/routes.ts')],
  [read('src/api/handlers.ts')],
  [edit('src/api/handlers.ts')],
  [test('tests/api')],
  [read('tests/api/handlers.test.ts')],
  [edit('src/api/handlers.ts')],
  [test('tests/api')],
  [test('tests')],
];

const model = fakeModel();
let callId = 0;
// a rough input count, as a provider reports its own; the middleware calibrates its estimates against it
const usage = (messages: BaseMessage[]) => {
  const input = Math.ceil(messages.reduce((sum, message) => sum + message.text.length, 0) / 4);
  return { input_tokens: input, output_tokens: 20, total_tokens: input + 20 };
};
for (const [index, calls] of script.entries())
  model.respond(
    (messages) =>
      new AIMessage({
        content: `Step ${index + 1}.`,
        tool_calls: calls.map(([name, args]) => ({ id: `call_${++callId}`, name, args, type: 'tool_call' as const })),
        usage_metadata: usage(messages),
      }),
  );
model.respond(
  (messages) =>
    new AIMessage({ content: 'Fixed: auth, billing and api suites pass.', usage_metadata: usage(messages) }),
);

const onCompress = (event: CompressEvent) => {
  const what = [
    event.messagesFolded > 0 && `${event.messagesFolded} messages folded`,
    event.toolResultsMasked.count > 0 && `${event.toolResultsMasked.count} results masked`,
    event.toolResultsRedacted.count > 0 &&
      `${event.toolResultsRedacted.count} result redacted (${event.toolResultsRedacted.tokensFreed} tokens)`,
  ].filter(Boolean);
  const tokens =
    event.tokensBefore === event.tokensAfter
      ? `${event.tokensAfter} tokens`
      : `${event.tokensBefore} -> ${event.tokensAfter} tokens`;
  console.log(`step ${model.callCount + 1} (${event.trigger}): ${what.join(', ')}; prompt ${tokens}`);
};

const systemPrompt = 'You are a coding agent. Fix the rounding bug; redact tool results you no longer need.';
const agent = createAgent({
  model,
  tools,
  systemPrompt,
  middleware: [contextCompressionMiddleware({ contextWindow: 8_000, onCompress })],
});

const result = await agent.invoke(
  { messages: [{ role: 'user', content: 'Invoice totals round wrong (INV-20931). Fix it and keep tests green.' }] },
  { recursionLimit: 100, configurable: { 'context-compression': { namespace: 'repo-42' } } },
);

const sent = model.calls.map((call) => call.messages.length);
const systemKept = model.calls.every((call) => call.messages[0]?.text === systemPrompt);
console.log(`\nanswer: ${result.messages.at(-1)?.text}`);
const toolResults = result.messages.filter((message) => message.type === 'tool').length;
console.log(
  `agent state: ${result.messages.length} messages, every one kept (1 user message, ${model.callCount} model answers, ${toolResults} tool results)`,
);
console.log(`model calls: ${model.callCount}; messages sent per call: ${sent.join(' ')}`);
console.log(`the system message was the same on every call: ${systemKept}`);
const state = model.calls.at(-1)?.messages[1]?.text ?? '';
console.log(
  state.includes('<session_state>')
    ? `the last call's <session_state> message starts with the awareness block: "${state.split('\n')[0]}"`
    : 'the last call had no session state',
);
