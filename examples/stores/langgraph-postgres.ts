/**
 * A LangGraph agent (`createAgent`) whose compression state goes to PostgreSQL: the agent's thread is kept by a
 * checkpointer, the compressed view of it by `postgresStore`. A second instance of the service (a new agent and a new
 * store object, as after a restart or on another server) carries the thread on: it finds the folds the first one
 * stored, so it summarizes nothing again and sends the same prompt prefix.
 *
 * Needs a PostgreSQL server: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test. The model is a scripted fake
 * (offline); put your chat model in its place.
 *
 *   npx tsx examples/stores/langgraph-postgres.ts
 */
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { type CompressEvent, contextCompressionMiddleware, eraseStoredState } from 'context-compression/langchain';
import { postgresStore } from 'context-compression/stores/postgres';
import { createAgent, tool } from 'langchain';
import pg from 'pg';
import { z } from 'zod';

const connectionString = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const table = 'context_compression_example';

const readFile = tool(
  async ({ path }) =>
    `// ${path}\n${Array.from({ length: 30 }, (_, line) => `export const v${line} = computeTotal(${line}); // ${path}`).join('\n')}`,
  { name: 'read_file', description: 'Reads a file', schema: z.object({ path: z.string() }) },
);

// one model for both instances: 12 steps that read files, an answer, then the answer to the follow-up question
const model = fakeModel();
for (let step = 0; step < 12; step++) {
  model.respond(
    new AIMessage({
      content: `Reading module ${step}.`,
      tool_calls: [
        { id: `call_${step}`, name: 'read_file', args: { path: `src/module${step}.ts` }, type: 'tool_call' },
      ],
    }),
  );
}
model.respond(new AIMessage('computeTotal is called once per module, with the line number.'));
model.respond(new AIMessage('module3 exports v0 to v29.'));

/** One instance of the service: its own store object on the shared database, its own agent. */
function instance(name: string, checkpointer: MemorySaver) {
  const store = postgresStore({ connectionString, table });
  const events: CompressEvent[] = [];
  const agent = createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You are a code reader. Answer from the files you read.',
    checkpointer,
    middleware: [
      contextCompressionMiddleware({ contextWindow: 6_000, store, onCompress: (event) => events.push(event) }),
    ],
  });
  const report = () => {
    const folded = events.reduce((sum, event) => sum + event.messagesFolded, 0);
    const reused = events.some((event) => event.reusedState);
    console.log(
      `${name}: ${events.length} compressed calls, ${folded} messages folded, stored state reused: ${reused}`,
    );
    return { folded, reused };
  };
  return { agent, store, report };
}

// the thread lives in the checkpointer (use a PostgresSaver to keep it in PostgreSQL too); the tenant of this run is
// its own, so records an earlier run left are never found
const checkpointer = new MemorySaver();
const tenant = `tenant-${Date.now()}`;
const thread = { configurable: { thread_id: 'thread-1', 'context-compression': { namespace: tenant } } };

try {
  const first = instance('instance 1', checkpointer);
  try {
    await first.agent.invoke(
      { messages: [{ role: 'user', content: 'Read the twelve modules and tell me how computeTotal is used.' }] },
      { ...thread, recursionLimit: 60 },
    );
    first.report();
  } finally {
    await first.store.close();
  }

  const second = instance('instance 2', checkpointer);
  try {
    const result = await second.agent.invoke(
      { messages: [{ role: 'user', content: 'What does module3 export?' }] },
      { ...thread, recursionLimit: 60 },
    );
    const { folded } = second.report();
    console.log(`answer: ${result.messages.at(-1)?.text}`);
    console.log(`instance 2 summarized nothing again: ${folded === 0}`);
    // a tenant's records, erased (all of a tenant's keys start with its namespace's prefix)
    console.log(`records of ${tenant} erased: ${await eraseStoredState(second.store, { callNamespace: tenant })}`);
  } finally {
    await second.store.close();
  }
} finally {
  // the example's own table, removed again (a service keeps its records: they expire with stateTtlMs)
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.end();
}
