/**
 * `npm run bench:memory`: what a chat keeps of what its user later asks about. Every fixture conversation is replayed
 * as a chat app calls its model (one call per assistant turn, and one for a generic question after the last turn),
 * then each question with an answer in the conversation replaces that question as the last user message, one call
 * each, all finding the state the replay stored. Counted strictly: a
 * question counts when each of its evidence turns is in the prompt verbatim or has at least 80% of its content words
 * in ONE message or ONE entry of the session state (never the state pooled into one text).
 *
 * Systems: this project's defaults; FIFO (the newest messages that fit); and the oracle ceiling: the project's kept
 * messages plus the best verbatim choice of evidence turns, knowing the questions, in the tokens the project spends on
 * its state.
 */
import { wrapLanguageModel } from 'ai';
import { withContextCompression } from '../../adapters/ai-sdk/with-context-compression.js';
import { CACHE_READ_PRICE, CACHE_WRITE_PRICE } from '../../examples/lib/replay.js';
import { fixturesDir, type SessionFile } from '../../examples/lib/session-file.js';
import { tiktokenCounter } from '../../src/counting/tiktoken-counter.js';
import { loadFixtures, prepare, QUESTION } from '../compare/data.js';
import { commonPrefixTokens, measure, retained, sumTokens } from '../compare/metrics.js';
import { floorCost } from '../compare/replay-system.js';
import { aiSdkRun } from '../compare/systems.js';
import type { History, SystemRun } from '../compare/types.js';
import { fifo } from './fifo.js';
import { oracleCovered, strictUnits } from './retention.js';

interface Figures {
  questions: number;
  retained: number;
  oracle: number;
  byCategory: Map<string, { total: number; retained: number; oracle: number }>;
  stateShare: number[];
  recallShare: number[];
  summarizerCalls: number;
  cost: number;
  floor: number;
  callsOverWindow: number;
  foldsAtQuestionTime: number;
}

const counter = tiktokenCounter();
const questionsOf = (session: SessionFile) =>
  (session.qa ?? []).filter((qa) => qa.category !== 'adversarial' && qa.evidenceIdx.length > 0);

/** Replays one conversation through a run, then asks every question; the oracle is computed on the project's prompts. */
async function measureRun(
  session: SessionFile,
  run: SystemRun,
  { window, full }: { window: number; full: number },
  figures: Figures,
  foldCount: () => number,
): Promise<void> {
  const replay = prepare(session, true);
  figures.floor += floorCost(full);
  let previous: ReturnType<typeof measure> = [];
  const last = replay.questionTime as History;
  // the replay ends with a call for a new user message (a generic question as long as the longest real one): any
  // fold that a new message brings happens there, so every real question, replacing it, finds the same stored state
  // and no question call folds
  const longest = Math.max(...questionsOf(session).map((qa) => qa.question.length));
  const generic = QUESTION.repeat(Math.ceil(longest / QUESTION.length));
  const closing = { ...last, model: [...last.model.slice(0, -1), { role: 'user' as const, content: generic }] };
  for (const history of [...replay.calls, closing]) {
    const measures = measure(await run.call(history));
    const tokens = sumTokens(measures);
    const cached = commonPrefixTokens(previous, measures);
    previous = measures;
    figures.cost += cached * CACHE_READ_PRICE + (tokens - cached) * CACHE_WRITE_PRICE;
    if (tokens > window) figures.callsOverWindow++;
  }
  // a fold is one summarizer call (the offline summarizer; a model summarizer is called the same way)
  figures.summarizerCalls += foldCount();
  // per question, the evidence turns the kept messages miss and what they cost verbatim; the state's tokens
  const gaps: { turns: number[]; tokens: number; own: number; category: string }[] = [];
  let stateBudget = 0;
  for (const qa of questionsOf(session)) {
    const folds = foldCount();
    const transcript = await run.call({
      ...last,
      model: [...last.model.slice(0, -1), { role: 'user', content: qa.question }],
    });
    figures.foldsAtQuestionTime += foldCount() - folds;
    const tokens = sumTokens(measure(transcript));
    if (tokens > window) figures.callsOverWindow++;
    const { units, verbatim, stateTokens, recallTokens } = strictUnits(transcript);
    // the oracle spends what the project spends beyond the kept messages: its state, and this question's recall block
    stateBudget = Math.max(stateBudget, stateTokens);
    figures.stateShare.push(stateTokens / Math.max(1, tokens));
    figures.recallShare.push(recallTokens / Math.max(1, tokens));
    const evidence = qa.evidenceIdx.map((index) => session.messages[index]?.content ?? '');
    const kept = evidence.every((text) => retained(text, units));
    figures.questions++;
    if (kept) figures.retained++;
    const category = figures.byCategory.get(qa.category) ?? { total: 0, retained: 0, oracle: 0 };
    category.total++;
    if (kept) category.retained++;
    figures.byCategory.set(qa.category, category);
    const turns = qa.evidenceIdx.filter((index) => !retained(session.messages[index]?.content ?? '', verbatim));
    gaps.push({
      turns,
      tokens: turns.reduce((sum, index) => sum + turnTokens(session, index), 0),
      own: recallTokens,
      category: qa.category,
    });
  }
  const covered = oracleCovered(gaps, stateBudget, (turn) => turnTokens(session, turn));
  figures.oracle += covered.size;
  for (const index of covered) {
    const entry = figures.byCategory.get(gaps[index]?.category ?? '');
    if (entry) entry.oracle++;
  }
}

