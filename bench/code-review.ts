/**
 * Section 11: the cadence of compressions in a code review, as a new user runs it. `generateText` with a `readFile`
 * tool and `withContextCompression(model, { contextWindow })` and nothing else; a mock model reads one file of this
 * repository per step (each read about a given share of the window) and answers at the end; the provider counts 15%
 * more than the estimate, so the calibration moves as it does against a real provider. The first message carries a
 * constraint that must reach every prompt. Per window: the compressions (calls whose prompt does not begin with the
 * previous call's: folds, masks, drops, refits), the mean number of calls between two of them from the first on, the
 * refits of a stored state, and the share of prompt tokens a prefix cache could read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import {
  type CompressEvent,
  type CompressionReport,
  modelSummarizer,
  withContextCompression,
} from '../adapters/ai-sdk/index.js';

const ROOT = join(import.meta.dirname, '..');
/** Source files name the special tokens as text: counted as text. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const tokensOf = (text: string) => countTokens(text, PLAIN_TEXT);
const CONSTRAINT = 'Constraint: never propose a change to an exported name; answer in British English.';
/** The provider counts this much more than the estimate. */
const PROVIDER_RATIO = 1.15;

/** One run of the review: the window, the tokens of a read, the steps. */
export interface ReviewCase {
  readonly window: number;
  readonly readTokens: number;
  readonly steps: number;
}

/** What one review did. */
export interface ReviewFigures {
  readonly compressions: number;
  /** Mean calls between two compressions, from the first compression to the last call. */
  readonly meanGap: number;
  readonly refits: number;
  /** Prompts that carried the first message's constraint, of all. */
  readonly constraintKept: number;
  readonly prompts: number;
  /** Prompt tokens a prefix cache could read (the prefix shared with the previous call), of all sent. */
  readonly cachedShare: number;
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  walk(join(ROOT, 'src'));
  return files.sort();
}

/** Files of this repository cut or joined to about `tokens` o200k tokens each, one per step. */
function readings(steps: number, tokens: number): Map<string, string> {
  const texts = sourceFiles().map((path) => `// ${relative(ROOT, path)}\n${readFileSync(path, 'utf8')}`);
  const all = texts.join('\n');
  const out = new Map<string, string>();
  const chars = Math.round(tokens * (all.length / tokensOf(all)));
  for (let step = 0; step < steps; step++) {
    const start = (step * chars) % Math.max(1, all.length - chars);
    out.set(`file-${step}.ts`, all.slice(start, start + chars));
  }
  return out;
}

const promptText = (prompt: LanguageModelV4Prompt) => JSON.stringify(prompt);

/**
 * The provider's count of a prompt: its texts, tool inputs and results (a text result as its text, as providers
 * tokenize it), 15% over o200k, and 4 a message.
 */
function providerCount(prompt: LanguageModelV4Prompt): number {
  const texts = prompt.flatMap((message) =>
    typeof message.content === 'string'
      ? [message.content]
      : message.content.map((part) =>
          part.type === 'text'
            ? part.text
            : part.type === 'tool-call'
              ? JSON.stringify(part.input)
              : part.type === 'tool-result'
                ? part.output.type === 'text'
                  ? part.output.value
                  : JSON.stringify(part.output)
                : '',
        ),
  );
  return Math.round(tokensOf(texts.join('\n')) * PROVIDER_RATIO) + 4 * prompt.length;
}

/** A request that asks for a summary: a continued prompt's instruction last, or the separate request's template. */
const summaryKind = (prompt: LanguageModelV4Prompt): 'continued' | 'separate' | undefined => {
  const last = prompt.at(-1);
  if (
    last?.role === 'user' &&
    last.content.some((part) => part.type === 'text' && part.text.startsWith('[Memory update'))
  )
    return 'continued';
  return promptText(prompt).includes('messages_to_fold') ? 'separate' : undefined;
};

