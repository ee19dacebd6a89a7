/**
 * Section 8 of `npm run bench`: what a call costs when the engine meets a conversation for the first time, beside
 * what counting the same texts costs (o200k_base).
 * a. A new conversation of ~200k tokens on a warm server (tokenizer loaded, JIT warm), per fixture agent source and
 *    for the fixture chats: the first call of a new middleware against tiktoken and gpt-tokenizer counting every text
 *    once, and the same call with the semantic and staleness triggers, masking and folding off (the counting path).
 *    Where a source's runs are repeated to reach the length, every text of a repetition starts with "Part N.", so the
 *    engine's memo of counts by content never meets an identical copy.
 * b. The same first call in a cold process, importing the adapter included, against importing tiktoken, building its
 *    encoder and counting every text once in another fresh process.
 * c. One huge or pathological message early in a chat (5 MB of prose, 200k characters of CJK, 200k of base64, 1M of
 *    one character): the first call on a warm server against counting that one message once, and the next turn.
 * gpt-tokenizer's merge cache is emptied before each timed step on a warm server, so neither the engine nor the
 * counter reuses a tokenization of the same texts from an earlier step.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LanguageModelV4Message, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { clearMergeCache } from 'gpt-tokenizer/encoding/o200k_base';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { type ContextCompressionOptions, contextCompression } from '../adapters/ai-sdk/index.js';
import { fixturesDir, readSessions, type SessionFile } from '../examples/lib/session-file.js';
import { countInChunks } from '../src/counting/count-in-chunks.js';
import { gptTokenizerCounter } from '../src/counting/gpt-tokenizer-counter.js';
import type { TokenCounter } from '../src/counting/token-counter.js';
import { agentHistory, promptTexts, sessionPrompts } from './agent-history.js';
import type { FirstCallInput, FirstCallOutput } from './first-call-child.js';
import { format, ms, percentile, ratio } from './stats.js';
import { COMMON_CJK, pseudoRandom, runChild } from './tokenizers.js';

/** Tokens of a new conversation in (a) and (b). */
const TARGET_TOKENS = 200_000;
/** Large enough that a 200k-token conversation, or one message of 200k characters, fits without folding. */
const WINDOW = 1_000_000;
/** Large enough for the 5 MB message (~1.2M tokens). */
const HUGE_WINDOW = 10_000_000;
const WARM_UP_RUNS = 2;
const TIMED_RUNS = 7;
const COLD_CHILDREN = 3;
const HUGE_WARM_UP_RUNS = 1;
const HUGE_RUNS = 3;
/** A child that takes longer than this fails the section. */
const CHILD_TIMEOUT_MS = 120_000;
const CHAT_SYSTEM = 'You are a helpful assistant.';
/** Messages of ordinary chat around the huge one in (c), the system prompt and the new question aside. */
const ORDINARY_MESSAGES = 40;
/** Where the huge message sits in (c): the second user message, after the system prompt. */
const HUGE_INDEX = 3;
const NEW_QUESTION = 'Given all of that, what should I do first tomorrow?';
const NEXT_QUESTION = 'And after that, what comes second?';
const WORDS =
  'the deploy pipeline reads its configuration from a file in the repository and retries three times before it reports a timeout to whoever started the job'.split(
    ' ',
  );

const model = new MockLanguageModelV4({ modelId: 'bench-model' });

/** A conversation to measure: its name and its prompt, the last message a user or tool message. */
interface NamedHistory {
  name: string;
  history: LanguageModelV4Prompt;
}

/** The figures of one run of (a), in milliseconds, and the triggers the first call reported. */
interface WarmSample {
  call: number;
  floor: number;
  tiktoken: number;
  gptTokenizer: number;
  parse: number;
  triggers: string[];
}

/** The figures of one run of (c), in milliseconds, the huge message's tokens and the triggers the first call reported. */
interface HugeSample {
  call: number;
  next: number;
  count: number;
  tokens: number;
  triggers: string[];
}

/**
 * Before a timed step: gpt-tokenizer's merge cache emptied, so no step reuses an earlier step's tokenization of the
 * same texts (a server meeting a conversation for the first time has never tokenized its texts), and with `collect`
 * a full garbage collection when node exposes it, so no collection of an earlier step's garbage lands in the timing.
 */
function beforeTimedStep(collect = true): void {
  if (collect) (globalThis as { gc?: () => void }).gc?.();
  clearMergeCache();
}

