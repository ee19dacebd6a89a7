/**
 * Section 9 of `npm run bench`: what happens when the provider counts more than we do, or its window is smaller than
 * the configured one. Each fixture conversation and agent run is resent, call by call, to a new middleware in front
 * of a mock provider that counts `factor` times o200k, reports that count as usage, and rejects a prompt over its
 * window: as Anthropic does (`prompt is too long: N tokens > M maximum`, both figures), or as OpenAI's Responses API
 * does (no figure at all). The new middleware meets the history at its hardest point: the first call whose whole
 * history is over the provider's window by the provider's count (a resent conversation reaching a new process), then
 * every later call. The same replay with a rejection the library cannot read (a plain error) shows what a call gets
 * without the retry.
 */

import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { generateText, type ModelMessage } from 'ai';
import { withContextCompression } from '../adapters/ai-sdk/index.js';
import { assistantTurns, fixturesDir, type SessionFile, toModelMessages } from '../examples/lib/session-file.js';
import { ProviderOverflowError } from '../src/errors.js';
import { providerCount, type RejectionShape, strictModel } from '../test/helpers/strict-provider.js';
import { fixtureGroups } from './fixture-groups.js';

/** The provider's window, the same for every source. */
const WINDOW = 16_000;

/** How the provider departs from what is configured: its count over ours, the configured window over its own. */
interface Terms {
  readonly factor: number;
  /** The window the middleware is configured with, for a deployment whose window is smaller. */
  readonly configured: number;
}

const TERMS: readonly Terms[] = [
  { factor: 1.5, configured: WINDOW },
  { factor: 2, configured: WINDOW },
  { factor: 3, configured: WINDOW },
  { factor: 1, configured: 2 * WINDOW },
  { factor: 1.5, configured: 2 * WINDOW },
];
const SHAPES: readonly Extract<RejectionShape, 'anthropic' | 'openai-responses'>[] = ['anthropic', 'openai-responses'];
/** Calls replayed per history from the first over the window. */
const MAX_CALLS = 40;

interface Run {
  readonly calls: number;
  readonly answered: number;
  readonly rejections: number;
  readonly rethrown: number;
}

/** The prompt a caller sends for the history up to `end`, as the provider would count it without compression. */
function uncompressedCount(instructions: string | undefined, messages: readonly ModelMessage[], factor: number) {
  const text = (content: ModelMessage['content']) => (typeof content === 'string' ? content : JSON.stringify(content));
  const prompt = messages.map((message) => ({
    role: 'user' as const,
    content: [{ type: 'text' as const, text: text(message.content) }],
  }));
  return providerCount(
    [...(instructions ? [{ role: 'system' as const, content: instructions }] : []), ...prompt],
    factor,
  );
}

/** A model whose rejections the library cannot read: what every call got before the retry. */
function unreadable(model: LanguageModelV4): LanguageModelV4 {
  const plain = (error: unknown) => (error instanceof Error ? new Error('the provider said no') : error);
  return {
    ...model,
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options: LanguageModelV4CallOptions) =>
      Promise.resolve(model.doGenerate(options)).catch((error: unknown) => Promise.reject(plain(error))),
    doStream: (options: LanguageModelV4CallOptions) => model.doStream(options),
  };
}

async function replay(
  session: SessionFile,
  { factor, configured }: Terms,
  shape: RejectionShape,
  retry: boolean,
): Promise<Run | undefined> {
  const window = WINDOW;
  const { instructions, messages } = toModelMessages(session);
  const ends = assistantTurns(messages);
  const start = ends.findIndex((end) => uncompressedCount(instructions, messages.slice(0, end), factor) > window);
  if (start < 0) return undefined;
  const { model: provider, rejected } = strictModel({ window, factor, shape });
  let rethrown = 0;
  const model = withContextCompression(retry ? provider : unreadable(provider), {
    contextWindow: configured,
    onError: ({ error, fallback }) => {
      if (ProviderOverflowError.isInstance(error) && fallback === 'rethrown') rethrown++;
    },
  });
  let answered = 0;
  const calls = ends.slice(start, start + MAX_CALLS);
  for (const end of calls) {
    try {
      await generateText({ model, instructions, messages: messages.slice(0, end), maxRetries: 0 });
      answered++;
    } catch {
      // counted: a call that did not answer
    }
  }
  return { calls: calls.length, answered, rejections: rejected.length, rethrown };
}

function pad(text: string, width: number) {
  return text.padEnd(width);
}

/** Prints, per source and factor: histories over the window, calls, calls answered with and without the retry. */
export async function providerDisagrees(): Promise<void> {
  const dir = fixturesDir();
  if (!dir) {
    console.log('section 9 skipped: ../shared/fixtures is absent');
    return;
  }
  const groups = fixtureGroups(dir);
  console.log('\n## 9. When the provider counts more than we do, or its window is smaller than the configured one');
  console.log('   (a new middleware meets each history where the provider first counts it over its 16k window;');
  console.log('   generateText; rejections as Anthropic words them, with figures, and as OpenAI Responses, without)\n');
  console.log(
    `${pad('source', 36)}${pad('rejection', 18)}${pad('window', 11)}${pad('factor', 8)}${pad('histories', 11)}${pad('calls', 7)}${pad('answered', 10)}${pad('without retry', 15)}${pad('rejections (max/run)', 22)}rethrown`,
  );
  for (const [name, sessions] of groups) {
    for (const shape of SHAPES) {
      for (const terms of TERMS) {
        const withRetry: Run[] = [];
        const without: Run[] = [];
        for (const session of sessions) {
          const run = await replay(session, terms, shape, true);
          if (!run) continue;
          withRetry.push(run);
          without.push((await replay(session, terms, shape, false)) as Run);
        }
        const sum = (runs: Run[], key: keyof Run) => runs.reduce((total, run) => total + run[key], 0);
        const maxRejections = Math.max(0, ...withRetry.map((run) => run.rejections));
        const window = `${WINDOW / 1000}k/${terms.configured / 1000}k`;
        console.log(
          `${pad(name, 36)}${pad(shape === 'anthropic' ? 'with figures' : 'without figures', 18)}${pad(window, 11)}${pad(`${terms.factor}x`, 8)}${pad(String(withRetry.length), 11)}${pad(String(sum(withRetry, 'calls')), 7)}${pad(String(sum(withRetry, 'answered')), 10)}${pad(String(sum(without, 'answered')), 15)}${pad(`${sum(withRetry, 'rejections')} (${maxRejections})`, 22)}${sum(withRetry, 'rethrown')}`,
        );
      }
    }
  }
}
