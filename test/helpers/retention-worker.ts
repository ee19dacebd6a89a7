/**
 * Whether a long-lived middleware keeps the messages of calls long past: run with `node --expose-gc --import tsx`
 * and a mode (`transform`: transformParams alone, in a loop that never turns the event loop; `generate`: generateText
 * through the wrapped model; `stream`: streamText), it sends one conversation call by call, each call a new parse of
 * the request (new message objects, as a server gets them), holds a WeakRef to the prompt of each of the first ten
 * calls, and after twenty more and a full collection prints, as one JSON line, how many of the ten are still alive.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai';
import { contextCompression } from '../../adapters/ai-sdk/index.js';
import { echoModel } from './mock-model.js';

const mode = process.argv[2] ?? 'transform';
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const history = Array.from({ length: 400 }, (_, index) =>
  index % 2
    ? { role: 'assistant', content: [{ type: 'text', text: `Answer ${index}: ${'the details of it '.repeat(20)}` }] }
    : { role: 'user', content: [{ type: 'text', text: `Question ${index}: ${'what about this part '.repeat(20)}` }] },
);
const body = (end: number) => JSON.stringify(history.slice(0, end));

const middleware = contextCompression({ contextWindow: 4_000_000 });
const model = wrapLanguageModel({ model: echoModel(), middleware });
const refs: WeakRef<object>[] = [];
for (let call = 1; call <= 30; call++) {
  const prompt = JSON.parse(body(300 + call)) as LanguageModelV4Prompt;
  if (call <= 10) refs.push(new WeakRef(prompt));
  if (mode === 'transform') {
    const params: LanguageModelV4CallOptions = { prompt };
    await middleware.transformParams?.({ type: 'generate', params, model: echoModel() });
  } else if (mode === 'generate') {
    await generateText({ model, messages: prompt as ModelMessage[] });
  } else {
    await streamText({ model, messages: prompt as ModelMessage[] }).consumeStream();
  }
}
// a turn of the event loop: a WeakRef keeps its target alive until then, and the reports waiting for it are made
await new Promise((resolve) => setTimeout(resolve, 0));
gc();
console.log(JSON.stringify({ mode, alive: refs.filter((ref) => ref.deref() !== undefined).length }));
