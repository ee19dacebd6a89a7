import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { modelSummarizer } from '../../adapters/ai-sdk/index.js';
import { chatModelSummarizer } from '../../adapters/langchain/index.js';
import type { CompressionReport } from '../../src/reports/compression-report.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import { type Answer, CLIENTS, type Client, type ClientSettings, type Turn, type WrapOptions } from './clients.js';
import {
  type ProviderRequest,
  type ProviderServer,
  type ProviderServerConfig,
  type Reply,
  startProviderServer,
} from './provider-server.js';

/**
 * The provider's own terms, through the real provider packages over HTTP: a local server speaks each wire format,
 * counts each request and rejects one over its window with the provider's real error body. Every call of a resent
 * long chat and of a tool loop answers, with at most one rejection per conversation and none after it; Anthropic's
 * `max_tokens` is kept free; a window that needs a beta flag is used only with it; a summarizer's rejection is
 * learned from and retried; `onCall` hears of each call once.
 */

const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(config: ProviderServerConfig): Promise<ProviderServer> {
  const server = await startProviderServer({ lifetimeMs: 120_000, ...config });
  servers.push(server);
  return server;
}

const WORDS = (
  'harbor lantern copper meadow violet granite orbit saffron thimble walnut canyon ember falcon glacier hazel ' +
  'juniper kettle lagoon marble nectar oyster pepper quartz raven spruce tundra umber velvet willow yarrow zephyr'
).split(' ');

/** `tokens` o200k tokens (a sentence more at most) of plain, varied sentences, the same for the same seed. */
function filler(seed: number, tokens: number): string {
  const sentences: string[] = [];
  let state = seed * 7_919 + 13;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
  const pick = () => WORDS[next() % WORDS.length];
  for (let count = 0; count < tokens; ) {
    const sentence = `Entry ${seed}.${sentences.length}: the ${pick()} ${pick()} near ${pick()} measured ${next() % 997} units.`;
    count += countTokens(` ${sentence}`);
    sentences.push(sentence);
  }
  return sentences.join(' ');
}

/** A chat of `turns` user/assistant pairs, about `tokens` in all. */
function longChat(turns: number, tokens: number): Turn[] {
  const history: Turn[] = [];
  for (let turn = 0; turn < turns; turn++) {
    history.push({ role: 'user', text: filler(turn * 2, Math.floor(tokens / turns) - 40) });
    history.push({ role: 'assistant', text: `Noted entry ${turn}.` });
  }
  return history;
}

/** What the adapters told of a conversation. */
interface Heard {
  readonly calls: CompressionReport[];
  readonly errors: CompressionErrorEvent[];
}

function listening(extra: WrapOptions = {}): { options: WrapOptions; heard: Heard } {
  const heard: Heard = { calls: [], errors: [] };
  return {
    heard,
    options: {
      ...extra,
      onCall: (report) => heard.calls.push(report),
      onError: (event) => heard.errors.push(event),
    },
  };
}

/** Requests of one API on a server, and those it rejected. */
function requestsOf(server: ProviderServer, client: Pick<Client, 'api'>) {
  const all = server.requests.filter((request) => request.api === client.api);
  return { all, rejected: all.filter((request) => request.rejected) };
}

/** No rejection after the first request answered after a rejection: the conversation learned once. */
function expectNoneAfterRecovery(requests: readonly ProviderRequest[]): void {
  const first = requests.findIndex((request) => request.rejected);
  if (first < 0) return;
  expect(requests.slice(first + 1).some((request) => request.rejected)).toBe(false);
}

/** A resent chat: `calls` calls, each the history so far and a new user message, the answer appended. */
async function resend(
  conversation: ReturnType<Client['open']>,
  history: Turn[],
  calls: number,
  stream: boolean,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let call = 0; call < calls; call++) {
    history.push({ role: 'user', text: `Question ${call}: ${filler(1_000 + call, 1_000)} What stands out?` });
    const answer = await conversation.call(history, stream);
    answers.push(answer);
    history.push({ role: 'assistant', text: answer.text });
  }
  return answers;
}

/** The documented windows of the clients' models. */
const DOCUMENTED_WINDOWS: ProviderServerConfig['windows'] = {
  'openai-responses': 128_000,
  'openai-chat': 128_000,
  anthropic: 200_000,
  google: 1_048_576,
};

/**
 * How a server departs from what the engine believes of the model: a deployment with a smaller window than the
 * documented one, and a provider that counts 2.5 times our tokenizer in the documented window.
 */
