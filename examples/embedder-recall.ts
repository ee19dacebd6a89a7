/**
 * Recall by meaning: the user said "automobile" long ago and now asks about "my car". Words alone (BM25) cannot
 * connect them; an embedder can. The same chat is run twice, without and with an embedder, and the recall block
 * before the question is printed.
 *
 *   npx tsx examples/embedder-recall.ts
 *
 * The embedder: OpenAI's text-embedding-3-small when OPENAI_API_KEY is set; a local transformers.js model when
 * EMBEDDING_MODEL names one (e.g. Xenova/all-MiniLM-L6-v2, downloaded once by transformers.js); otherwise a toy
 * embedder written here (a few concept dimensions), so the example runs offline and shows the mechanism.
 */
import { openai } from '@ai-sdk/openai';
import { generateText, type ModelMessage } from 'ai';
import {
  type ContextCompressionOptions,
  type Embedder,
  transformersEmbedder,
  withContextCompression,
} from 'context-compression/ai-sdk';
import { exampleModel, recordingPrompts } from './lib/example-model.js';

/** Offline stand-in: one dimension per concept, so texts about the same things point the same way. */
const CONCEPTS = [
  ['car', 'automobile', 'vehicle', 'drive'],
  ['colour', 'color', 'red', 'blue', 'green', 'paint'],
  ['city', 'lisbon', 'porto', 'seville'],
];
function toyVector(text: string): number[] {
  const vector = CONCEPTS.map(() => 0);
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const concept = CONCEPTS.findIndex((words) => words.includes(word));
    if (concept !== -1) vector[concept] = (vector[concept] ?? 0) + 1;
  }
  return [...vector, 0.1]; // a small constant part, so no text is the zero vector
}
const toyEmbedder: Embedder = {
  embedDocuments: async (texts) => texts.map(toyVector),
  embedQuery: async (text) => toyVector(text),
};

function chooseEmbedder() {
  if (process.env.OPENAI_API_KEY)
    return { name: 'text-embedding-3-small', embedder: openai.embedding('text-embedding-3-small') };
  if (process.env.EMBEDDING_MODEL) {
    return {
      name: process.env.EMBEDDING_MODEL,
      embedder: transformersEmbedder({ model: process.env.EMBEDDING_MODEL }),
    };
  }
  return { name: 'the toy embedder (offline)', embedder: toyEmbedder };
}

async function run(label: string, embedder: ContextCompressionOptions['embedder']) {
  // the prompt the model receives, after compression
  const seen = recordingPrompts(exampleModel());
  const model = withContextCompression(seen.model, { contextWindow: 4_000, embedder });
  const instructions = 'You are a friendly travel assistant.';
  const messages: ModelMessage[] = [
    { role: 'user', content: 'I rented an automobile for the trip: a bright red Fiat 500.' },
    { role: 'assistant', content: 'Nice, a classic.' },
  ];
  for (let turn = 0; turn < 30; turn++) {
    messages.push({
      role: 'user',
      content: `Day ${turn + 1}: ${'Tell me about cafes, museums and views. '.repeat(8)}`,
    });
    const { text } = await generateText({ model, instructions, messages });
    messages.push({ role: 'assistant', content: text });
  }
  messages.push({ role: 'user', content: 'What colour is my car again?' });
  await generateText({ model, instructions, messages });
  const block = seen
    .lastPrompt()
    .flatMap((message) => (message.role === 'user' ? message.content : []))
    .find((part) => part.type === 'text' && part.text.startsWith('<recalled_messages>'));
  const text = block?.type === 'text' ? block.text : '';
  console.log(`${label}: ${text.includes('bright red Fiat') ? 'recalled "a bright red Fiat 500"' : 'not recalled'}`);
}

const { name, embedder } = chooseEmbedder();
await run('words alone (BM25)', undefined);
await run(`with ${name}`, embedder);
