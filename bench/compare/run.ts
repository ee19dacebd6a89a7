/**
 * `npm run bench:compare`: this project against its peers, side by side, in one run, on every trajectory and
 * conversation of ../shared/fixtures. Writes bench/RESULTS.md, bench/results.json and bench/chart.svg.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { toTranscript as langChainTranscript } from '../../adapters/langchain/to-transcript.js';
import { fixturesDir } from '../../examples/lib/session-file.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { DEFAULT_COMPRESS_AT, DEFAULT_COMPRESS_TO, DEFAULT_HARD_LIMIT } from '../../src/options/compression-options.js';
import { promptChart } from './chart.js';
import { loadFixtures, prepare, type Replay } from './data.js';
import { measure, sumTokens } from './metrics.js';
import { aiSdkPeers } from './peers-ai-sdk.js';
import { langChainPeers } from './peers-langchain.js';
import { floorCost, replaySystem } from './replay-system.js';
import { type DataSet, percentile, resultsMarkdown, type SystemFigures, totals } from './report.js';
import { ownSystems } from './systems.js';
import type { Setup, System } from './types.js';

const benchDir = resolve(import.meta.dirname, '..');
const dir = fixturesDir();
if (!dir) {
  console.log('bench:compare needs ../shared/fixtures beside this checkout; it is not there, so nothing was measured.');
  process.exit(0);
}
const { trajectories, conversations } = loadFixtures(dir);
/** `--only <part of a name>` (repeatable) runs just those systems and prints the tables without writing files. */
const only = process.argv.flatMap((arg, index) => (process.argv[index - 1] === '--only' ? [arg.toLowerCase()] : []));
const systems: System[] = [...ownSystems(), ...langChainPeers(), ...aiSdkPeers()].filter(
  (system) =>
    only.length === 0 ||
    system.name === 'no compression' ||
    only.some((part) => system.name.toLowerCase().includes(part)),
);
const counter = tiktokenCounter();

/** Tokens of a session's whole history (the no-compression prompt at its last call, question included). */
function fullTokens(replay: Replay): number {
  const last = replay.questionTime ?? replay.calls.at(-1);
  return last ? sumTokens(measure(langChainTranscript([...last.base]))) : 0;
}

const reserveFor = (window: number) => Math.min(4_000, Math.round(window * 0.1));

interface Plan {
  name: string;
  replays: Replay[];
  windowOf: (replay: Replay) => number;
  windowLabel: string;
}

const trajectoryReplays = trajectories.map((session) => prepare(session, false));
const conversationReplays = conversations.map((session) => prepare(session, true));
const conversationTokens = new Map(conversationReplays.map((replay) => [replay, fullTokens(replay)]));
const plans: Plan[] = [
  { name: 'trajectories', replays: trajectoryReplays, windowOf: () => 200_000, windowLabel: '200k' },
  { name: 'trajectories', replays: trajectoryReplays, windowOf: () => 16_000, windowLabel: '16k' },
  {
    name: 'conversations',
    replays: conversationReplays,
    windowOf: (replay) => Math.round((conversationTokens.get(replay) ?? 0) * 0.25),
    windowLabel: '25% of each conversation',
  },
  {
    name: 'conversations',
    replays: conversationReplays,
    windowOf: (replay) => Math.round((conversationTokens.get(replay) ?? 0) * 0.5),
    windowLabel: '50% of each conversation',
  },
];

const totalCalls =
  plans.reduce(
    (sum, plan) =>
      sum + plan.replays.reduce((inner, replay) => inner + replay.calls.length + (replay.questionTime ? 1 : 0), 0),
    0,
  ) * systems.length;
const bar = new SingleBar({ format: 'bench:compare [{bar}] {percentage}% | {value}/{total} calls | {system}' });
bar.start(totalCalls, 0, { system: '' });

/** Prompt tokens per step of each system on the longest trajectory at 16k, for the chart. */
const longest = [...trajectoryReplays].sort((a, b) => b.calls.length - a.calls.length)[0];
const chartSeries: { system: string; step: number; tokens: number }[] = [];
const dataSets: DataSet[] = [];

for (const plan of plans) {
  const figures: SystemFigures[] = [];
  const floors = new Map(plan.replays.map((replay) => [replay.session.id, floorCost(fullTokens(replay))]));
  for (const system of systems) {
    const row: SystemFigures = {
      system: system.name,
      config: system.config,
      sessions: {},
      failures: [],
    };
    for (const replay of plan.replays) {
      const contextWindow = plan.windowOf(replay);
      const setup: Setup = {
        contextWindow,
        reserveOutputTokens: reserveFor(contextWindow),
        budget: contextWindow - reserveFor(contextWindow),
        tokenCounter: counter,
        summarizerCalls: {
          count: 0,
          inputTokens: 0,
          outputTokens: 0,
          maxChars: Math.min(12_000, Math.round((contextWindow - reserveFor(contextWindow)) * 0.6)),
        },
      };
      try {
        const session = await replaySystem(system, replay, setup, () => bar.increment(1, { system: system.name }));
        row.sessions[replay.session.id] = { ...session, floor: floors.get(replay.session.id) ?? 0 };
        if (plan.windowLabel === '16k' && replay === longest)
          for (const [step, tokens] of session.tokensPerCall.entries())
            chartSeries.push({ system: system.name, step, tokens });
      } catch (error) {
        row.failures.push(
          `${replay.session.id}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        );
      }
    }
    figures.push(row);
  }
  dataSets.push({ name: plan.name, window: plan.windowLabel, sessions: plan.replays.length, figures });
}
bar.stop();

const date = new Date().toISOString().slice(0, 10);
if (only.length === 0) {
  writeFileSync(
    resolve(benchDir, 'RESULTS.md'),
    resultsMarkdown(dataSets, { date, node: process.version, longest: longest?.session.id ?? '' }),
  );
  const baselineOf = (set: DataSet) => set.figures.find((figures) => figures.system === 'no compression');
  const raw = {
    command: 'npm run bench:compare',
    date,
    node: process.version,
    dataSets: dataSets.map((set) => ({
      name: set.name,
      window: set.window,
      systems: set.figures.map((figures) => ({
        system: figures.system,
        config: figures.config,
        totals: totals(figures, baselineOf(set)),
        failures: figures.failures,
        sessions: Object.fromEntries(
          Object.entries(figures.sessions).map(([id, { overheadMs, tokensPerCall: _tokens, ...session }]) => [
            id,
            { ...session, overheadMedianMs: percentile(overheadMs, 0.5), overheadP95Ms: percentile(overheadMs, 0.95) },
          ]),
        ),
      })),
    })),
  };
  writeFileSync(resolve(benchDir, 'results.json'), `${JSON.stringify(raw, null, 1)}\n`);
  // the window, and the budget and thresholds this package decides against at its defaults
  const budget = 16_000 - reserveFor(16_000);
  const share = (label: string, value: number) => ({
    tokens: Math.round(budget * value),
    label: `${label} ${Math.round(budget * value)}`,
  });
  const lines = [
    { tokens: 16_000, label: 'window 16000' },
    share('budget', 1),
    share('hard limit', DEFAULT_HARD_LIMIT),
    share('compress at', DEFAULT_COMPRESS_AT),
    share('fold to', DEFAULT_COMPRESS_TO),
  ];
  writeFileSync(resolve(benchDir, 'chart.svg'), await promptChart(chartSeries, longest?.session.id ?? '', lines));
  console.log('\nWrote bench/RESULTS.md, bench/results.json and bench/chart.svg.');
}
console.log(resultsMarkdown(dataSets, { date, node: process.version, longest: longest?.session.id ?? '' }));