const SERVER_TERMS: readonly [string, ProviderServerConfig][] = [
  ['a window smaller than the documented one', { window: 40_000 }],
  ['a count 2.5x ours', { windows: DOCUMENTED_WINDOWS, ratio: 2.5 }],
];

/** Calls of each resent chat: enough for the prompt to grow back to the threshold after the first fold. */
const CALLS = 10;

const TEXT_REPLY: Reply = { text: 'Understood; the entries are consistent.' };

for (const client of CLIENTS) {
  describe(client.name, () => {
    for (const stream of [false, true]) {
      const mode = stream ? 'streamed' : 'not streamed';

      for (const [terms, config] of SERVER_TERMS) {
        it(`answers every call of a resent long chat, with at most one rejection: ${terms} (${mode})`, async () => {
          const server = await serve({ ...config, countsOutput: false, reply: () => TEXT_REPLY });
          const { options, heard } = listening();
          const answers = await resend(client.open(server, options), longChat(12, 54_000), CALLS, stream);

          const { all, rejected } = requestsOf(server, client);
          expect(answers.map((answer) => answer.text)).toEqual(Array(CALLS).fill(TEXT_REPLY.text));
          expect(rejected.length).toBeLessThanOrEqual(1);
          expectNoneAfterRecovery(all);
          expect(all.length).toBe(CALLS + rejected.length);
          // one report per call; a retried call's tells of the rejection, in onCall and in the answer's metadata
          expect(heard.calls).toHaveLength(CALLS);
          const retried = heard.calls.filter((report) => report.rejection);
          expect(retried).toHaveLength(rejected.length);
          expect(answers.filter((answer) => answer.report?.rejection)).toHaveLength(rejected.length);
          for (const report of retried) expect(report.rejection?.providerMessage).toEqual(expect.any(String));
          expect(heard.errors.map((event) => event.fallback)).toEqual(rejected.map(() => 'retried'));
        });
      }

      it(`answers every step of a tool loop, with at most one rejection (${mode})`, async () => {
        let answered = 0;
        const steps = 12;
        const server = await serve({
          window: 16_000,
          countsOutput: false,
          reply: (request) => {
            answered++;
            const hasTools = Array.isArray((request.body as { tools?: unknown[] }).tools);
            return hasTools && answered < steps
              ? { toolCalls: [{ name: 'readFile', args: { path: `src/module_${answered}.ts` } }] }
              : { text: 'All modules read.' };
          },
        });
        const { options, heard } = listening();
        const result = await client
          .open(server, options)
          .loop(
            'Read the modules one by one.',
            (path) => `// ${path}\n${filler(path.length * 31 + answered, 2_500)}`,
            stream,
            steps,
          );

        const { all, rejected } = requestsOf(server, client);
        expect(result).toEqual({ steps, text: 'All modules read.' });
        expect(rejected.length).toBeLessThanOrEqual(1);
        expectNoneAfterRecovery(all);
        expect(heard.calls).toHaveLength(steps);
        expect(heard.calls.filter((report) => report.rejection)).toHaveLength(rejected.length);
      });
    }
  });
}

