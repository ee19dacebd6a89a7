#!/usr/bin/env node
/**
 * `context-compression replay <file> [--window 32000] [--summarizer offline] [--out dir]`: what this package would do
 * to your own conversations. Reads AI SDK, LangChain, OpenAI chat or session transcripts (JSON or JSON lines),
 * replays every conversation call by call through the engine (offline: no model, no key), and prints per conversation
 * the tokens sent raw and compressed, the cache-priced cost of both, and what was folded, masked and recalled.
 * `--out` writes the figures as JSON and a chart of tokens per call as SVG.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ContextCompressionError } from '../../src/errors.js';
import { parse, USAGE } from './arguments.js';
import { replayChart } from './chart.js';
import { type Conversation, readConversations, TranscriptFormatError } from './formats.js';
import { progressLine } from './progress-line.js';
import { type ConversationReplay, callsOf, replayConversation } from './replay.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  /** Errors and usage after an error. @default written to `stderr` */
  readonly error?: (text: string) => void;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Runs the command line; returns the exit code. */
export async function main(argv: readonly string[], given: CliIo): Promise<number> {
  const io = { ...given, error: given.error ?? ((text: string) => given.stderr.write(text)) };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    io.stdout(USAGE);
    return 0;
  }
  const { file, window, reserve, out, quiet, explain } = parsed;
  let conversations: Conversation[];
  try {
    conversations = readConversations(await readFile(file, 'utf8'), file);
  } catch (error) {
    const message = error instanceof TranscriptFormatError ? error.message : `${file}: ${(error as Error).message}`;
    io.error(`${message}\n`);
    return 1;
  }
  const totalCalls = conversations.reduce((sum, conversation) => sum + callsOf(conversation), 0);
  const progress = quiet ? undefined : progressLine(io.stderr, totalCalls);
  const replays: ConversationReplay[] = [];
  try {
    for (const conversation of conversations) {
      replays.push(
        await replayConversation(conversation, {
          contextWindow: window,
          ...(reserve !== undefined ? { reserveOutputTokens: reserve } : {}),
          onCall: () => progress?.increment(),
        }),
      );
    }
  } catch (error) {
    // a history the engine cannot send (a message larger than the window, say): said in a line, not a stack trace
    const why = ContextCompressionError.isInstance(error) ? error.message : String((error as Error)?.stack ?? error);
    io.error(`${file}: conversation ${conversations[replays.length]?.id ?? '?'}: ${why}\n`);
    return 1;
  } finally {
    progress?.stop();
  }
  io.stdout(report(file, replays, window));
  if (explain) for (const replay of replays) io.stdout(explanation(replay, replays.length > 1));
  if (out) {
    await mkdir(out, { recursive: true });
    await writeFile(
      join(out, 'figures.json'),
      `${JSON.stringify({ file, window, conversations: replays }, null, 2)}\n`,
    );
    const written = ['figures.json'];
    for (const replay of replays) {
      const name = replays.length === 1 ? 'chart.svg' : `chart-${safe(replay.id)}.svg`;
      const chart = await replayChart(
        replay,
        `Prompt tokens per call: ${basename(file)} ${replay.id}, ${window} window`,
      );
      if (!chart.svg) {
        io.stdout(`chart left out: ${chart.missing}\n`);
        break;
      }
      await writeFile(join(out, name), chart.svg);
      written.push(name);
    }
    io.stdout(`wrote ${written.join(', ')} to ${out}\n`);
  }
  return 0;
}

const number = (value: number) => Math.round(value).toLocaleString('en-US');
const safe = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80);