const turnTokens = (session: SessionFile, index: number) => counter.count(session.messages[index]?.content ?? '') + 4;

const empty = (): Figures => ({
  questions: 0,
  retained: 0,
  oracle: 0,
  byCategory: new Map(),
  stateShare: [],
  recallShare: [],
  summarizerCalls: 0,
  cost: 0,
  floor: 0,
  callsOverWindow: 0,
  foldsAtQuestionTime: 0,
});

const dir = fixturesDir();
if (!dir) {
  console.log('bench:memory needs ../shared/fixtures beside this checkout; it is not there, so nothing was measured.');
  process.exit(0);
}
/** `--unlabelled`: the same chats with each message's speaker label (`Caroline: `) taken off, as most chat apps send them. */
const unlabelled = process.argv.includes('--unlabelled');
const LABEL = /^[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?:\s+/;
const conversations = loadFixtures(dir).conversations.map((session) =>
  unlabelled
    ? {
        ...session,
        messages: session.messages.map((message) =>
          typeof message.content === 'string' ? { ...message, content: message.content.replace(LABEL, '') } : message,
        ),
      }
    : session,
);
const percent = (part: number, whole: number) => `${((part / Math.max(1, whole)) * 100).toFixed(1)}%`;
console.log(
  `bench:memory, node ${process.version}: ${conversations.length} conversations${unlabelled ? ' without speaker labels' : ''}, each question asked last\n`,
);
const systems = [
  { name: 'this project (defaults)', options: {} },
  { name: 'this project, recall off', options: { recall: false } },
] as const;
for (const share of [0.25, 0.5]) {
  const ours = systems.map(empty);
  const oldest = empty();
  const perConversation: string[][] = [];
  for (const session of conversations) {
    const before = { ours: (ours[0] as Figures).retained, fifo: oldest.retained, questions: oldest.questions };
    const replay = prepare(session, true);
    // the whole conversation as the uncompressed prompt of its last call
    const full = sumTokens(measure(await aiSdkRun((mock) => mock).call(replay.questionTime as History)));
    const window = Math.round(full * share);
    const reserveOutputTokens = Math.min(4_000, Math.round(window * 0.1));
    for (const [at, system] of systems.entries()) {
      const figures = ours[at] as Figures;
      let folds = 0;
      const project = aiSdkRun((mock) =>
        withContextCompression(mock, {
          contextWindow: window,
          reserveOutputTokens,
          tokenCounter: counter,
          ...system.options,
          onCompress: (event) => {
            if (event.messagesFolded > 0) folds++;
          },
        }),
      );
      await measureRun(session, project, { window, full }, figures, () => folds);
    }
    const trimmed = aiSdkRun((mock) =>
      wrapLanguageModel({ model: mock, middleware: fifo(window - reserveOutputTokens) }),
    );
    await measureRun(session, trimmed, { window, full }, oldest, () => 0);
    const questions = oldest.questions - before.questions;
    perConversation.push([
      session.id,
      String(questions),
      percent((ours[0] as Figures).retained - before.ours, questions),
      percent(oldest.retained - before.fifo, questions),
    ]);
  }
  console.log(`window ${share * 100}% of each conversation`);
  const categories = [...(ours[0] as Figures).byCategory.keys()].sort();
  const header = [
    'system',
    'evidence retained',
    'oracle ceiling',
    'state share',
    'recall share',
    'x floor',
    'x FIFO cost',
    'over window',
    'summarizer calls',
    'folds at question time',
  ];
  const mean = (values: number[]) =>
    percent(
      values.reduce((a, b) => a + b, 0),
      values.length,
    );
  const rows = [
    ...systems.map((system, at) => [system.name, ours[at] as Figures, true] as const),
    ['FIFO (newest that fit)', oldest, false] as const,
  ];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const [name, figures, compressed] of rows) {
    const cells = [
      name,
      `${figures.retained}/${figures.questions} = ${percent(figures.retained, figures.questions)}`,
      compressed ? percent(figures.oracle, figures.questions) : '-',
      compressed ? mean(figures.stateShare) : '-',
      compressed ? mean(figures.recallShare) : '-',
      `${(figures.cost / Math.max(1, figures.floor)).toFixed(2)}x`,
      `${(figures.cost / Math.max(1, oldest.cost)).toFixed(2)}x`,
      String(figures.callsOverWindow),
      compressed ? String(figures.summarizerCalls) : '-',
      String(figures.foldsAtQuestionTime),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
  // per kind of question: each system's share, and the oracle ceiling measured on the defaults' prompts
  const defaults = ours[0] as Figures;
  const kinds = ['kind of question', 'questions', ...rows.map(([name]) => name), 'oracle (on the defaults)'];
  console.log(`\n| ${kinds.join(' | ')} |\n|${kinds.map(() => '---').join('|')}|`);
  for (const category of categories) {
    const of = (figures: Figures) => figures.byCategory.get(category) ?? { total: 0, retained: 0, oracle: 0 };
    const cells = [
      category,
      String(of(defaults).total),
      ...rows.map(([, figures]) => percent(of(figures).retained, of(figures).total)),
      percent(of(defaults).oracle, of(defaults).total),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
  // per conversation: the defaults against FIFO
  const columns = ['conversation', 'questions', 'this project (defaults)', 'FIFO (newest that fit)'];
  console.log(`\n| ${columns.join(' | ')} |\n|${columns.map(() => '---').join('|')}|`);
  for (const cells of perConversation) console.log(`| ${cells.join(' | ')} |`);
  console.log('');
}