/** Milliseconds `work` takes, after `beforeTimedStep(collect)`. */
function timed(work: () => void, collect = true): number {
  beforeTimedStep(collect);
  const started = performance.now();
  work();
  return performance.now() - started;
}

/** The median of one figure over the samples. */
const median = <T>(samples: readonly T[], figure: (sample: T) => number): number =>
  percentile(samples.map(figure), 0.5);

/** Trigger names in the order first seen, joined: "compressed: a+b", or "nothing compressed". */
const compressedLabel = (triggers: readonly string[]): string =>
  triggers.length > 0 ? `compressed: ${[...new Set(triggers)].join('+')}` : 'nothing compressed';

/** A user or assistant message of one text. */
function chatMessage(role: 'user' | 'assistant', text: string): LanguageModelV4Message {
  return role === 'user'
    ? { role: 'user', content: [{ type: 'text', text }] }
    : { role: 'assistant', content: [{ type: 'text', text }] };
}

/** A copy of a message with `mark` before each of its texts, reasoning texts and text tool outputs. */
function marked(message: LanguageModelV4Message, mark: string): LanguageModelV4Message {
  switch (message.role) {
    case 'system':
      return { ...message, content: `${mark}${message.content}` };
    case 'user':
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === 'text' ? { ...part, text: `${mark}${part.text}` } : part,
        ),
      };
    case 'assistant':
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === 'text' || part.type === 'reasoning' ? { ...part, text: `${mark}${part.text}` } : part,
        ),
      };
    case 'tool':
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === 'tool-result' && part.output.type === 'text'
            ? { ...part, output: { ...part.output, value: `${mark}${part.output.value}` } }
            : part,
        ),
      };
  }
}

/** Tokens of every text of the messages. */
const tokensOf = (messages: LanguageModelV4Prompt, counter: TokenCounter): number =>
  promptTexts(messages).reduce((sum, text) => sum + counter.count(text), 0);

/**
 * The history up to the first message at which the tokens of its texts reach `TARGET_TOKENS`, then without the
 * trailing messages that are not a user or tool message.
 */
function cutAtTokens(history: LanguageModelV4Prompt, counter: TokenCounter): LanguageModelV4Prompt {
  let tokens = 0;
  let end = history.length;
  for (const [index, message] of history.entries()) {
    tokens += tokensOf([message], counter);
    if (tokens >= TARGET_TOKENS) {
      end = index + 1;
      break;
    }
  }
  const cut = history.slice(0, end);
  while (cut.length > 1 && cut.at(-1)?.role !== 'user' && cut.at(-1)?.role !== 'tool') cut.pop();
  return cut;
}

/** How many passes over conversations of `tokens` tokens reach `TARGET_TOKENS`. */
const passesFor = (tokens: number): number => Math.max(1, Math.ceil(TARGET_TOKENS / Math.max(1, tokens)));

/**
 * ~200k tokens of one agent source: its runs one after another (`agentHistory`), again from the first when they run
 * out, each text of a repetition marked "Part N." so no message or text is an identical copy of an earlier one.
 */
function sourceHistory(prompts: readonly LanguageModelV4Prompt[], counter: TokenCounter): LanguageModelV4Prompt {
  const nonSystem = prompts.map((prompt) => prompt.filter((message) => message.role !== 'system'));
  const passes = passesFor(nonSystem.reduce((sum, messages) => sum + tokensOf(messages, counter), 0));
  const repeated = Array.from({ length: passes }, (_unused, pass) =>
    pass === 0
      ? prompts
      : prompts.map((prompt) =>
          prompt.map((message) => (message.role === 'system' ? message : marked(message, `Part ${pass + 1}. `))),
        ),
  ).flat();
  const length = nonSystem.reduce((sum, messages) => sum + messages.length, 0) * passes;
  return cutAtTokens(agentHistory(repeated, length), counter);
}

/**
 * ~200k tokens of chat: a system message, then every message of the fixture chats as a user or assistant text
 * message, the chats one after another, again from the first when they run out with every text of a repetition
 * marked "Part N.".
 */
function chatHistory(sessions: readonly SessionFile[], counter: TokenCounter): LanguageModelV4Prompt {
  const messages = sessions
    .flatMap((session) => session.messages)
    .flatMap((message) =>
      message.role === 'user' || message.role === 'assistant' ? [chatMessage(message.role, message.content)] : [],
    );
  const passes = passesFor(tokensOf(messages, counter));
  const history: LanguageModelV4Prompt = [{ role: 'system', content: CHAT_SYSTEM }];
  for (let pass = 0; pass < passes; pass++)
    history.push(...(pass === 0 ? messages : messages.map((message) => marked(message, `Part ${pass + 1}. `))));
  return cutAtTokens(history, counter);
}

