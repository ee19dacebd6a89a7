/**
 * Section 10: agent loops whose summarizer takes 1.5 s, with and without summaries made ahead of time. Each fixture
 * source's runs, one after another, make a 60-step loop at a 16k window; the model answers each step in 1 s (a mock
 * that sleeps), and the summarizer is the offline one behind a 1.5 s delay, as a model summarizer would take. Per step:
 * the time the middleware took (a step "waits" when it took more than 250 ms: it waited for a summary), and what the
 * loop sent and summarized.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import {
  contextCompression,
  extractiveSummarizer,
  type SessionState,
  type Summarizer,
} from '../adapters/ai-sdk/index.js';
import { CACHE_READ_PRICE, CACHE_WRITE_PRICE, measurePrompt, OUTPUT_PRICE } from '../examples/lib/replay.js';
import type { SessionFile } from '../examples/lib/session-file.js';
import { commonPrefixTokens } from '../src/counting/prefix-tracker.js';
import { DEFAULT_SUMMARIZER_INSTRUCTIONS, DEFAULT_SUMMARIZER_PROMPT } from '../src/options/prompts.js';
import { continuationInstruction } from '../src/summarizers/prompt-continuation.js';
import { renderSummarizerPrompt } from '../src/summarizers/render-transcript.js';
import { agentHistory, rebuilt, sessionPrompts } from './agent-history.js';

const STEPS = 60;
const WINDOW = 16_000;
const SUMMARY_MS = 1_500;
const MODEL_MS = 1_000;
/** A step that took longer than this waited for a summary (a step takes milliseconds otherwise). */
const WAITED_MS = 250;

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const model = new MockLanguageModelV4({ modelId: 'bench-model' });

interface LoopResult {
  readonly waits: number[];
  readonly sentTokens: number;
  /** Cache-priced cost of the prompts sent, in input-token units: each prefix shared with the previous prompt read. */
  readonly cost: number;
  readonly summaries: number;
  readonly folds: number;
  readonly ahead: number;
  /**
   * What the summaries cost, as a model summarizer's separate requests would: their prompts (instructions, the
   * previous state, the folded messages) as o200k tokens at 1x, and the states they wrote at `OUTPUT_PRICE`.
   */
  readonly summarizerCost: number;
}

/** A summarizer's calls and their tokens, as its provider would count them. */
interface Counted {
  calls: number;
  input: number;
  output: number;
}

/**
 * A summarizer as slow as a model: the offline one, answering after `SUMMARY_MS`, counting its request and answer as a
 * model's provider would (o200k) and reporting them as a model summarizer does.
 */
function slowSummarizer(counted: Counted, continues: boolean): Summarizer {
  const offline = extractiveSummarizer();
  return {
    name: 'slow-model',
    ...(continues && { continuesPrompts: true }),
    summarize: async (input) => {
      counted.calls++;
      // continuing the cached prompt: the request is sent (and priced) as the main model's, the state made as always
      const continued =
        input.continuation &&
        (await input.continuation.complete(
          continuationInstruction(DEFAULT_SUMMARIZER_INSTRUCTIONS, input.continuation),
          input.abortSignal,
        ));
      await sleep(SUMMARY_MS);
      const state = await offline.summarize(input);
      // a continued prompt with a state asks for the change to it alone: the entries the state gained and lost
      const outputTokens = countTokens(
        JSON.stringify(continued && input.continuation?.hasState ? changeOf(input.previous, state) : state),
        PLAIN_TEXT,
      );
      const inputTokens =
        continued?.usage?.inputTokens ??
        countTokens(
          `${DEFAULT_SUMMARIZER_INSTRUCTIONS}\n${renderSummarizerPrompt(DEFAULT_SUMMARIZER_PROMPT, input)}`,
          PLAIN_TEXT,
        );
      const cacheRead = continued?.usage?.cacheReadTokens ?? 0;
      // a separate request at 1x; a continued one read from the cache up to the prompt it continues, written after it
      counted.input += continued
        ? cacheRead * CACHE_READ_PRICE + (inputTokens - cacheRead) * CACHE_WRITE_PRICE
        : inputTokens;
      counted.output += outputTokens;
      input.reportUsage?.({ inputTokens, cacheReadTokens: cacheRead, outputTokens, model: 'slow-model' });
      return state;
    },
  };
}

