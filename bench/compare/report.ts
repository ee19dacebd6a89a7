/** The figures of one comparison run, and bench/RESULTS.md made of them. */
import type { SessionFigures } from './replay-system.js';

/** What one system did on each session of one data set at one window. */
export interface SystemFigures {
  system: string;
  config: string;
  /** Figures by session id, for the sessions it could be driven on; `floor` writes that history once. */
  sessions: Record<string, SessionFigures & { floor: number }>;
  /** Sessions the system could not be driven on, with the error. */
  failures: string[];
}

/** Totals of a system over the sessions it completed, and the baseline's over the same sessions. */
export interface Totals {
  sessions: number;
  calls: number;
  inputTokens: number;
  baselineTokens: number;
  cachedTokens: number;
  cost: number;
  floor: number;
  peakTokens: number;
  callsOverWindow: number;
  invalidPrompts: number;
  invalidReasons: Record<string, number>;
  summarizerCalls: number;
  summarizerCost: number;
  overheadMedianMs: number;
  overheadP95Ms: number;
  evidence: { retained: number; total: number; byCategory: Record<string, [number, number]> } | undefined;
  questionSummarizerCalls: number;
}

export function totals(figures: SystemFigures, baseline: SystemFigures | undefined): Totals {
  const result: Totals = {
    sessions: 0,
    calls: 0,
    inputTokens: 0,
    baselineTokens: 0,
    cachedTokens: 0,
    cost: 0,
    floor: 0,
    peakTokens: 0,
    callsOverWindow: 0,
    invalidPrompts: 0,
    invalidReasons: {},
    summarizerCalls: 0,
    summarizerCost: 0,
    overheadMedianMs: 0,
    overheadP95Ms: 0,
    evidence: undefined,
    questionSummarizerCalls: 0,
  };
  const overhead: number[] = [];
  for (const [id, session] of Object.entries(figures.sessions)) {
    result.sessions++;
    result.calls += session.calls;
    result.inputTokens += session.inputTokens;
    result.baselineTokens += baseline?.sessions[id]?.inputTokens ?? session.inputTokens;
    result.cachedTokens += session.cachedTokens;
    result.cost += session.cost;
    result.floor += session.floor;
    result.peakTokens = Math.max(result.peakTokens, session.peakTokens);
    result.callsOverWindow += session.callsOverWindow;
    result.invalidPrompts += session.invalidPrompts;
    for (const [reason, count] of Object.entries(session.invalidReasons))
      result.invalidReasons[reason] = (result.invalidReasons[reason] ?? 0) + count;
    result.summarizerCalls += session.summarizerCalls;
    result.summarizerCost += session.summarizerCost ?? 0;
    overhead.push(...session.overheadMs);
    result.questionSummarizerCalls += session.questionSummarizerCalls ?? 0;
    if (session.evidence) {
      result.evidence ??= { retained: 0, total: 0, byCategory: {} };
      result.evidence.retained += session.evidence.retained;
      result.evidence.total += session.evidence.total;
      for (const [category, [kept, total]] of Object.entries(session.evidence.byCategory ?? {})) {
        const sum = result.evidence.byCategory[category] ?? [0, 0];
        result.evidence.byCategory[category] = sum;
        sum[0] += kept;
        sum[1] += total;
      }
    }
  }
  result.overheadMedianMs = percentile(overhead, 0.5);
  result.overheadP95Ms = percentile(overhead, 0.95);
  return result;
}

export interface DataSet {
  name: string;
  window: string;
  sessions: number;
  figures: SystemFigures[];
}

const int = (value: number) => Math.round(value).toLocaleString('en-US');
/** The value at a share (0 to 1) of the sorted values. */
export const percentile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * share)] ?? 0;

function row(figures: SystemFigures, all: number, baseline: SystemFigures | undefined): string {
  const sum = totals(figures, baseline);
  const saved = sum.baselineTokens ? 1 - sum.inputTokens / sum.baselineTokens : 0;
  const reuse = sum.inputTokens ? sum.cachedTokens / sum.inputTokens : 0;
  const invalid = sum.invalidPrompts
    ? `${int(sum.invalidPrompts)} (${Object.entries(sum.invalidReasons)
        .map(([reason, count]) => `${reason}: ${count}`)
        .join(', ')})`
    : '0';
  const cells = [
    sum.sessions < all ? `${figures.system} (${sum.sessions} of ${all} sessions)` : figures.system,
    int(sum.inputTokens),
    `${Math.round(saved * 100)}%`,
    int(sum.cost),
    int(sum.summarizerCost),
    int(sum.cost + sum.summarizerCost),
    sum.floor ? `${((sum.cost + sum.summarizerCost) / sum.floor).toFixed(2)}x` : '-',
    `${(reuse * 100).toFixed(1)}%`,
    int(sum.peakTokens),
    int(sum.callsOverWindow),
    invalid,
    int(sum.summarizerCalls),
    `${sum.overheadMedianMs.toFixed(2)} / ${sum.overheadP95Ms.toFixed(2)}`,
  ];
  if (sum.evidence) {
    const share = ([kept, total]: [number, number]) => `${(total ? (kept / total) * 100 : 0).toFixed(1)}%`;
    cells.push(
      `${sum.evidence.retained}/${sum.evidence.total} = ${share([sum.evidence.retained, sum.evidence.total])}`,
      Object.keys(sum.evidence.byCategory)
        .sort()
        .map((category) => `${category} ${share(sum.evidence?.byCategory[category] as [number, number])}`)
        .join(', '),
      int(sum.questionSummarizerCalls),
    );
  }
  const failures = figures.failures.length
    ? `could not be driven on ${figures.failures.length} sessions (saved and x floor are over the others), e.g. ${figures.failures[0]}`
    : '';
  cells.push(failures);
  return `| ${cells.join(' | ')} |`;
}

