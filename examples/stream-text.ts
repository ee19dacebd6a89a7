/**
 * streamText through a compressed model, with per-call options: a namespace per user keeps stored state apart.
 *
 *   npx tsx examples/stream-text.ts
 */
import { type ModelMessage, streamText } from 'ai';
import { withContextCompression } from 'context-compression/ai-sdk';
import { exampleModel } from './lib/example-model.js';

const model = withContextCompression(exampleModel(), { contextWindow: 8_000 });
const messages: ModelMessage[] = [];
for (let turn = 0; turn < 30; turn++) {
  messages.push({
    role: 'user',
    content: `Turn ${turn}: ${'Tell me more about the migration plan for the orders table. '.repeat(10)}`,
  });
  const result = streamText({
    model,
    messages,
    providerOptions: { 'context-compression': { namespace: 'user-42' } },
  });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  messages.push({ role: 'assistant', content: text });
}
console.log(`streamed ${messages.length / 2} turns; last answer: ${messages.at(-1)?.content}`);
