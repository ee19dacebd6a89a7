/**
 * LangChain.js: a prompt template piped through `compressMessages` into a chat model, for a long support chat
 * whose early turns are folded into the session state; then the same history sent once through a model wrapped
 * with `withContextCompression`. Runs offline with a mock chat model.
 *
 *   npx tsx examples/langchain-chain.ts
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { type CompressEvent, compressMessages, withContextCompression } from 'context-compression/langchain';
import { ExampleChatModel } from './lib/example-chat-model.js';

let where = '';
const onCompress = (event: CompressEvent) =>
  console.log(
    `${where}: compressed (${event.trigger}): ${event.tokensBefore} -> ${event.tokensAfter} tokens, ${event.messagesFolded} messages folded`,
  );

const instructions = 'You are a billing support agent.';
const prompt = ChatPromptTemplate.fromMessages([['system', instructions], new MessagesPlaceholder('history')]);
const model = new ExampleChatModel();
const chain = prompt.pipe(compressMessages({ contextWindow: 8_000, onCompress })).pipe(model);

const history: BaseMessage[] = [];
const topics = [
  'invoice INV-2291',
  'the refund for order 77812',
  'the address change to 14 Elm Street',
  'the VAT id DE811907980',
];
let answer = '';
for (let turn = 0; turn < 40; turn++) {
  const topic = topics[turn % topics.length];
  where = `turn ${turn}`;
  history.push(
    new HumanMessage(`Turn ${turn}: a question about ${topic}. ${'Here is more context about it. '.repeat(20)}`),
  );
  const reply = await chain.invoke({ history });
  answer = reply.text;
  history.push(new AIMessage(answer));
}
console.log(`chain: ${history.length} messages in the caller's history; last answer: ${answer}`);

// The wrapper: the same model class, compressed in front of invoke/stream/batch, calibrated from usage_metadata.
where = 'wrapper';
const wrapped = withContextCompression(new ExampleChatModel(), { contextWindow: 8_000, onCompress });
const reply = await wrapped.invoke([
  new SystemMessage(instructions),
  ...history,
  new HumanMessage('Can you sum up where we are?'),
]);
console.log(
  `wrapper: still an ExampleChatModel (${wrapped instanceof ExampleChatModel}); sent ${history.length + 2} messages; answer: ${reply.text}`,
);
