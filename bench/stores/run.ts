import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStore } from '@langchain/langgraph';
import { createStorage } from 'unstorage';
import fsDriver from 'unstorage/drivers/fs';
import { CompressionEngine } from '../../src/engine/engine.js';
import { eraseStoredState } from '../../src/persistence/erase.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import { langgraphStore } from '../../src/stores/langgraph-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { sqliteStore } from '../../src/stores/sqlite-store.js';
import { unstorageStore } from '../../src/stores/unstorage-store.js';
import type { Message } from '../../src/transcript/transcript.js';
import { agentLoop, SYSTEM } from '../../test/helpers/fixtures.js';
import { type InstanceTask, runInstances } from '../../test/helpers/instance-worker.js';
import { noSqlite, POSTGRES_URL, postgresDown, REDIS_URL, redisDown } from '../../test/helpers/services.js';
import { ms, percentile, ratio } from '../stats.js';

/**
 * `npm run bench:stores`: what a store costs a call, against the in-process memory store, on one agent loop of 160
 * steps at a 32k window (default token counter and summarizer, masking off so that compressing calls fold), with
 * fresh message objects for every call (as a server parses each request): a call at steady state (the stored state is
 * read: the conversation's index and its record) and a compressing call (a new conversation folds and writes its
 * record, index and fold result). What one conversation stores. Then
 * many instances: 20 parallel requests of one conversation on two processes sharing a server store, with a
 * summarizer that takes 1 s (as a model does): summarizer calls and request latency, with and without the fold lease.
 * Servers that do not answer are left out with the reason printed; SQLite needs Node.js 22.5 or later
 * (`npx -y -p node@22 npm run bench:stores`).
 */
const STEADY_CALLS = 60;
const FOLDING_CALLS = 20;
const TABLE = 'context_compression_state_bench';

const history = agentLoop(160, 600);
const fresh = (messages: readonly Message[]): Message[] => JSON.parse(JSON.stringify(messages));
/** A namespace of this run's own: records of earlier runs (Redis keeps them) are never found. */
const NAMESPACE = `bench-stores-${Date.now()}`;
const engineOn = (store: StateStore | undefined) =>
  new CompressionEngine({
    namespace: NAMESPACE,
    contextWindow: 32_000,
    // folds only, so that every compressing call summarizes and writes (masking would write its record too)
    masking: false,
    triggers: { staleness: false },
    store,
    storeTimeoutMs: 10_000,
    onError: (event) => console.error(event.error),
  });
const compress = (engine: CompressionEngine, messages: Message[]) =>
  engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'gpt-4o' });

async function timeCalls(store: StateStore | undefined): Promise<{ steady: number; folding: number; parse: number }> {
  const engine = engineOn(store);
  const first = await compress(engine, fresh(history));
  if (!first.event?.messagesFolded)
    throw new Error(`the bench history did not fold: ${JSON.stringify(first.event)?.slice(0, 300)}`);
  const steady: number[] = [];
  const parse: number[] = [];
  const text = JSON.stringify(history);
  for (let index = 0; index < STEADY_CALLS; index++) {
    const parsedAt = performance.now();
    const messages = JSON.parse(text) as Message[];
    const started = performance.now();
    await compress(engine, messages);
    steady.push(performance.now() - started);
    parse.push(started - parsedAt);
  }
  const folding: number[] = [];
  for (let index = 0; index < FOLDING_CALLS; index++) {
    // a conversation of its own (another first message): nothing stored for it, it folds and writes
    const messages = fresh(history);
    messages[0] = {
      role: 'user',
      parts: [{ type: 'text', text: `Task ${index} ${Math.random()}: fix the failing tests` }],
    };
    const started = performance.now();
    const out = await compress(engine, messages);
    folding.push(performance.now() - started);
    if (!out.event?.messagesFolded) throw new Error('a compressing call did not fold');
  }
  return { steady: percentile(steady, 0.5), folding: percentile(folding, 0.5), parse: percentile(parse, 0.5) };
}

interface Subject {
  readonly name: string;
  readonly skip?: string | undefined;
  open(): Promise<{ store: StateStore; close(): Promise<void> }>;
}

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cc-bench-stores-'));
  dirs.push(dir);
  return dir;
};