/** The conversations of (a) and (b): one per agent source of the trajectories, and the chats. */
export async function fixtureHistories(dir: string, counter: TokenCounter): Promise<NamedHistory[]> {
  const sessions = readSessions(resolve(dir, 'trajectories.jsonl'));
  const prompts = await sessionPrompts(sessions);
  const histories: NamedHistory[] = [];
  for (const source of [...new Set(sessions.map((session) => session.source ?? 'unknown'))]) {
    const own = prompts.filter((_prompt, index) => (sessions[index]?.source ?? 'unknown') === source);
    histories.push({ name: source, history: sourceHistory(own, counter) });
  }
  const chats = readSessions(resolve(dir, 'conversations.jsonl'));
  histories.push({ name: `${chats[0]?.source ?? 'chat'} chats`, history: chatHistory(chats, counter) });
  return histories;
}

/**
 * Creates a middleware and makes its first call on a fresh parse of `json` (the parse not timed): the milliseconds
 * from creating it to the end of the call, and the trigger names of every decision it reported.
 */
async function firstCall(
  json: string,
  options: ContextCompressionOptions,
): Promise<{ ms: number; triggers: string[]; middleware: ReturnType<typeof contextCompression> }> {
  const prompt = JSON.parse(json) as LanguageModelV4Prompt;
  const triggers: string[] = [];
  beforeTimedStep();
  const started = performance.now();
  const middleware = contextCompression({
    ...options,
    onCompress: (event) => triggers.push(...event.decisions.map((decision) => decision.trigger)),
  });
  await middleware.transformParams?.({ type: 'generate', params: { prompt }, model });
  return { ms: performance.now() - started, triggers, middleware };
}

/** The milliseconds of a later call of the same middleware on a fresh parse of `json` (the parse not timed). */
async function laterCall(middleware: ReturnType<typeof contextCompression>, json: string): Promise<number> {
  const prompt = JSON.parse(json) as LanguageModelV4Prompt;
  beforeTimedStep();
  const started = performance.now();
  await middleware.transformParams?.({ type: 'generate', params: { prompt }, model });
  return performance.now() - started;
}

/** One run of (a): the first call with defaults and on the counting path only, the two counts and the parse. */
async function warmSample(
  json: string,
  texts: readonly string[],
  encoding: Tiktoken,
  counter: TokenCounter,
): Promise<WarmSample> {
  // the parse and the gpt-tokenizer count follow steps that leave little garbage: no collection before them
  const parse = timed(() => JSON.parse(json), false);
  const call = await firstCall(json, { contextWindow: WINDOW });
  const floor = await firstCall(json, {
    contextWindow: WINDOW,
    triggers: { semantic: false, staleness: false },
    masking: false,
    folding: false,
  });
  const tiktoken = timed(() => {
    for (const text of texts) countInChunks(text, (chunk) => encoding.encode(chunk, [], []).length);
  });
  const gptTokenizer = timed(() => {
    for (const text of texts) counter.count(text);
  }, false);
  return { call: call.ms, floor: floor.ms, tiktoken, gptTokenizer, parse, triggers: call.triggers };
}

/** Prints the figures of (a) for one conversation. */
function printWarm({ name, history }: NamedHistory, tokens: number, samples: readonly WarmSample[]): void {
  const call = median(samples, (sample) => sample.call);
  const floor = median(samples, (sample) => sample.floor);
  const tiktoken = median(samples, (sample) => sample.tiktoken);
  const gptTokenizer = median(samples, (sample) => sample.gptTokenizer);
  console.log(
    `   ${name}: ${format(history.length)} messages, ${format(tokens)} tokens: first call ${ms(call)}; ${ratio(call, tiktoken)} warm tiktoken (target <= 0.30x), ${ratio(call, gptTokenizer)} gpt-tokenizer counting; ${compressedLabel(samples[0]?.triggers ?? [])}`,
  );
  console.log(
    `     counting path only (semantic and staleness triggers, masking and folding off): ${ms(floor)}, ${ratio(floor, tiktoken)} warm tiktoken; warm tiktoken ${ms(tiktoken)}, gpt-tokenizer ${ms(gptTokenizer)}, JSON.parse ${ms(median(samples, (sample) => sample.parse))}`,
  );
}

