/**
 * The demo: replays a recorded agent session through `withContextCompression` with a mock model and the
 * offline summarizer (no API key, no network), and prints the prompt tokens of every step with and without
 * compression.
 *
 *   npm run demo                                   the project's own coding-agent session
 *   npm run demo -- --file ../shared/fixtures/trajectories.jsonl   every session of a file, with a progress bar
 *   npm run demo -- --window 32000                 another context window (default 16000)
 *   npm run demo -- --file chat.json               a transcript of yours in another format (AI SDK, LangChain,
 *                                                  OpenAI chat): replayed by `context-compression replay`
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { type CompressEvent, withContextCompression } from 'context-compression/ai-sdk';
import { readConversations } from '../adapters/cli/formats.js';
import { main as replayCommand } from '../adapters/cli/main.js';
import { type ReplayResult, replaySession, totals } from './lib/replay.js';
import { readSessions } from './lib/session-file.js';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    window: { type: 'string', default: '16000' },
    reserve: { type: 'string', default: '2000' },
  },
});
const contextWindow = Number(values.window);
const reserveOutputTokens = Number(values.reserve);
if (!Number.isInteger(contextWindow) || contextWindow < 1024)
  throw new Error(`--window must be a whole number >= 1024, got ${values.window}`);

const file = values.file ?? resolve(import.meta.dirname, 'sessions/coding-agent.jsonl');
// a transcript in another format than this project's sessions goes to the replay command, which reads them all
if (readConversations(readFileSync(file, 'utf8'), file).some((each) => each.format !== 'context-compression session')) {
  const argv = ['replay', file, '--window', values.window ?? '16000', '--reserve', values.reserve ?? '2000'];
  console.log(`${file} is not a session file of this project: running context-compression ${argv.join(' ')}\n`);
  process.exit(await replayCommand(argv, { stdout: (text) => process.stdout.write(text), stderr: process.stderr }));
}
const sessions = readSessions(file);
const single = sessions.length === 1;

/** Replays a session without and with compression; `events[i]` holds what step i reported through onCompress. */
async function replay(session: (typeof sessions)[number], events: Array<CompressEvent | undefined>) {
  const baseline = await replaySession(session, (model) => model);
  let current: CompressEvent | undefined;
  const compressed = await replaySession(
    session,
    (model) =>
      withContextCompression(model, { contextWindow, reserveOutputTokens, onCompress: (event) => (current = event) }),
    {
      onStep: () => {
        events.push(current);
        current = undefined;
      },
    },
  );
  return { baseline, compressed };
}

function describe(event: CompressEvent | undefined): string {
  if (!event) return '';
  const parts = [];
  if (event.messagesFolded > 0) parts.push(`folded ${event.messagesFolded} messages into the session state`);
  if (event.messagesDropped > 0) parts.push(`dropped ${event.messagesDropped} messages`);
  if (event.toolResultsMasked.count > 0) parts.push(`masked ${event.toolResultsMasked.count} tool results`);
  if (event.toolResultsRedacted.count > 0) parts.push(`redacted ${event.toolResultsRedacted.count} tool results`);
  if (event.toolResultsTruncated > 0 && event.trigger === 'oversized-result')
    parts.push('shortened an oversized tool result');
  return `${event.trigger}: ${parts.join(', ')}`;
}

const isFold = (event: CompressEvent | undefined) => event !== undefined;

const pad = (value: string | number, width: number) => String(value).padStart(width);
const format = (value: number) => Math.round(value).toLocaleString('en-US');

function printSteps(baseline: ReplayResult, compressed: ReplayResult, events: Array<CompressEvent | undefined>) {
  console.log(`${pad('step', 4)} ${pad('without', 9)} ${pad('with', 8)} ${pad('cached', 8)}  note`);
  compressed.steps.forEach((step, index) => {
    const before = baseline.steps[index]?.sentTokens ?? 0;
    const note = describe(events[index]);
    console.log(
      `${pad(index + 1, 4)} ${pad(format(before), 9)} ${pad(format(step.sentTokens), 8)} ${pad(format(step.cachedTokens), 8)}  ${note}`,
    );
  });
}