/** The change from one state to the next, as a continued summary request asks for it (see `continuationInstruction`). */
function changeOf(previous: SessionState | undefined, next: SessionState) {
  const fields = ['logos', 'pathos', 'abstract', 'salience'] as const;
  const before = new Set(fields.flatMap((field) => previous?.[field] ?? []));
  const after = new Set(fields.flatMap((field) => next[field] ?? []));
  return {
    add: Object.fromEntries(fields.map((field) => [field, (next[field] ?? []).filter((entry) => !before.has(entry))])),
    drop: [...before].filter((entry) => !after.has(entry)),
    conversationSummary: next.conversationSummary,
  };
}

/**
 * The main model of a loop whose summaries continue its prompt: it answers nothing the loop reads, and reports of a
 * summary request (the instruction last) its tokens and the prefix it shares with the step's prompt before it.
 */
function continuingModel(lastSent: { prompt: LanguageModelV4Prompt }): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    modelId: 'bench-model',
    doGenerate: async ({ prompt }) => {
      const measured = measurePrompt(prompt);
      const total = measured.reduce((sum, message) => sum + message.tokens, 0);
      const cacheRead = commonPrefixTokens(measurePrompt(lastSent.prompt), measured);
      return {
        content: [{ type: 'text', text: '{}' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total, noCache: total - cacheRead, cacheRead, cacheWrite: undefined },
          outputTokens: { total: 0, text: 0, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

/** The middleware of a loop's mode: none for `all`. */
function compressing(mode: Mode, options: Parameters<typeof contextCompression>[0]) {
  return mode === 'all' ? undefined : contextCompression(options);
}

/** The loop's prompts: the history up to each assistant message, the first `STEPS` of them. */
function stepPrompts(history: LanguageModelV4Prompt): LanguageModelV4Prompt[] {
  const prompts: LanguageModelV4Prompt[] = [];
  for (let index = 1; index < history.length && prompts.length < STEPS; index++) {
    if (history[index]?.role === 'assistant') prompts.push(history.slice(0, index));
  }
  return prompts;
}

/**
 * The summaries' mode: none ahead, made ahead as separate requests, or made ahead continuing the cached prompt; or no
 * middleware at all (`all`: every prompt sent as it is).
 */
type Mode = 'all' | 'off' | 'on' | 'cont';

async function runLoop(prompts: readonly LanguageModelV4Prompt[], mode: Mode, window = WINDOW): Promise<LoopResult> {
  const ahead = mode !== 'off';
  const lastSent = { prompt: [] as LanguageModelV4Prompt };
  const main = mode === 'cont' ? continuingModel(lastSent) : model;
  const counted: Counted = { calls: 0, input: 0, output: 0 };
  let sentTokens = 0;
  let folds = 0;
  let aheadFolds = 0;
  const middleware = compressing(mode, {
    contextWindow: window,
    summarizer: slowSummarizer(counted, mode === 'cont'),
    summarizeAhead: ahead ? {} : false,
    onCall: (report) => {
      sentTokens += report.promptTokens;
    },
    onCompress: (event) => {
      if (event.messagesFolded > 0) folds++;
      if (event.decisions.some((decision) => decision.details.includes('summarized ahead of time'))) aheadFolds++;
    },
  });
  const waits: number[] = [];
  let cost = 0;
  let previous: ReturnType<typeof measurePrompt> = [];
  for (const prompt of prompts) {
    const params: LanguageModelV4CallOptions = { prompt: rebuilt(prompt) };
    const started = performance.now();
    const sent = (await middleware?.transformParams?.({ type: 'generate', params, model: main })) ?? params;
    waits.push(performance.now() - started);
    const measured = measurePrompt(sent.prompt);
    if (!middleware) sentTokens += measured.reduce((sum, message) => sum + message.tokens, 0);
    const cached = commonPrefixTokens(previous, measured);
    if (mode === 'cont') {
      // the provider's usage says it caches: what a summary continues is offered only then (no input total: the
      // calibration stays as in the other modes)
      lastSent.prompt = sent.prompt;
      await middleware?.wrapGenerate?.({
        doGenerate: async () => ({
          content: [],
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
          usage: {
            inputTokens: { total: undefined, noCache: undefined, cacheRead: cached, cacheWrite: undefined },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined },
          },
          warnings: [],
        }),
        doStream: async () => {
          throw new Error('not streamed');
        },
        params: sent,
        model: main,
      });
    }
    const total = measured.reduce((sum, message) => sum + message.tokens, 0);
    cost += cached * CACHE_READ_PRICE + (total - cached) * CACHE_WRITE_PRICE;
    previous = measured;
    await sleep(MODEL_MS);
  }
  // a summary still running in the background is counted with the loop
  await sleep(SUMMARY_MS + 100);
  return {
    waits,
    sentTokens,
    cost: Math.round(cost),
    summaries: counted.calls,
    folds,
    ahead: aheadFolds,
    summarizerCost: Math.round(counted.input + counted.output * OUTPUT_PRICE),
  };
}

const format = (value: number) => value.toLocaleString('en-US');

function row(source: string, mode: string, result: LoopResult): string {
  const waited = result.waits.filter((ms) => ms > WAITED_MS);
  const total = waited.reduce((sum, ms) => sum + ms, 0);
  const median = [...result.waits].sort((a, b) => a - b)[Math.floor(result.waits.length / 2)] ?? 0;
  return `   ${source.padEnd(16)} ${mode.padEnd(8)} ${`${waited.length} / ${result.waits.length}`.padStart(8)} ${`${(total / 1000).toFixed(1)} s`.padStart(9)} ${`${median.toFixed(1)} ms`.padStart(10)} ${format(result.sentTokens).padStart(12)} ${format(result.cost).padStart(12)} ${format(result.summarizerCost).padStart(11)} ${format(result.cost + result.summarizerCost).padStart(12)} ${String(result.summaries).padStart(9)} ${String(result.folds).padStart(6)} ${String(result.ahead).padStart(6)}`;
}

export async function summariesAhead(sessions: readonly SessionFile[]): Promise<void> {
  const sources = [...new Set(sessions.map((session) => session.source?.split('/')[0] ?? 'unknown'))];
  console.log(
    `\n10. Summaries ahead of time: a ${STEPS}-step loop per fixture source (its runs in turn), ${WINDOW / 1000}k window, the model answering in ${MODEL_MS / 1000} s, a summarizer taking ${SUMMARY_MS / 1000} s`,
  );
  console.log(
    `   a step waits when the middleware took over ${WAITED_MS} ms; sent = prompt tokens of all steps; cache-priced: each step's prefix shared with the step before read at ${CACHE_READ_PRICE}x, the rest written at ${CACHE_WRITE_PRICE}x; summarizer: its requests as a model's (o200k) at 1x, its output at ${OUTPUT_PRICE}x; total: both; folds (ahead: with the summary made ahead of time)`,
  );
  console.log(
    `   ${'source'.padEnd(16)} ${'ahead'.padEnd(8)} ${'waited'.padStart(8)} ${'waiting'.padStart(9)} ${'median'.padStart(10)} ${'sent'.padStart(12)} ${'cache-priced'.padStart(12)} ${'summarizer'.padStart(11)} ${'total'.padStart(12)} ${'summaries'.padStart(9)} ${'folds'.padStart(6)} ${'ahead'.padStart(6)}`,
  );
  // a warm process: the tokenizer loaded before the loops start
  await contextCompression({ contextWindow: WINDOW }).transformParams?.({
    type: 'generate',
    params: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'warm up' }] }] },
    model,
  });
  const loops = await Promise.all(
    sources.map(async (source) => {
      const own = sessions.filter((session) => (session.source?.split('/')[0] ?? 'unknown') === source);
      const prompts = stepPrompts(agentHistory(await sessionPrompts(own), 4 * STEPS));
      const [off, on, cont] = await Promise.all([
        runLoop(prompts, 'off'),
        runLoop(prompts, 'on'),
        runLoop(prompts, 'cont'),
      ]);
      return { source, prompts, off, on, cont };
    }),
  );
  for (const { source, off, on, cont } of loops) {
    console.log(row(source, 'off', off));
    console.log(row(source, 'on', on));
    console.log(row(source, 'on+cont', cont));
  }
  // the same loops at a 200k window (after the 16k ones, so that their counting does not delay those): against sending
  // every prompt as it is
  console.log(`   at a 200k window ('all': no middleware, every prompt sent as it is)`);
  const large = await Promise.all(
    loops.map(async ({ source, prompts }) => {
      const [all, cont] = await Promise.all([runLoop(prompts, 'all'), runLoop(prompts, 'cont', 200_000)]);
      return { source, all, cont };
    }),
  );
  for (const { source, all, cont } of large) {
    console.log(row(source, 'all', all));
    console.log(row(source, 'on+cont', cont));
  }
}