/** (a): every conversation's first call on a warm server beside counting its texts. */
export async function warmFirstCalls(histories: readonly NamedHistory[], counter: TokenCounter): Promise<void> {
  console.log(
    `   a. a new conversation of ~${format(TARGET_TOKENS)} tokens on a warm server (tokenizer loaded, JIT warm): create a middleware (${format(WINDOW)}-token window, defaults) and make its first call, fresh objects (JSON.parse, not timed); median of ${TIMED_RUNS} after ${WARM_UP_RUNS} untimed runs; counting: every text once, warm; gpt-tokenizer's merge cache emptied before each timed step`,
  );
  const encoding = get_encoding('o200k_base');
  try {
    for (const named of histories) {
      const json = JSON.stringify(named.history);
      const texts = promptTexts(named.history);
      const samples: WarmSample[] = [];
      for (let run = -WARM_UP_RUNS; run < TIMED_RUNS; run++) {
        const sample = await warmSample(json, texts, encoding, counter);
        if (run >= 0) samples.push(sample);
      }
      printWarm(named, tokensOf(named.history, counter), samples);
    }
  } finally {
    encoding.free();
  }
}

/** What a fresh child reports for one mode on one input file. */
function child(mode: 'engine' | 'tiktoken', inputPath: string): FirstCallOutput {
  const output = runChild<FirstCallOutput>([mode, inputPath], CHILD_TIMEOUT_MS, 'first-call-child.ts');
  if (!output) throw new Error(`the ${mode} child on ${inputPath} ran past ${CHILD_TIMEOUT_MS} ms`);
  return output;
}

