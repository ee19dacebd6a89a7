/**
 * Recall in a long chat: an early detail is folded into the session state, and when the user asks about it many
 * turns later the engine quotes the original message just before the question. Runs offline with a mock model;
 * set OPENAI_API_KEY to use gpt-4o-mini.
 *
 *   npx tsx examples/chat-recall.ts
 */
import { generateText, type ModelMessage } from 'ai';
import { withContextCompression } from 'context-compression/ai-sdk';
import { exampleModel, recordingPrompts } from './lib/example-model.js';

// inside the compression middleware, to print what the model receives
const seen = recordingPrompts(exampleModel());
const model = withContextCompression(seen.model, {
  contextWindow: 4_000,
  onCompress: (event) => {
    if (event.messagesFolded > 0) console.log(`folded ${event.messagesFolded} messages into the session state`);
    if (event.recalled.chunks > 0) console.log(`recalled ${event.recalled.chunks} earlier pieces`);
  },
});

const instructions = 'You are a friendly travel assistant.';
const messages: ModelMessage[] = [
  { role: 'user', content: 'For my records: my passport number is X4471920 and it expires in March 2031.' },
  { role: 'assistant', content: 'Noted, thanks.' },
];
const places = ['Lisbon', 'Porto', 'Seville', 'Granada', 'Valencia', 'Bilbao'];
for (let turn = 0; turn < 30; turn++) {
  const place = places[turn % places.length];
  messages.push({
    role: 'user',
    content: `Day ${turn + 1} idea: a walk in ${place}. ${'Tell me about cafes, museums and views there. '.repeat(4)}`,
  });
  const { text } = await generateText({ model, instructions, messages });
  messages.push({ role: 'assistant', content: text });
}

messages.push({ role: 'user', content: 'When does my passport expire?' });
await generateText({ model, instructions, messages });
const recalled = seen
  .lastPrompt()
  .find(
    (message) =>
      message.role === 'user' &&
      message.content.some((part) => part.type === 'text' && part.text.startsWith('<recalled_messages>')),
  );
console.log(`${messages.length} messages in the caller's history, ${seen.lastPrompt().length} in the prompt`);
console.log(
  recalled?.role === 'user' && recalled.content[0]?.type === 'text'
    ? `the recall block before the question:\n${recalled.content[0].text}`
    : 'no recall block',
);
