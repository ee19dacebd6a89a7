/**
 * generateText through a compressed model: a long support chat whose early turns are folded into the session
 * state. Runs offline with a mock model; set OPENAI_API_KEY to use gpt-4o-mini.
 *
 *   npx tsx examples/generate-text.ts
 */
import { generateText, type ModelMessage } from 'ai';
import { withContextCompression } from 'context-compression/ai-sdk';
import { exampleModel } from './lib/example-model.js';

const model = withContextCompression(exampleModel(), {
  contextWindow: 8_000,
  onCompress: (event) =>
    console.log(
      `compressed (${event.trigger}): ${event.tokensBefore} -> ${event.tokensAfter} tokens, ${event.messagesFolded} messages folded`,
    ),
});

const messages: ModelMessage[] = [];
const topics = [
  'invoice INV-2291',
  'the refund for order 77812',
  'the address change to 14 Elm Street',
  'the VAT id DE811907980',
];
for (let turn = 0; turn < 40; turn++) {
  const topic = topics[turn % topics.length];
  messages.push({
    role: 'user',
    content: `Turn ${turn}: a question about ${topic}. ${'Here is more context about it. '.repeat(12)}`,
  });
  const { text } = await generateText({ model, instructions: 'You are a billing support agent.', messages });
  messages.push({ role: 'assistant', content: text });
}
console.log(`${messages.length} messages in the caller's history; the model saw a compressed view of them.`);
