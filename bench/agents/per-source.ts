/**
 * Bench section 6: the masking and folding policy judged per agent (the fixture sources mini-swe-agent, tau-bench and
 * SWE-agent, and the generated agent of generic-agent.ts) at a 200k and a 16k window, beside the sliding-window
 * baseline, and leave-one-source-out over a small grid of the policy's public options that govern hiding.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';
import { withContextCompression } from '../../adapters/ai-sdk/index.js';
import type { SessionFile } from '../../examples/lib/session-file.js';
import type { CompressionOptions } from '../../src/options/options.js';
import { slidingWindowMasking } from '../baselines/sliding-window-masking.js';
import { AGENT_SOURCES, agentSource, fixtureSource, sourceFromTools } from './fixture-source.js';
import { GENERIC_AGENT } from './generic-agent.js';
import { type Candidate, type Choice, chooseSetting, TOKEN_LIMIT } from './leave-one-source-out.js';
import { formatRow, formatVerdicts, HEADER, judge } from './per-source-table.js';
import { measureRun, type RunFigures } from './run-figures.js';
import { aggregate, type Figures, figuresBySource, type Scope } from './source-figures.js';

/** The grid of leave-one-source-out: the default first, then one hiding option changed at a time. */
export const GRID: ReadonlyArray<{ name: string; options: Pick<CompressionOptions, 'masking' | 'triggers'> }> = [
  { name: 'default', options: {} },
  { name: 'staleness off', options: { triggers: { staleness: false } } },
  { name: 'masking.keepRecent 5', options: { masking: { keepRecent: 5 } } },
  { name: 'masking.keepRecent 20', options: { masking: { keepRecent: 20 } } },
  { name: 'semantic minTokens 8000', options: { triggers: { semantic: { minTokens: 8_000 } } } },
  { name: 'semantic off', options: { triggers: { semantic: false } } },
  { name: 'deferWhileQuoted off', options: { triggers: { semantic: { deferWhileQuoted: false } } } },
];

const WINDOWS = [200_000, 16_000];
const RESERVE_OUTPUT_TOKENS = 2_000;
const BASELINE = 'sliding window 10';

/** Every session replayed through the system `wrap` builds. */
async function measureAll(
  sessions: readonly SessionFile[],
  wrap: (mock: MockLanguageModelV4) => LanguageModelV4,
): Promise<RunFigures[]> {
  const runs: RunFigures[] = [];
  for (const session of sessions) runs.push(await measureRun(session, wrap));
  return runs;
}

/** Held-out figures of each source under its chosen setting, then pooled over the sources; none without choices. */
function heldOutFigures(choices: readonly Choice[]): Map<Scope, Figures> {
  if (choices.length === 0) return new Map();
  const figures = new Map<Scope, Figures>(choices.map((choice) => [choice.heldOut, choice.heldOutFigures]));
  figures.set('overall', aggregate(choices.flatMap((choice) => choice.heldOutRuns)));
  return figures;
}

/** The table rows of one window: per scope, the baseline, the default policy and leave-one-source-out. */
function windowRows(
  contextWindow: number,
  baseline: ReadonlyMap<Scope, Figures>,
  policy: ReadonlyMap<Scope, Figures>,
  held: ReadonlyMap<Scope, Figures>,
  choices: readonly Choice[],
): string[] {
  const rows: string[] = [];
  const window = `${contextWindow / 1000}k`;
  for (const [scope, base] of baseline) {
    const first = rows.length === 0;
    rows.push(formatRow({ window: first ? window : '', scope, system: BASELINE, figures: base, baseline: base }));
    const own = policy.get(scope);
    if (own) {
      rows.push(
        formatRow({
          window: '',
          scope: '',
          system: 'default policy',
          figures: own,
          baseline: base,
          judge: { contextWindow, tokenTarget: false, scope },
        }),
      );
    }
    const chosen = held.get(scope);
    if (chosen) {
      const setting = choices.find((choice) => choice.heldOut === scope)?.setting;
      rows.push(
        formatRow({
          window: '',
          scope: '',
          system: setting ? `LOSO ${setting}` : 'leave-one-source-out (LOSO)',
          figures: chosen,
          baseline: base,
          judge: { contextWindow, tokenTarget: true, scope },
        }),
      );
    }
  }
  return rows;
}