const subjects: Subject[] = [
  { name: 'memory (memoryStateStore)', open: async () => ({ store: memoryStateStore(), close: async () => {} }) },
  {
    name: 'unstorage, memory driver',
    open: async () => {
      const storage = createStorage();
      return { store: unstorageStore(storage), close: () => storage.dispose() };
    },
  },
  {
    name: 'unstorage, fs driver',
    open: async () => {
      const storage = createStorage({ driver: fsDriver({ base: await tempDir() }) });
      return { store: unstorageStore(storage), close: () => storage.dispose() };
    },
  },
  {
    name: 'LangGraph InMemoryStore',
    open: async () => ({ store: langgraphStore(new InMemoryStore()), close: async () => {} }),
  },
  {
    name: 'SQLite file (node:sqlite)',
    skip: noSqlite,
    open: async () => {
      const store = sqliteStore({ path: join(await tempDir(), 'state.db') });
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'Redis (node-redis, loopback)',
    skip: redisDown,
    open: async () => {
      const store = redisStore({ url: REDIS_URL });
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'PostgreSQL (pg, loopback)',
    skip: postgresDown,
    open: async () => {
      const store = postgresStore({ connectionString: POSTGRES_URL, table: TABLE });
      return { store, close: () => store.close() };
    },
  },
];

console.log(
  `Per call: one agent loop of ${history.length} messages at a 32k window; median of ${STEADY_CALLS} calls at steady state (a read) and of ${FOLDING_CALLS} compressing calls (a fold and its writes); node ${process.version}.\n`,
);
console.log('| store | steady call | vs memory | compressing call | vs memory | JSON.parse of the history |');
console.log('|---|---:|---:|---:|---:|---:|');
// the first run warms the tokenizer and the engine's code for all
await timeCalls(undefined);
let base: { steady: number; folding: number } | undefined;
for (const subject of subjects) {
  if (subject.skip) {
    console.log(`| ${subject.name} | left out: ${subject.skip} | | | | |`);
    continue;
  }
  const { store, close } = await subject.open();
  try {
    const timed = await timeCalls(store);
    base ??= timed;
    console.log(
      `| ${subject.name} | ${ms(timed.steady)} | ${ratio(timed.steady, base.steady)} | ${ms(timed.folding)} | ${ratio(timed.folding, base.folding)} | ${ms(timed.parse)} |`,
    );
  } finally {
    await eraseStoredState(store, { namespace: NAMESPACE });
    await close();
  }
}

// what is stored: one conversation of the loop, sent whole at every step from 200 messages on, as an agent does
{
  const sizes = new Map<string, number>();
  const inner = memoryStateStore();
  const recording: StateStore = {
    get: (key) => inner.get(key),
    set: async (key, value, options) => {
      sizes.set(key, JSON.stringify(value).length);
      await inner.set(key, value, options);
    },
  };
  const engine = engineOn(recording);
  for (let length = 200; length <= history.length; length += 2) await compress(engine, fresh(history.slice(0, length)));
  const kinds = new Map<string, { count: number; bytes: number }>();
  for (const [key, bytes] of sizes) {
    const kind = /:(state|index|recall|fold|lease):/.exec(key)?.[1] ?? 'other';
    const entry = kinds.get(kind) ?? { count: 0, bytes: 0 };
    kinds.set(kind, { count: entry.count + 1, bytes: entry.bytes + bytes });
  }
  const total = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);
  const parts = [...kinds].map(([kind, { count, bytes }]) => `${count} ${kind} (${(bytes / 1024).toFixed(1)} KB)`);
  const json = Math.round(JSON.stringify(history).length / 1024);
  console.log(
    `\nStored for one conversation of ${history.length} messages (${json} KB as JSON), sent at every step from 200 messages: ${sizes.size} keys, ${(total / 1024).toFixed(1)} KB: ${parts.join(', ')}.`,
  );
}

console.log(
  '\nMany instances: 20 parallel requests of one conversation on two processes (10 each), a summarizer taking 1 s.\n',
);
console.log('| shared store | fold lease | summarizer calls | requests without the state | p50 | p95 |');
console.log('|---|---|---:|---:|---:|---:|');
const servers: Array<[string, string | undefined, () => Promise<InstanceTask['store']>]> = [
  ['Redis', redisDown, async () => ({ kind: 'redis', url: REDIS_URL })],
  ['PostgreSQL', postgresDown, async () => ({ kind: 'postgres', url: POSTGRES_URL, table: TABLE })],
  ['SQLite file', noSqlite, async () => ({ kind: 'sqlite', path: join(await tempDir(), 'shared.db') })],
];
for (const [name, skip, storeOf] of servers) {
  if (skip) {
    console.log(`| ${name} | left out: ${skip} | | | | |`);
    continue;
  }
  for (const foldLease of [{ waitMs: 3_000 }, false] as const) {
    const store = await storeOf();
    const namespace = `cc-bench-${Date.now()}-${Math.random()}`;
    const even = Array.from({ length: 10 }, (_, index) => index * 2);
    const reports = await runInstances(
      [even, even.map((question) => question + 1)].map((questions) => ({
        store,
        namespace,
        questions,
        summarizerDelayMs: 1_000,
        foldLease,
      })),
    );
    const requests = reports.flatMap((report) => report.requests);
    const latencies = requests.map((request) => request.ms);
    const calls = reports.reduce((sum, report) => sum + report.summarizerCalls, 0);
    const without = requests.filter((request) => request.folded === 0).length;
    console.log(
      `| ${name} | ${foldLease ? `on (wait ${foldLease.waitMs} ms)` : 'off'} | ${calls} | ${without} of ${requests.length} | ${ms(percentile(latencies, 0.5))} | ${ms(percentile(latencies, 0.95))} |`,
    );
  }
}

for (const dir of dirs) await rm(dir, { recursive: true, force: true });
if (!postgresDown) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await client.end();
}