describe("Anthropic's max_tokens, counted against the window", () => {
  /** The provider package's default, and 64,000 asked for by the user (LangChain's default is 16,384). */
  const outputs: readonly [string, ClientSettings][] = [
    ['the default max_tokens', {}],
    ['max_tokens of 64,000 given', { maxOutputTokens: 64_000 }],
  ];
  for (const client of CLIENTS.filter((each) => each.api === 'anthropic')) {
    for (const [output, settings] of outputs) {
      for (const stream of [false, true]) {
        // Anthropic's SDK (under @langchain/anthropic) refuses a non-streamed call of more than about 21k max_tokens
        if (!stream && settings.maxOutputTokens && client.name.startsWith('@langchain')) continue;
        it(`${client.name}: input plus ${output} never exceeds the window (${stream ? 'streamed' : 'not streamed'})`, async () => {
          // Anthropic's own terms: a 200k window, the input and max_tokens counted together. The chat is below the
          // threshold of a budget that keeps 4,096 tokens for output, and over the window with 64,000 of max_tokens
          const server = await serve({ window: 200_000, reply: () => TEXT_REPLY });
          const { options, heard } = listening();
          await resend(client.open(server, options, settings), longChat(20, 134_000), 3, stream);
          const { all, rejected } = requestsOf(server, client);
          expect(rejected).toEqual([]);
          for (const request of all) {
            // what each package sends for claude-sonnet-4-5 when the user gives none
            const packageDefault = client.name.startsWith('@ai-sdk') ? 64_000 : 16_384;
            expect(request.maxTokens).toBe(settings.maxOutputTokens ?? packageDefault);
            expect(request.inputTokens + (request.maxTokens ?? 0)).toBeLessThanOrEqual(200_000);
          }
          expect(heard.calls).toHaveLength(3);
        });
      }
    }
  }

  it('the AI SDK keeps free the max_tokens @ai-sdk/anthropic sends for each model', async () => {
    const { anthropicDefaultMaxTokens } = await import('../../adapters/ai-sdk/provider-terms.js');
    const server = await serve({ window: 1_000_000, countsOutput: false, reply: () => TEXT_REPLY });
    const client = CLIENTS.find((each) => each.name === '@ai-sdk/anthropic') as Client;
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    const { generateText } = await import('ai');
    const provider = createAnthropic({ baseURL: server.baseURL('anthropic'), apiKey: 'test' });
    const ids = [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-1',
      'claude-opus-4-20250514',
      'claude-sonnet-4-20250514',
      'claude-haiku-4-5',
      'claude-sonnet-4-6',
      'claude-opus-4-7',
      'claude-3-haiku-20240307',
      'claude-3-5-sonnet-20241022',
      // models the package does not list: its newest default
      'claude-mythos-1',
      'claude-haiku-5',
    ];

    for (const id of ids) {
      await generateText({ model: provider(id), prompt: 'Hi', maxRetries: 0 });
      expect([id, server.requests.at(-1)?.maxTokens]).toEqual([id, anthropicDefaultMaxTokens(id).tokens]);
    }
    expect(client.api).toBe('anthropic');
  });
});

describe('a provider that names the output it counts against its window', () => {
  for (const client of CLIENTS.filter((each) => each.api === 'openai-chat')) {
    it(`${client.name}: learns the window and the output from the error's figures, and retries once`, async () => {
      // a deployment with a 60k window that counts max_tokens: the error names both ("... in the completion")
      const server = await serve({ window: 60_000, countsOutput: { 'openai-chat': true }, reply: () => TEXT_REPLY });
      const { options, heard } = listening();
      const answers = await resend(
        client.open(server, options, { maxOutputTokens: 30_000 }),
        longChat(12, 80_000),
        CALLS,
        false,
      );
      const { all, rejected } = requestsOf(server, client);
      expect(answers).toHaveLength(CALLS);
      expect(rejected).toHaveLength(1);
      expectNoneAfterRecovery(all);
      for (const request of all.filter((each) => !each.rejected))
        expect(request.inputTokens + (request.maxTokens ?? 0)).toBeLessThanOrEqual(60_000);
      const [learned] = heard.calls.flatMap((report) => (report.rejection ? [report.rejection] : []));
      expect(learned).toMatchObject({ providerLimit: 60_000, providerOutputTokens: 30_000 });
      expect(learned?.learnedInputLimit).toBe(30_000);
    });
  }
});

describe('a window that holds only with a beta flag', () => {
  for (const client of CLIENTS.filter((each) => each.api === 'anthropic')) {
    it(`${client.name}: the 1M window is used only with context-1m`, async () => {
      const server = await serve({ window: 200_000, countsOutput: false, reply: () => TEXT_REPLY });
      const chat = () => longChat(20, 234_000);
      const { options } = listening();
      await resend(client.open(server, options), chat(), 1, false);
      const plain = requestsOf(server, client).all;
      expect(plain.map((request) => request.rejected)).toEqual([undefined]);
      expect(plain[0]?.inputTokens).toBeLessThan(200_000);

      const flagged: ClientSettings = { betas: ['context-1m-2025-08-07'] };
      const { options: second } = listening();
      await resend(client.open(server, second, flagged), chat(), 1, false);
      const long = requestsOf(server, client).all.slice(plain.length);
      expect(long.map((request) => request.rejected)).toEqual([undefined]);
      // sent as it came: nothing needed compressing in the long window
      expect(long[0]?.inputTokens).toBeGreaterThan(234_000);
      expect(long[0]?.window).toBe(1_000_000);
    });
  }
});

/** A session state as a summarizer model writes it (structured output), marked to be found in the prompt. */
const MODEL_STATE = JSON.stringify({
  logos: ['STATE-FROM-THE-MODEL: the entries were reviewed'],
  pathos: [],
  abstract: [],
  salience: [],
  conversationSummary: 'The user listed entries; the assistant reviewed them.',
});