function summaryLine(label: string, baseline: ReplayResult, compressed: ReplayResult, calls: number, folds: number) {
  const saved = 1 - compressed.sentTokens / Math.max(1, baseline.sentTokens);
  const peak = (result: ReplayResult) => Math.max(...result.steps.map((step) => step.sentTokens));
  const overheads = compressed.steps.map((step) => step.overheadMs).sort((a, b) => a - b);
  const median = overheads[Math.floor(overheads.length / 2)] ?? 0;
  console.log(
    `\n${label}: ${calls} model calls at a ${format(contextWindow)}-token window. ` +
      `Input tokens ${format(baseline.sentTokens)} -> ${format(compressed.sentTokens)} (${(saved * 100).toFixed(1)}% fewer); ` +
      `peak prompt ${format(peak(baseline))} -> ${format(peak(compressed))}; ${folds} compressions; ` +
      `cache-priced cost ${(baseline.cost / baseline.floor).toFixed(2)}x -> ${(compressed.cost / compressed.floor).toFixed(2)}x the write-once floor; ` +
      `median overhead ${median.toFixed(2)} ms per call.`,
  );
}

if (single) {
  const session = sessions[0] as (typeof sessions)[number];
  console.log(
    `Replaying ${session.id} (${session.messages.length} messages) with a mock model and the offline summarizer.\n`,
  );
  const events: CompressEvent[] = [];
  const { baseline, compressed } = await replay(session, events);
  printSteps(baseline, compressed, events);
  console.log(
    '\n"without": the prompt the caller built; "with": what the model received; "cached": its leading tokens',
  );
  console.log("identical to the previous call's prompt, which a provider prompt cache would serve at a discount.");
  summaryLine(session.id, baseline, compressed, compressed.steps.length, events.filter(isFold).length);
  console.log('\nYour own transcripts (AI SDK, LangChain, OpenAI chat; JSON or JSONL), the same way:');
  console.log('  npx context-compression replay <file> --window 32000 --out figures/');
} else {
  console.log(`Replaying ${sessions.length} sessions from ${file} with a mock model and the offline summarizer.`);
  const bar = new SingleBar({
    format: '{bar} {value}/{total} sessions | {id}',
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: 5_000,
  });
  bar.start(sessions.length, 0, { id: '' });
  const baselines: ReplayResult['steps'][number][] = [];
  const compressedSteps: ReplayResult['steps'][number][] = [];
  const rows: string[] = [];
  let folds = 0;
  let baselineCost = 0;
  let compressedCost = 0;
  let floor = 0;
  for (const session of sessions) {
    const events: Array<CompressEvent | undefined> = [];
    const { baseline, compressed } = await replay(session, events);
    baselines.push(...baseline.steps);
    compressedSteps.push(...compressed.steps);
    baselineCost += baseline.cost;
    compressedCost += compressed.cost;
    floor += baseline.floor;
    const sessionFolds = events.filter(isFold).length;
    folds += sessionFolds;
    rows.push(
      `${session.id.padEnd(48)} ${pad(compressed.steps.length, 5)} ${pad(format(baseline.sentTokens), 10)} ${pad(format(compressed.sentTokens), 10)} ${pad(sessionFolds, 6)}`,
    );
    bar.increment(1, { id: session.id });
  }
  bar.stop();
  console.log(
    `\n${'session'.padEnd(48)} ${pad('calls', 5)} ${pad('without', 10)} ${pad('with', 10)} ${pad('folds', 6)}`,
  );
  for (const row of rows) console.log(row);
  const baseline = { ...totals(baselines), cost: baselineCost, floor };
  const compressed = { ...totals(compressedSteps), cost: compressedCost, floor };
  summaryLine(`All ${sessions.length} sessions`, baseline, compressed, compressedSteps.length, folds);
}