/** (b): every conversation's first call in a fresh process beside tiktoken's load and count in another. */
export function coldFirstCalls(histories: readonly NamedHistory[]): void {
  console.log(
    `\n   b. the first call in a cold process: import the adapter, create the middleware and call it (the AI SDK already loaded), against importing tiktoken, get_encoding('o200k_base') and counting every text once; each in a fresh process, median of ${COLD_CHILDREN}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'first-calls-'));
  try {
    for (const [index, { name, history }] of histories.entries()) {
      const inputPath = join(dir, `history-${index}.json`);
      const input: FirstCallInput = { prompt: history, texts: promptTexts(history), contextWindow: WINDOW };
      writeFileSync(inputPath, JSON.stringify(input));
      const engine: FirstCallOutput[] = [];
      const tiktoken: FirstCallOutput[] = [];
      for (let run = 0; run < COLD_CHILDREN; run++) {
        engine.push(child('engine', inputPath));
        tiktoken.push(child('tiktoken', inputPath));
      }
      const engineMs = median(engine, (output) => output.ms);
      const tiktokenMs = median(tiktoken, (output) => output.ms);
      const from = engine.every((output) => output.built) ? 'the built package' : 'the sources through tsx';
      console.log(
        `   ${name}: import (${from}) + first call ${ms(engineMs)} (import ${ms(median(engine, (output) => output.loadMs))}); tiktoken import + get_encoding + count ${ms(tiktokenMs)} (import + get_encoding ${ms(median(tiktoken, (output) => output.loadMs))}); ${ratio(engineMs, tiktokenMs)} (target <= 0.80x)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Generated sentences, for when the fixture chats are absent. */
function generatedTexts(count: number): string[] {
  const random = pseudoRandom(5);
  return Array.from({ length: count }, () =>
    Array.from({ length: 24 }, () => WORDS[Math.floor((random.next().value as number) * WORDS.length)]).join(' '),
  );
}

/** About `chars` characters of prose: the texts one per line, each numbered so no two lines are the same. */
function prose(texts: readonly string[], chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let line = 0; length < chars; line++) {
    const text = `${line + 1}. ${texts[line % texts.length] ?? ''}`;
    lines.push(text);
    length += text.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

/** `chars` common CJK characters in pseudo-random order, without spaces or punctuation. */
function cjk(chars: number): string {
  const random = pseudoRandom(42);
  let text = '';
  while (text.length < chars) text += COMMON_CJK[Math.floor((random.next().value as number) * COMMON_CJK.length)];
  return text;
}

/** `chars` characters of base64 of pseudo-random bytes: one run without a space. */
function base64(chars: number): string {
  const random = pseudoRandom(11);
  const bytes = Uint8Array.from({ length: Math.ceil((chars * 3) / 4) }, () =>
    Math.floor((random.next().value as number) * 256),
  );
  return Buffer.from(bytes).toString('base64').slice(0, chars);
}

/** The huge messages of (c), each with the window it is called with. */
function hugeCases(texts: readonly string[]): Array<{ name: string; text: string; contextWindow: number }> {
  return [
    { name: 'English-like prose, 5,000,000 chars', text: prose(texts, 5_000_000), contextWindow: HUGE_WINDOW },
    { name: 'CJK, 200,000 chars', text: cjk(200_000), contextWindow: WINDOW },
    { name: 'base64, 200,000 chars', text: base64(200_000), contextWindow: WINDOW },
    { name: 'one character x 1,000,000', text: 'a'.repeat(1_000_000), contextWindow: WINDOW },
  ];
}

/** A chat of `ORDINARY_MESSAGES` ordinary messages with `huge` as the user message at `HUGE_INDEX`, then a question. */
function hugeConversation(texts: readonly string[], huge: string): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [{ role: 'system', content: CHAT_SYSTEM }];
  for (let index = 1; index <= ORDINARY_MESSAGES; index++) {
    const text = index === HUGE_INDEX ? huge : (texts[index] ?? '');
    prompt.push(chatMessage(index % 2 === 1 ? 'user' : 'assistant', text));
  }
  prompt.push(chatMessage('user', NEW_QUESTION));
  return prompt;
}

/** One run of (c): the first call, the next turn on the same middleware, and counting the huge text once. */
async function hugeSample(
  json: string,
  nextJson: string,
  huge: string,
  contextWindow: number,
  counter: TokenCounter,
): Promise<HugeSample> {
  const first = await firstCall(json, { contextWindow });
  const next = await laterCall(first.middleware, nextJson);
  beforeTimedStep();
  const started = performance.now();
  const tokens = counter.count(huge);
  const count = performance.now() - started;
  return { call: first.ms, next, count, tokens, triggers: first.triggers };
}

/** (c): one huge or pathological message early in a chat, first call against counting that message. */
async function hugeMessages(texts: readonly string[], counter: TokenCounter): Promise<void> {
  console.log(
    `\n   c. one huge message at index ${HUGE_INDEX} of a chat of ${ORDINARY_MESSAGES + 2} messages, the last a new question: the first call on a warm server (new middleware, fresh objects), median of ${HUGE_RUNS} after ${HUGE_WARM_UP_RUNS} untimed; counting: that message's text once with gpt-tokenizer, warm; gpt-tokenizer's merge cache emptied before each timed step; next turn: the model's answer and a new question appended, same middleware`,
  );
  for (const { name, text, contextWindow } of hugeCases(texts)) {
    const prompt = hugeConversation(texts, text);
    const json = JSON.stringify(prompt);
    const nextJson = JSON.stringify([
      ...prompt,
      chatMessage('assistant', texts[ORDINARY_MESSAGES + 1] ?? 'Start with the first item.'),
      chatMessage('user', NEXT_QUESTION),
    ]);
    const samples: HugeSample[] = [];
    for (let run = -HUGE_WARM_UP_RUNS; run < HUGE_RUNS; run++) {
      const sample = await hugeSample(json, nextJson, text, contextWindow, counter);
      if (run >= 0) samples.push(sample);
    }
    const call = median(samples, (sample) => sample.call);
    const count = median(samples, (sample) => sample.count);
    console.log(
      `   ${name} (${format(samples[0]?.tokens ?? 0)} tokens), ${format(contextWindow)}-token window: first call ${ms(call)}; counting it ${ms(count)}; ${ratio(call, count)} (target <= 1.00x); next turn ${ms(median(samples, (sample) => sample.next))}; ${compressedLabel(samples[0]?.triggers ?? [])}`,
    );
  }
}

/** Section 8: (a) and (b) on the fixtures when they are beside the checkout, (c) on their chats or generated text. */
export async function firstCalls(): Promise<void> {
  const dir = fixturesDir();
  const counter = gptTokenizerCounter();
  await counter.load?.();
  console.log('\n8. First calls of new conversations, beside counting the same texts (o200k_base)');
  if (dir) {
    const histories = await fixtureHistories(dir, counter);
    await warmFirstCalls(histories, counter);
    coldFirstCalls(histories);
  } else {
    console.log(
      '   a. and b. new conversations of ~200k tokens: skipped, ../shared/fixtures is not beside this checkout',
    );
  }
  const texts = dir
    ? readSessions(resolve(dir, 'conversations.jsonl')).flatMap((session) =>
        session.messages.map((message) => message.content),
      )
    : generatedTexts(500);
  await hugeMessages(texts, counter);
}