/** A state answer for the mock's summary requests: the constraint and the files it read. */
const summaryAnswer = (prompt: LanguageModelV4Prompt) =>
  JSON.stringify({
    logos: [CONSTRAINT, ...new Set(promptText(prompt).match(/file-\d+\.ts/g) ?? [])].slice(0, 12),
    pathos: [],
    abstract: [],
    salience: [],
    conversationSummary: 'The assistant reads the files of the repository one by one.',
  });

/**
 * The summary requests' input, priced as a prompt cache prices it: the messages a request shares from the start
 * with the request before it (of any kind) at 0.1x, the rest at 1.25x, in o200k tokens; and what the same input
 * costs uncached (1x). `self`: the agent's model as its own summarizer, continuing its cached prompt; else the same
 * model by a separate request.
 */
export async function summaryCost(
  { window, readTokens, steps }: ReviewCase,
  self: boolean,
): Promise<{ requests: number; priced: number; uncached: number }> {
  const requests: LanguageModelV4Prompt[] = [];
  const summaries: number[] = [];
  await codeReview({ window, readTokens, steps }, { summarizer: self ? 'self' : 'separate', requests, summaries });
  let priced = 0;
  let uncached = 0;
  for (const index of summaries) {
    const prompt = requests[index] as LanguageModelV4Prompt;
    const before = requests[index - 1];
    let shared = 0;
    while (
      before &&
      shared < Math.min(prompt.length, before.length) &&
      promptText([prompt[shared] as never]) === promptText([before[shared] as never])
    )
      shared++;
    const sharedTokens = tokensOf(promptText(prompt.slice(0, shared)));
    const total = tokensOf(promptText(prompt));
    priced += sharedTokens * 0.1 + (total - sharedTokens) * 1.25;
    uncached += total;
  }
  return { requests: summaries.length, priced, uncached };
}

