/**
 * `npm run bench`: speed and cost figures of the middleware, with mock models (no network).
 * 1. Overhead per call on real agent histories of 1,000 and 5,000 messages: steady state with fresh and reused
 *    objects beside JSON.parse, the first call of a conversation, the call after a compression, heap over 500 calls,
 *    a tool loop with oversized results, and the LangChain createAgent middleware (bench/overhead.ts).
 * 1b. The o200k_base tokenizers for JavaScript side by side (bench/tokenizers.ts).
 * 2. Overhead of a call that compresses, with the offline summarizer.
 * 3. Input tokens and cache-priced cost over the fixture trajectories at a 200k and a 16k window, for no compression,
 *    the published sliding-window masking, and this library's folding only, batched masking only, and both.
 * 4. Masking policies on the fixture trajectories: tokens saved against the observations needed again later.
 * 5. The worst case of counting: CJK, base64 and one repeated character beside English, per shipped counter.
 * 6. The policy per agent (the fixture sources mini-swe-agent, tau-bench, SWE-agent, and a generated agent with
 *    tools and output formats of its own, bench/agents/generic-agent.ts) beside the sliding window, with
 *    leave-one-source-out over a small grid of hiding options (bench/agents/per-source.ts).
 * 7. 5,000 conversations of 20 turns in one process: the engine's heap and the p50 / p99 of a call as they grow
 *    (bench/many-conversations.ts).
 * 8. First calls of new conversations beside counting the same texts: ~200k tokens per fixture source on a warm
 *    server and in a cold process, and one huge or pathological message early in a chat (bench/first-calls.ts).
 * 9. When the provider counts more than we do, or its window is smaller than the configured one: each fixture history
 *    resent to a new middleware where a provider counting 1x-3x first rejects it, with figures (Anthropic) or without
 *    (OpenAI's Responses API), with and without the retry (bench/provider-disagrees.ts).
 * 10. Summaries ahead of time: a 60-step agent loop per fixture source with a 1.5 s summarizer, with and without
 *    `summarizeAhead`: the steps that waited for a summary, the tokens sent and their cache-priced cost, the summaries made
 *    (bench/summaries-ahead.ts).
 * 11. The cadence of compressions in a code review as a new user runs it, at 8k, 16k and 128k: compressions, calls
 *    between them, refits, the first message's constraint in every prompt (bench/code-review.ts).
 * 12. The edge build's UTF-8 bytes counter when calls reach new instances, with and without the calibration ratios
 *    shared through the store: tokens sent, cache-priced cost, compressions, rejections (bench/edge-instances.ts).
 */

import { resolve } from 'node:path';
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { contextCompression, withContextCompression } from '../adapters/ai-sdk/index.js';
import { type ReplayResult, replaySession, totals } from '../examples/lib/replay.js';
import { fixturesDir, readSessions } from '../examples/lib/session-file.js';
import { rebuilt } from './agent-history.js';
import { genericAgentRuns } from './agents/generic-agent.js';
import { perSource } from './agents/per-source.js';
import { slidingWindowMasking } from './baselines/sliding-window-masking.js';
import { codeReviewSection } from './code-review.js';
import { edgeInstances } from './edge-instances.js';
import { firstCalls } from './first-calls.js';
import { manyConversations } from './many-conversations.js';
import { neededLater } from './needed-later.js';
import { overhead } from './overhead.js';
import { providerDisagrees } from './provider-disagrees.js';
import { format, percentile } from './stats.js';
import { summariesAhead } from './summaries-ahead.js';
import { tokenizerTable } from './tokenizers.js';
import { worstCaseCounting } from './worst-case-counting.js';

const model = new MockLanguageModelV4({ modelId: 'bench-model' });
const words =
  'the deploy pipeline reads config from src/config/app.ts and retries 3 times before it fails with TimeoutError'.split(
    ' ',
  );

function sentence(seed: number, length: number): string {
  let text = '';
  for (let index = 0; index < length; index++) text += `${words[(seed * 7 + index * 13) % words.length]} `;
  return text;
}

/** A synthetic agent history: user turns, assistant turns with tool calls, tool results. */
function history(messages: number, tokensPerMessage: number): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [{ role: 'system', content: 'You are a careful coding agent.' }];
  for (let index = 0; prompt.length <= messages; index++) {
    const text = sentence(index, Math.round(tokensPerMessage * 0.9));
    prompt.push({ role: 'user', content: [{ type: 'text', text: `Step ${index}: ${text}` }] });
    prompt.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Looking at step ${index}.` },
        {
          type: 'tool-call',
          toolCallId: `call-${index}`,
          toolName: 'read_file',
          input: { path: `src/module${index}.ts` },
        },
      ],
    });
    prompt.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call-${index}`,
          toolName: 'read_file',
          output: { type: 'text', value: text },
        },
      ],
    });
    prompt.push({
      role: 'assistant',
      content: [{ type: 'text', text: `Done with step ${index}: ${text.slice(0, 200)}` }],
    });
  }
  return prompt.slice(0, messages + 1);
}