/** The table: one row per conversation (and a total row for several), then what the compressing calls did. */
export function report(file: string, replays: readonly ConversationReplay[], window: number): string {
  const lines: string[] = [];
  const formats = [...new Set(replays.map((replay) => replay.format))].join(', ');
  const calls = replays.reduce((sum, replay) => sum + replay.calls.length, 0);
  lines.push(
    `${basename(file)}: ${replays.length} conversation${replays.length === 1 ? '' : 's'} (${formats}), ${number(calls)} model calls, ${number(window)}-token window`,
    '',
  );
  const header = [
    'conversation',
    'calls',
    'raw tokens',
    'sent tokens',
    'sent/raw',
    'raw cost',
    'cost',
    'cost/raw',
    'folds',
    'masked',
    'recalled',
  ];
  const row = (
    id: string,
    replay: Omit<ConversationReplay, 'id' | 'format' | 'calls' | 'limits'> & { calls: number },
  ) => [
    id,
    number(replay.calls),
    number(replay.rawTokens),
    number(replay.sentTokens),
    ratio(replay.sentTokens, replay.rawTokens),
    number(replay.rawCost),
    number(replay.sentCost),
    ratio(replay.sentCost, replay.rawCost),
    number(replay.folds),
    number(replay.masked),
    number(replay.recalledChunks),
  ];
  const rows = replays.map((replay) => row(replay.id, { ...replay, calls: replay.calls.length }));
  if (replays.length > 1) {
    const sum = (pick: (replay: ConversationReplay) => number) =>
      replays.reduce((all, replay) => all + pick(replay), 0);
    rows.push(
      row('all', {
        calls,
        rawTokens: sum((replay) => replay.rawTokens),
        sentTokens: sum((replay) => replay.sentTokens),
        rawCost: sum((replay) => replay.rawCost),
        sentCost: sum((replay) => replay.sentCost),
        folds: sum((replay) => replay.folds),
        masked: sum((replay) => replay.masked),
        recalledChunks: sum((replay) => replay.recalledChunks),
      }),
    );
  }
  lines.push(...table(header, rows), '');
  lines.push(
    'cost: input tokens priced as a prompt cache bills them (a read of the prefix shared with the previous call',
  );
  lines.push('at 0.1, the rest written at 1.25), in input-token units.', '');
  for (const replay of replays) {
    const acted = replay.calls.filter((call) => call.actions.length > 0);
    if (acted.length === 0) continue;
    lines.push(`${replays.length > 1 ? `${replay.id}: ` : ''}calls that compressed:`);
    for (const call of acted.slice(0, 40)) {
      lines.push(
        `  call ${call.call} (${call.messages} messages, ${number(call.rawTokens)} -> ${number(call.sentTokens)} tokens): ${call.actions}`,
      );
    }
    if (acted.length > 40) lines.push(`  ... and ${acted.length - 40} more (--out writes every call)`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

/**
 * Every call of a replay in a line: its tokens raw and sent, the share of the budget it sent, what a prompt cache
 * read of it, and why it did what it did (the decisions' own words), or why it sent the history as it came.
 */
export function explanation(replay: ConversationReplay, named: boolean): string {
  const { limits } = replay;
  const share = (tokens: number) => `${Math.round((tokens / limits.budget) * 100)}%`;
  const lines = [
    `${named ? `${replay.id}: ` : ''}every call, against a budget of ${number(limits.budget)} tokens ` +
      `(${number(limits.contextWindow)} window): compress at ${number(limits.compressAt)} (${share(limits.compressAt)}), ` +
      `fold down to ${number(limits.compressTo)} (${share(limits.compressTo)}), never above ${number(limits.hardLimit)} ` +
      `(${share(limits.hardLimit)})`,
  ];
  for (const call of replay.calls) {
    const why =
      call.reasons.length > 0
        ? call.reasons.join('; ')
        : call.sentTokens < call.rawTokens
          ? 'as the last compression left it, grown by the new messages'
          : call.rawTokens <= limits.compressAt
            ? 'below the threshold: nothing to compress'
            : 'over the threshold, but nothing worth the cache write it would cause';
    lines.push(
      `  call ${call.call}: ${number(call.rawTokens)} -> ${number(call.sentTokens)} tokens (${share(call.sentTokens)}), ` +
        `${number(call.sentCachedTokens)} cached: ${why}`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}

const ratio = (value: number, base: number) => (base > 0 ? `${(value / base).toFixed(2)}x` : '-');

function table(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ');
  return [line(header), ...rows.map(line)];
}

// run as the package's bin (not when imported by tests)
const invoked = process.argv[1] ?? '';
if (/(?:^|[\\/])(?:cli\.(?:c?js|mjs)|main\.ts|context-compression)$/.test(invoked)) {
  // output piped into a command that stopped reading (`| head`): the rest is not wanted
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  main(process.argv.slice(2), { stdout: (text) => process.stdout.write(text), stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