export async function codeReview(
  { window, readTokens, steps }: ReviewCase,
  summary?: { summarizer: 'self' | 'separate'; requests: LanguageModelV4Prompt[]; summaries: number[] },
): Promise<ReviewFigures> {
  const files = readings(steps, readTokens);
  const names = [...files.keys()];
  let call = 0;
  const prompts: LanguageModelV4Prompt[] = [];
  const provider = new MockLanguageModelV4({
    modelId: 'review-model',
    doGenerate: async ({ prompt }: LanguageModelV4CallOptions) => {
      const input = providerCount(prompt);
      // a provider with a prompt cache says so (the continued summary is made only then)
      const usage = {
        inputTokens: { total: input, noCache: input, cacheRead: summary ? 1 : undefined, cacheWrite: undefined },
        outputTokens: { total: 20, text: 20, reasoning: undefined },
      };
      if (summary) {
        summary.requests.push(prompt);
        if (summaryKind(prompt)) {
          summary.summaries.push(summary.requests.length - 1);
          return {
            content: [{ type: 'text', text: summaryAnswer(prompt) }],
            finishReason: { unified: 'stop', raw: 'end_turn' },
            usage,
            warnings: [],
          };
        }
      }
      prompts.push(prompt);
      const name = names[call++];
      if (name === undefined) {
        return {
          content: [{ type: 'text', text: 'The review is done.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: `read-${call}`,
            toolName: 'readFile',
            input: JSON.stringify({ path: name }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage,
        warnings: [],
      } as never;
    },
  });
  const events: CompressEvent[] = [];
  const reports: CompressionReport[] = [];
  const model = withContextCompression(provider, {
    contextWindow: window,
    ...(summary && {
      summarizer: summary.summarizer === 'self' ? provider : modelSummarizer(provider),
      summarizeAhead: false,
    }),
    onCompress: (event) => {
      events.push(event);
      if (process.env.CC_REVIEW_DEBUG)
        console.log(
          `   call ${call}: ${event.trigger} ${event.tokensBefore}->${event.tokensAfter} folded ${event.messagesFolded} masked ${event.toolResultsMasked.count} | ${event.decisions.map((decision) => decision.details.slice(0, 90)).join(' / ')}`,
        );
    },
    onCall: (report) => reports.push(report),
  });
  await generateText({
    model,
    system: 'You review code. Read the files one by one, then summarise what you found.',
    messages: [{ role: 'user', content: `Review the repository. ${CONSTRAINT}` }],
    tools: {
      readFile: tool({
        description: 'Reads a file of the repository',
        inputSchema: jsonSchema<{ path: string }>({
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        }),
        execute: async ({ path }) => files.get(path) ?? 'no such file',
      }),
    },
    stopWhen: stepCountIs(steps + 1),
  });
  // a compression: a call whose prompt does not begin with the previous call's (its closing bracket aside)
  const changed: number[] = [];
  for (let index = 1; index < prompts.length; index++) {
    const before = promptText(prompts[index - 1] as LanguageModelV4Prompt).slice(0, -1);
    if (!promptText(prompts[index] as LanguageModelV4Prompt).startsWith(before)) changed.push(index);
  }
  const first = changed[0];
  const meanGap = first === undefined ? prompts.length : (prompts.length - first) / changed.length;
  const refits = events.filter((event) =>
    event.decisions.some((decision) => decision.details.includes('cut to its cap')),
  ).length;
  const sent = reports.reduce((sum, report) => sum + report.promptTokens, 0);
  const cached = reports.reduce((sum, report) => sum + report.cacheablePrefixTokens, 0);
  return {
    compressions: changed.length,
    meanGap,
    refits,
    constraintKept: prompts.filter((prompt) => promptText(prompt).includes(CONSTRAINT)).length,
    prompts: prompts.length,
    cachedShare: sent > 0 ? cached / sent : 0,
  };
}

export const REVIEW_CASES: readonly ReviewCase[] = [
  { window: 8_000, readTokens: 930, steps: 40 },
  { window: 16_000, readTokens: 1_850, steps: 40 },
  { window: 128_000, readTokens: 9_000, steps: 60 },
];

export async function codeReviewSection(): Promise<void> {
  console.log(
    '\n11. A code review as a new user runs it (generateText, readFile, contextWindow only; the provider counts 15% more)',
  );
  console.log('   window  read   steps  compressions  calls apart  refits  constraint kept  cacheable share');
  for (const review of REVIEW_CASES) {
    const figures = await codeReview(review);
    console.log(
      `   ${`${review.window / 1000}k`.padStart(6)}  ${String(review.readTokens).padStart(5)}  ${String(review.steps).padStart(5)}  ${String(figures.compressions).padStart(12)}  ${figures.meanGap.toFixed(1).padStart(11)}  ${String(figures.refits).padStart(6)}  ${`${figures.constraintKept}/${figures.prompts}`.padStart(15)}  ${`${(figures.cachedShare * 100).toFixed(0)}%`.padStart(15)}`,
    );
  }
  console.log(
    '   a fold summarized by the same model, its summary input cache-priced (shared prefix 0.1x, rest 1.25x, o200k):',
  );
  console.log('   window  summary requests  separate request  continued prompt  continued / separate');
  for (const review of REVIEW_CASES.slice(0, 2)) {
    const separate = await summaryCost(review, false);
    const continued = await summaryCost(review, true);
    console.log(
      `   ${`${review.window / 1000}k`.padStart(6)}  ${`${separate.requests} / ${continued.requests}`.padStart(16)}  ${Math.round(
        separate.priced / Math.max(1, separate.requests),
      )
        .toLocaleString('en-US')
        .padStart(16)}  ${Math.round(continued.priced / Math.max(1, continued.requests))
        .toLocaleString('en-US')
        .padStart(
          16,
        )}  ${`${((continued.priced / Math.max(1, continued.requests) / (separate.priced / Math.max(1, separate.requests))) * 100).toFixed(0)}%`.padStart(20)}`,
    );
  }
}