async function transform(middleware: ReturnType<typeof contextCompression>, prompt: LanguageModelV4Prompt) {
  const params: LanguageModelV4CallOptions = { prompt };
  const started = performance.now();
  await middleware.transformParams?.({ type: 'generate', params, model });
  return performance.now() - started;
}

async function compressingCall() {
  const full = history(1_000, 260);
  const times: number[] = [];
  const warm = contextCompression({ contextWindow: 1_000_000 });
  await transform(warm, rebuilt(full));
  for (let run = 0; run < 15; run++) {
    const middleware = contextCompression({ contextWindow: 128_000 });
    times.push(await transform(middleware, rebuilt(full)));
  }
  console.log('\n2. A call that compresses (1,000 messages into a 128k window, offline summarizer, tokenizer warm)');
  console.log(
    `   median ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms over ${times.length} runs`,
  );
}

type System = { name: string; wrap: (mock: MockLanguageModelV4, contextWindow: number) => LanguageModelV4 };

const SYSTEMS: System[] = [
  { name: 'no compression', wrap: (mock) => mock },
  {
    name: 'sliding window 10',
    wrap: (mock) => wrapLanguageModel({ model: mock, middleware: slidingWindowMasking(10) }),
  },
  {
    name: 'folding only',
    wrap: (mock, contextWindow) =>
      withContextCompression(mock, { contextWindow, reserveOutputTokens: 2_000, masking: false }),
  },
  {
    name: 'batched masking',
    wrap: (mock, contextWindow) =>
      withContextCompression(mock, { contextWindow, reserveOutputTokens: 2_000, folding: false }),
  },
  {
    name: 'masking + state',
    wrap: (mock, contextWindow) => withContextCompression(mock, { contextWindow, reserveOutputTokens: 2_000 }),
  },
];

async function fixtures() {
  const dir = fixturesDir();
  if (!dir) {
    console.log('\n3. Fixture trajectories: skipped, ../shared/fixtures is not beside this checkout');
    return;
  }
  const sessions = readSessions(resolve(dir, 'trajectories.jsonl'));
  console.log(`\n3. ${sessions.length} fixture trajectories replayed step by step (one call per assistant turn)`);
  console.log(
    '   cost: cache-priced input tokens (cache read 0.1x, write 1.25x; cached = common prefix with the previous call)',
  );
  console.log('   floor: every token of each run written once at 1.25x; "x floor" = cost / floor');
  console.log(
    '   summarizer: the offline one, no model tokens to price (a model summarizer is priced in sections 10 and 11 and in bench:compare)\n',
  );
  const header = `   ${'window'.padEnd(7)} ${'system'.padEnd(18)} ${'input tokens'.padStart(13)} ${'saved'.padStart(6)} ${'peak'.padStart(7)} ${'over window'.padStart(11)} ${'prefix reuse'.padStart(12)} ${'cost'.padStart(11)} ${'x floor'.padStart(8)}`;
  console.log(header);
  for (const contextWindow of [200_000, 16_000]) {
    let baselineTokens = 0;
    for (const system of SYSTEMS) {
      const steps: ReplayResult['steps'][number][] = [];
      let cost = 0;
      let floor = 0;
      for (const session of sessions) {
        const result = await replaySession(session, (mock) => system.wrap(mock, contextWindow));
        steps.push(...result.steps);
        cost += result.cost;
        floor += result.floor;
      }
      const total = totals(steps);
      if (system.name === 'no compression') baselineTokens = total.sentTokens;
      const peak = Math.max(...steps.map((step) => step.sentTokens));
      const over = steps.filter((step) => step.sentTokens > contextWindow - 2_000).length;
      const saved = `${Math.round((1 - total.sentTokens / baselineTokens) * 100)}%`;
      console.log(
        `   ${`${contextWindow / 1000}k`.padEnd(7)} ${system.name.padEnd(18)} ${format(total.sentTokens).padStart(13)} ${saved.padStart(6)} ${format(peak).padStart(7)} ${String(over).padStart(11)} ${`${(total.prefixReuse * 100).toFixed(1)}%`.padStart(12)} ${format(cost).padStart(11)} ${`${(cost / floor).toFixed(2)}x`.padStart(8)}`,
      );
      if (system === SYSTEMS[0])
        console.log(
          `   ${''.padEnd(7)} ${'write-once floor'.padEnd(18)} ${''.padStart(13)} ${''.padStart(6)} ${''.padStart(7)} ${''.padStart(11)} ${''.padStart(12)} ${format(floor).padStart(11)} ${'1.00x'.padStart(8)}`,
        );
    }
  }
}