/** The summarizer's requests are the ones that ask for structured output. */
function asksForState(request: ProviderRequest): boolean {
  const body = request.body as { response_format?: unknown; text?: { format?: unknown } };
  return body.response_format !== undefined || body.text?.format !== undefined;
}

describe("a summarizer's rejections", () => {
  const summarizers = [
    {
      name: 'the AI SDK',
      client: CLIENTS.find((each) => each.name === '@ai-sdk/anthropic') as Client,
      summarizer: (server: ProviderServer, contextWindow: number) =>
        modelSummarizer(createOpenAI({ baseURL: server.baseURL('openai'), apiKey: 'test' }).chat('gpt-4o'), {
          contextWindow,
          maxRetries: 0,
        }),
    },
    {
      name: 'LangChain',
      client: CLIENTS.find((each) => each.name === '@langchain/anthropic') as Client,
      summarizer: (server: ProviderServer, contextWindow: number) =>
        chatModelSummarizer(
          new ChatOpenAI({
            model: 'gpt-4o',
            apiKey: 'test',
            maxRetries: 0,
            configuration: { baseURL: server.baseURL('openai') },
          }),
          { contextWindow },
        ),
    },
  ];
  for (const { name, client, summarizer } of summarizers) {
    // the summarizer's window, and a main model's window and chat that fold more than one of its calls takes: at
    // 1.2x the chunks' 10% margin fails in a 128k window (133k > 128k), at 1.75x in any
    const cases = [
      { ratio: 1.2, window: 128_000, mainWindow: 200_000, chat: 260_000 },
      { ratio: 1.75, window: 64_000, mainWindow: 100_000, chat: 150_000 },
    ];
    it(`${name}: the summarizer's usage is in the report of the call whose fold it made`, async () => {
      const main = await serve({ window: 200_000, reply: () => TEXT_REPLY });
      const folding = await serve({
        window: 128_000,
        reply: (request) => (asksForState(request) ? { text: MODEL_STATE } : TEXT_REPLY),
      });
      const { options, heard } = listening({ contextWindow: 100_000, summarizer: summarizer(folding, 128_000) });
      const answers = await resend(client.open(main, options), longChat(120, 150_000), 2, false);
      const calls = folding.requests.filter(asksForState);
      expect(calls.length).toBeGreaterThan(0);
      // one call folded: its report (onCall's and the answer's) gives what the summarizer's provider counted
      const folded = heard.calls.filter((report) => (report.change?.summarizerCalls ?? 0) > 0);
      expect(folded).toHaveLength(1);
      const usage = {
        inputTokens: calls.reduce((sum, request) => sum + request.inputTokens, 0),
        cacheReadTokens: 0,
        model: 'gpt-4o',
      };
      expect(folded[0]?.change?.summarizerUsage).toMatchObject(usage);
      expect(folded[0]?.change?.summarizerUsage?.outputTokens).toBeGreaterThan(0);
      const answered = answers.find((answer) => (answer.report?.change?.summarizerCalls ?? 0) > 0);
      expect(answered?.report?.change?.summarizerUsage).toEqual(folded[0]?.change?.summarizerUsage);
    });
    for (const { ratio, window, mainWindow, chat } of cases) {
      it(`${name}: a summarizer whose provider counts ${ratio}x ours folds with one rejection`, async () => {
        const main = await serve({ window: 200_000, reply: () => TEXT_REPLY });
        const folding = await serve({
          ratio,
          window,
          reply: (request) => (asksForState(request) ? { text: MODEL_STATE } : TEXT_REPLY),
        });
        const { options, heard } = listening({ contextWindow: mainWindow, summarizer: summarizer(folding, window) });
        const answers = await resend(client.open(main, options), longChat(120, chat), 2, false);

        const calls = folding.requests.filter(asksForState);
        const rejected = calls.filter((request) => request.rejected);
        expect(answers).toHaveLength(2);
        expect(calls.length).toBeGreaterThan(1);
        expect(rejected).toHaveLength(1);
        expectNoneAfterRecovery(calls);
        // the state the main model sees is the summarizer model's, not a fallback's
        expect(JSON.stringify(main.requests.at(-1)?.body)).toContain('STATE-FROM-THE-MODEL');
        expect(heard.errors.filter((event) => event.fallback !== 'retried')).toEqual([]);
        const learned = heard.errors.map((event) => event.error);
        expect(learned).toHaveLength(rejected.length);
        for (const error of learned)
          expect(error).toMatchObject({ name: 'ProviderOverflowError', modelKey: 'model:gpt-4o' });
      });
    }
  }
});