function table(set: DataSet): string {
  const head = [
    'system',
    'input tokens',
    'saved',
    'cost',
    'summarizer cost',
    'total',
    'x floor',
    'prefix reuse',
    'peak prompt',
    'calls over window',
    'invalid prompts',
    'summarizer calls',
    'ms per call (median / p95)',
    ...(set.name === 'conversations'
      ? ['evidence retained (each question asked)', 'by category', 'summarizer calls at question time']
      : []),
    'notes',
  ];
  const baseline = set.figures.find((figures) => figures.system === 'no compression');
  const calls = baseline ? totals(baseline, undefined).calls : 0;
  const floor = baseline ? totals(baseline, undefined).floor : 0;
  return [
    `### ${set.name}, window ${set.window} (${set.sessions} sessions, ${int(calls)} calls per system)`,
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map((_cell, index) => (index === 0 || index === head.length - 1 ? '---' : '---:')).join('|')}|`,
    ...set.figures.map((figures) => row(figures, set.sessions, baseline)),
    '',
    `Write-once floor: ${int(floor)}.`,
  ].join('\n');
}

/** bench/RESULTS.md. */
export function resultsMarkdown(
  sets: readonly DataSet[],
  { date, node, longest }: { date: string; node: string; longest: string },
): string {
  const configs = new Map<string, string>();
  for (const set of sets) for (const figures of set.figures) configs.set(figures.system, figures.config);
  return [
    '# Compared with the peers',
    '',
    `Made by \`npm run bench:compare\` on ${date}, Node ${node}, on the fixtures in ../shared/fixtures. Every system`,
    'gets the same history call by call (each assistant turn of a recorded session is one model call whose prompt is',
    'everything before it) at the same window, and every prompt a model received is measured the same way: tiktoken',
    "`o200k_base` per message. Every summarizing LLM is the same deterministic stand-in (this project's offline",
    'extractive summarizer behind a fake model), so the comparison is about policy, not summary wording.',
    '',
    "- **cost**: cache-priced input, in input-token units: the prefix a prompt shares with the previous call's prompt",
    '  read at 0.1x, the rest written at 1.25x. **summarizer cost**: what the summarizing LLM was sent during the',
    '  replay (its requests counted as `o200k_base`, at 1x: a separate request shares no cached prefix) and what it',
    '  answered (at 5x, as Claude and GPT-4o price output). **total**: both. **x floor**: the total over the write-once',
    '  floor (every token of each session written once at 1.25x).',
    '- **prefix reuse**: share of input tokens that were such a cached prefix. **calls over window**: prompts larger',
    '  than the context window. **invalid prompts**: a tool call without its result or a result without its call, an',
    '  empty message, or a system prompt that changed between calls other than by an addition at its end (or lost the',
    "  caller's).",
    '- **ms per call**: time in the system per model call (mock model, summarizer stand-in included).',
    '- **evidence retained** (conversations): each question/answer pair (adversarial ones left out) is asked as the',
    '  last user message of its own call after the last turn; it counts when every one of its evidence turns is in',
    '  that prompt verbatim, or with at least 80% of its content words inside one message or one state entry (a state',
    '  or summary is never pooled into one unit). Systems whose state is keyed by content (this project) first get a',
    '  generic question as long as the longest real one, so every question finds the same stored state; systems with',
    '  a state of their own ask each question on a copy of the state after the replay (a resumed checkpoint), and',
    '  the summarizer calls those question calls make are counted apart.',
    '',
    ...sets.flatMap((set) => [table(set), '']),
    '## The systems',
    '',
    ...[...configs].map(([system, config]) => `- **${system}**: ${config}`),
    '',
    `![Prompt tokens per call on ${longest} at a 16k window](chart.svg)`,
    '',
  ].join('\n');
}