async function triggers() {
  const dir = fixturesDir();
  if (!dir) {
    console.log('\n4. Masking policies: skipped, ../shared/fixtures is not beside this checkout');
    return;
  }
  const sessions = readSessions(resolve(dir, 'trajectories.jsonl'));
  const contextWindow = 200_000;
  const policies: Array<{ name: string; wrap: (mock: MockLanguageModelV4) => LanguageModelV4 }> = [
    {
      name: 'budget only',
      wrap: (mock) =>
        withContextCompression(mock, {
          contextWindow,
          reserveOutputTokens: 2_000,
          masking: false,
          triggers: { semantic: false, staleness: false },
        }),
    },
    {
      name: 'sliding window 10',
      wrap: (mock) => wrapLanguageModel({ model: mock, middleware: slidingWindowMasking(10) }),
    },
    {
      name: 'batched masking',
      wrap: (mock) =>
        withContextCompression(mock, {
          contextWindow,
          reserveOutputTokens: 2_000,
          triggers: { semantic: false, staleness: false },
        }),
    },
    {
      name: 'semantic triggers',
      wrap: (mock) => withContextCompression(mock, { contextWindow, reserveOutputTokens: 2_000 }),
    },
  ];
  console.log(
    `\n4. Masking policies on the ${sessions.length} trajectories at a 200k window (nothing is forced by the budget)`,
  );
  console.log(
    '   needed later: of the observations a policy hid, the share whose rare content the agent used again later\n',
  );
  console.log(
    `   ${'policy'.padEnd(18)} ${'input tokens'.padStart(13)} ${'saved'.padStart(6)} ${'prefix reuse'.padStart(12)} ${'x floor'.padStart(8)} ${'hidden'.padStart(7)} ${'needed later'.padStart(13)}`,
  );
  let baseline = 0;
  for (const policy of policies) {
    const steps: ReplayResult['steps'][number][] = [];
    let cost = 0;
    let floor = 0;
    let hidden = 0;
    let needed = 0;
    for (const session of sessions) {
      let mock: MockLanguageModelV4 | undefined;
      const result = await replaySession(session, (recording) => {
        mock = recording;
        return policy.wrap(recording);
      });
      steps.push(...result.steps);
      cost += result.cost;
      floor += result.floor;
      const rate = neededLater(session, mock?.doGenerateCalls.map((call) => call.prompt) ?? []);
      hidden += rate.hidden;
      needed += rate.neededLater;
    }
    const total = totals(steps);
    if (policy === policies[0]) baseline = total.sentTokens;
    console.log(
      `   ${policy.name.padEnd(18)} ${format(total.sentTokens).padStart(13)} ${`${Math.round((1 - total.sentTokens / baseline) * 100)}%`.padStart(6)} ${`${(total.prefixReuse * 100).toFixed(1)}%`.padStart(12)} ${`${(cost / floor).toFixed(2)}x`.padStart(8)} ${String(hidden).padStart(7)} ${`${needed}/${hidden} = ${(hidden ? needed / hidden : 0).toFixed(3)}`.padStart(13)}`,
    );
  }
}

/** Section 6 on the fixture trajectories and the generated agent's runs; on the generated runs alone without fixtures. */
async function perSourceSection() {
  const dir = fixturesDir();
  if (!dir) console.log('\n6. Per source: ../shared/fixtures is not beside this checkout, the generated agent only');
  await perSource([...(dir ? readSessions(resolve(dir, 'trajectories.jsonl')) : []), ...genericAgentRuns()]);
}

/** Sections 1 and 1b read the fixture trajectories; without them they say so and the rest runs. */
async function overheadAndTokenizers() {
  const dir = fixturesDir();
  if (!dir) {
    console.log('1. Overhead per call and 1b. tokenizers: skipped, ../shared/fixtures is not beside this checkout');
    return;
  }
  const sessions = readSessions(resolve(dir, 'trajectories.jsonl'));
  await overhead(sessions);
  tokenizerTable(sessions);
}

/** Section 7 on the texts of the public conversations, or on synthetic sentences when they are absent. */
async function manyConversationsSection(): Promise<void> {
  const dir = fixturesDir();
  const texts = dir
    ? readSessions(resolve(dir, 'conversations.jsonl')).flatMap((session) =>
        session.messages.map((message) => message.content),
      )
    : Array.from({ length: 500 }, (_unused, index) => sentence(index, 30));
  await manyConversations(texts);
}

/** Section 10 reads the fixture trajectories; without them it says so. */
async function summariesAheadSection() {
  const dir = fixturesDir();
  if (!dir) {
    console.log('\n10. Summaries ahead of time: skipped, ../shared/fixtures is not beside this checkout');
    return;
  }
  await summariesAhead(readSessions(resolve(dir, 'trajectories.jsonl')));
}

/** `npm run bench -- --only 1,3` runs some sections; all of them by default. */
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1]?.split(',') : undefined;
const runs = (section: string) => !only || only.includes(section);

console.log(`context-compression benchmark, node ${process.version}\n`);
if (runs('1')) await overheadAndTokenizers();
if (runs('2')) await compressingCall();
if (runs('3')) await fixtures();
if (runs('4')) await triggers();
if (runs('5')) worstCaseCounting();
if (runs('6')) await perSourceSection();
if (runs('7')) await manyConversationsSection();
if (runs('8')) await firstCalls();
if (runs('9')) await providerDisagrees();
if (runs('10')) await summariesAheadSection();
if (runs('11')) await codeReviewSection();
if (runs('12')) await edgeInstances();