/** The legend of section 6: what the sources are and how to read each column. */
function legend(sessions: readonly SessionFile[]): string[] {
  const recorded = sessions.filter((session) => agentSource(session) !== GENERIC_AGENT);
  const agree = recorded.filter((session) => sourceFromTools(session) === fixtureSource(session)).length;
  const generated = sessions.length - recorded.length;
  return [
    'source: the first segment of the run\'s "source" field (mini-swe-agent/, tau-bench/, swe-agent/); the tool shapes',
    `  alone agree on ${agree} of ${recorded.length} recorded runs (structured args: tau-bench; only {command} args:`,
    '  SWE-agent when an ACI command such as open, edit or find_file appears, else mini-swe-agent)',
    `${GENERIC_AGENT}: ${generated} generated runs of an operations assistant (bench/agents/generic-agent.ts) whose`,
    '  tools and output formats (JSON records, psql tables, HTML pages, listings, grouped search hits, tracebacks) no',
    '  recorded run has',
    "vs SW: input tokens / SW's on the same runs; x floor: cache-priced cost / write-once floor (as in section 3); the",
    '  summarizer is the offline one, which costs no model tokens (a model summarizer is priced in section 10)',
    'needed later: needed / hidden (as in section 4); compr.: calls whose prompt is not the previous prompt + appended',
    'between: calls from one compression to the next within a run, min / median; - when no run compressed twice',
    'LOSO <setting>: on the held-out source, the grid setting with the lowest needed-later rate on the other sources',
    `  among those sending at most ${TOKEN_LIMIT}x SW's tokens there`,
    `  grid: ${GRID.map((setting) => setting.name).join(' | ')}`,
    'ok / MISS: the targets (listed below the table); SW ignores the window: its 16k figures are its 200k ones',
  ];
}

/** The lines below the table for one window: the settings leave-one-source-out chose, and the targets. */
function windowSummary(
  contextWindow: number,
  choices: readonly Choice[],
  judged: {
    policy: ReadonlyMap<Scope, Figures>;
    held: ReadonlyMap<Scope, Figures>;
    baseline: ReadonlyMap<Scope, Figures>;
  },
): string[] {
  const window = `${contextWindow / 1000}k`;
  const lines: string[] = [];
  if (choices.length > 0) {
    lines.push(`   ${window}: leave-one-source-out choices (each chosen on the other sources)`);
    for (const choice of choices) {
      lines.push(
        `      ${choice.heldOut.padEnd(15)} ${choice.setting.padEnd(24)} there: needed later ${choice.training.rate.toFixed(3)}, tokens ${choice.trainingTokenRatio.toFixed(2)}x SW${choice.withinLimit ? '' : ` (no setting within ${TOKEN_LIMIT}x: fewest tokens)`}`,
      );
    }
  } else lines.push(`   ${window}: leave-one-source-out needs runs of two sources or more`);
  lines.push(`   ${window}: targets, default policy`);
  lines.push(...formatVerdicts(judge(judged.policy, judged.baseline, contextWindow, false), '      '));
  if (choices.length > 0) {
    lines.push(`   ${window}: targets, leave-one-source-out`);
    lines.push(...formatVerdicts(judge(judged.held, judged.baseline, contextWindow, true), '      '));
  }
  return lines;
}

/**
 * Prints section 6 for `sessions`: the fixture trajectories when they are present and the generated agent's runs.
 * Leave-one-source-out runs when two sources or more are present.
 */
export async function perSource(sessions: readonly SessionFile[]): Promise<void> {
  const started = performance.now();
  let replays = 0;
  console.log(`\n6. Per source: the ${sessions.length} trajectories by agent, policy vs sliding window 10 (SW)`);
  for (const line of legend(sessions)) console.log(`   ${line}`);
  console.log('');
  const present = AGENT_SOURCES.filter((source) => sessions.some((session) => agentSource(session) === source));
  const baselineRuns = await measureAll(sessions, (mock) =>
    wrapLanguageModel({ model: mock, middleware: slidingWindowMasking(10) }),
  );
  replays += sessions.length;
  const baseline = figuresBySource(baselineRuns);
  const summaries: string[] = [];
  console.log(HEADER);
  for (const contextWindow of WINDOWS) {
    const candidates: Candidate[] = [];
    for (const setting of GRID) {
      const runs = await measureAll(sessions, (mock) =>
        withContextCompression(mock, { contextWindow, reserveOutputTokens: RESERVE_OUTPUT_TOKENS, ...setting.options }),
      );
      replays += sessions.length;
      candidates.push({ name: setting.name, runs });
    }
    const policy = figuresBySource(candidates[0]?.runs ?? []);
    const choices = present.length > 1 ? present.map((source) => chooseSetting(source, candidates, baselineRuns)) : [];
    const held = heldOutFigures(choices);
    for (const row of windowRows(contextWindow, baseline, policy, held, choices)) console.log(row);
    summaries.push(...windowSummary(contextWindow, choices, { policy, held, baseline }));
  }
  console.log('');
  for (const line of summaries) console.log(line);
  console.log(
    `\n   section 6: ${replays} replays (SW once, ${GRID.length} settings x ${WINDOWS.length} windows) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
