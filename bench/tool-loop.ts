/**
 * A 50-step tool loop whose every result is too large for a 32k window on its own: what truncation and folding cost
 * per call as the loop grows, and what each call's `onCompress` event reports.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { contextCompression } from '../adapters/ai-sdk/index.js';
import type { CompressEvent } from '../src/reports/events.js';
import { rebuilt } from './agent-history.js';
import { ms, percentile } from './stats.js';

const STEPS = 50;
const RESULT_CHARS = 36_000;
const ROUNDS = 3;
const model = new MockLanguageModelV4({ modelId: 'bench-model' });

/** The loop's full history: the task, then one tool call and its 36,000-character result per step. */
function loopHistory(system: string, task: string, toolText: string): LanguageModelV4Prompt {
  const history: LanguageModelV4Prompt = [
    { role: 'system', content: system },
    { role: 'user', content: [{ type: 'text', text: task }] },
  ];
  for (let step = 1; step <= STEPS; step++) {
    const start = ((step - 1) * RESULT_CHARS) % (toolText.length - RESULT_CHARS);
    const toolCallId = `call-${step}`;
    history.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${step}: reading the next part of the log.` },
        { type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `logs/part-${step}.txt` } },
      ],
    });
    history.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId,
          toolName: 'read_file',
          output: { type: 'text', value: toolText.slice(start, start + RESULT_CHARS) },
        },
      ],
    });
  }
  return history;
}

/** One run of the loop in a new conversation: the time of every call and the event it reported, if any. */
async function run(
  history: LanguageModelV4Prompt,
): Promise<{ times: number[]; events: (CompressEvent | undefined)[] }> {
  let event: CompressEvent | undefined;
  const middleware = contextCompression({ contextWindow: 32_000, onCompress: (reported) => (event = reported) });
  const times: number[] = [];
  const events: (CompressEvent | undefined)[] = [];
  for (let step = 1; step <= STEPS; step++) {
    event = undefined;
    const params: LanguageModelV4CallOptions = { prompt: rebuilt(history.slice(0, 2 + 2 * step)) };
    const started = performance.now();
    await middleware.transformParams?.({ type: 'generate', params, model });
    times.push(performance.now() - started);
    events.push(event);
  }
  return { times, events };
}

const thousands = (tokens: number) => `${(tokens / 1000).toFixed(1)}k`;

export async function toolLoop(system: string, task: string, toolText: string): Promise<void> {
  const history = loopHistory(system, task, toolText);
  const runs: Awaited<ReturnType<typeof run>>[] = [];
  for (let round = 0; round < ROUNDS; round++) runs.push(await run(history));
  const steps = [10, 20, 30, 40, 50];
  const medians = steps.map((step) =>
    percentile(
      runs.map((result) => result.times[step - 1] ?? 0),
      0.5,
    ),
  );
  console.log(
    `\n   A ${STEPS}-step tool loop, every result ${RESULT_CHARS.toLocaleString('en-US')} characters of fixture tool output, 32k window, defaults otherwise`,
  );
  console.log(
    `   overhead at step ${steps.join(' / ')}: ${medians.map((value) => value.toFixed(2)).join(' / ')} ms (median of ${ROUNDS} runs; step 1: ${ms(
      percentile(
        runs.map((result) => result.times[0] ?? 0),
        0.5,
      ),
    )})`,
  );
  const events = runs.at(-1)?.events ?? [];
  console.log(
    `   onCompress on ${events.filter(Boolean).length} of ${STEPS} calls; toolResultsTruncated per call (- = no event):`,
  );
  console.log(`     ${events.map((event) => (event ? String(event.toolResultsTruncated) : '-')).join(' ')}`);
  console.log('   tokensBefore -> tokensAfter per call with an event:');
  const pairs = events.flatMap((event, index) =>
    event ? [`${index + 1}: ${thousands(event.tokensBefore)}->${thousands(event.tokensAfter)}`] : [],
  );
  for (let line = 0; line < pairs.length; line += 8) console.log(`     ${pairs.slice(line, line + 8).join('  ')}`);
}
