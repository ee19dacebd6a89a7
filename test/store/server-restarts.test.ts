import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import type { CompressOutput } from '../../src/engine/compress-call.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { StoreError } from '../../src/errors.js';
import { scopePrefix } from '../../src/persistence/state-records.js';
import type { ClosableStateStore, StateStore } from '../../src/persistence/state-store.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import type { SessionState } from '../../src/session-state/session-state.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import type { SummarizeInput } from '../../src/summarizers/summarizer.js';
import type { Message } from '../../src/transcript/transcript.js';
import { BUDGET, chat, SYSTEM } from '../helpers/fixtures.js';

/**
 * A Redis or PostgreSQL server restarted mid-conversation: the calls made while it is down succeed (compressed again
 * without the store) and `onError` hears of it, no 'error' event of a lost connection ends the process, and after the
 * restart the same store object finds the state stored before the stop and stores new state. The servers are this
 * file's own, on free ports with their data in temporary directories (the shared servers on 6379 and 5432 are left
 * alone); where their binaries are missing the tests are skipped with the reason printed, unless CC_REQUIRE_SERVICES
 * is set: then they fail.
 */

const run = promisify(execFile);

/** Milliseconds a store operation may take under the engines of these tests. */
const STORE_TIMEOUT_MS = 400;
/** Milliseconds a server may take to answer after a start, and the stores' clients to reconnect after a restart. */
const READY_WITHIN_MS = 15_000;
const TEST_TIMEOUT_MS = 60_000;

function missing(reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  if (process.env.CC_REQUIRE_SERVICES) throw new Error(`CC_REQUIRE_SERVICES is set, but ${reason}`);
  console.log(`server-restarts: skipped, ${reason}`);
  return reason;
}

/** The file of an executable in PATH, if any. */
function inPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The directory of PostgreSQL's initdb and pg_ctl: the newest under /usr/lib/postgresql, else the one in PATH. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'pg_ctl')))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  if (versions[0]) return join(root, versions[0], 'bin');
  const initdb = inPath('initdb');
  return initdb && existsSync(join(initdb, '..', 'pg_ctl')) ? join(initdb, '..') : undefined;
}

const isRoot = process.getuid?.() === 0;
const redisBinary = inPath('redis-server');
const pgBin = postgresBin();
/** As root, the ids of the postgres user PostgreSQL runs as (it refuses to run as root); undefined without one. */
const postgresIds = isRoot
  ? await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]).then(
      ([uid, gid]) => ({ uid: Number(uid.stdout), gid: Number(gid.stdout) }),
      () => undefined,
    )
  : undefined;

const redisMissing = missing(redisBinary ? undefined : 'no redis-server in PATH');
const postgresMissing = missing(
  !pgBin
    ? 'no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/<version>/bin or in PATH'
    : isRoot && !(postgresIds && inPath('runuser'))
      ? 'running as root, and no postgres user or no runuser to run PostgreSQL as that user'
      : undefined,
);

/** A port nothing listens on at the moment. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `check` to resolve truthy (a throw or a falsy answer is tried again), for at most `withinMs`. */
async function eventually<T>(
  what: string,
  check: () => Promise<T | false | undefined>,
  withinMs = READY_WITHIN_MS,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const answer = await Promise.race([check(), sleep(2_000).then(() => Promise.reject(new Error('no answer')))]);
      if (answer) return answer;
      last = new Error('not yet');
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms (${(last as Error).message})`);
    await sleep(100);
  }
}

/** Whether a Redis server answers PING on the port. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** A server of the test's own, stopped and started by it, and what it holds under a key prefix. */
interface OwnServer {
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it if it runs and removes its data. */
  destroy(): Promise<void>;
  /** The stored values under a key prefix, read with a client of the test's. */
  dump(prefix: string): Promise<Record<string, string>>;
  /** A store of the library's on this server. */
  open(): ClosableStateStore;
}

async function ownRedis(): Promise<OwnServer> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'cc-redis-restart-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', ''],
    ...['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir],
  ];
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    // a clean shutdown (the append-only file written), or a kill when it takes too long
    if ((await Promise.race([exited, sleep(10_000).then(() => 'late')])) === 'late') {
      running.kill('SIGKILL');
      await exited;
    }
  };
  return {
    url,
    async start() {
      const started = spawn(redisBinary as string, args, { stdio: 'ignore' });
      child = started;
      let failed: Error | undefined;
      started.once('error', (error) => {
        failed = error;
      });
      await eventually(`redis-server on port ${port}`, async () => {
        if (failed || started.exitCode !== null) throw failed ?? new Error(`exited with ${started.exitCode}`);
        return pong(port);
      });
    },
    stop,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
    async dump(prefix) {
      const client = createClient({ url, socket: { reconnectStrategy: false } });
      client.on('error', () => {});
      await client.connect();
      try {
        const values: Record<string, string> = {};
        for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
          for (const key of keys) values[key] = (await client.get(key)) ?? '';
        }
        return values;
      } finally {
        await client.close();
      }
    },
    open: () => redisStore({ url }),
  };
}

const TABLE = 'context_compression_state_restarts';

async function ownPostgres(): Promise<OwnServer> {
  const bin = pgBin as string;
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'cc-pg-restart-'));
  const data = join(dir, 'data');
  // PostgreSQL refuses to run as root: as root, its programs run as the postgres user, in a directory of its own
  const pgAs = (program: string, args: string[]) =>
    isRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), args);
  try {
    if (postgresIds) await chown(dir, postgresIds.uid, postgresIds.gid);
    await pgAs('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-N']);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let running = false;
  const stop = async (mode = 'fast') => {
    if (!running) return;
    await pgAs('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    running = false;
  };
  return {
    url,
    async start() {
      // -l: the server's output to a file, so pg_ctl does not hold our pipe open
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
      await pgAs('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', 'start']);
      running = true;
    },
    stop: () => stop(),
    async destroy() {
      await stop('immediate').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
    async dump(prefix) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT key, value FROM ${TABLE} WHERE starts_with(key, $1)`, [prefix]);
        return Object.fromEntries(rows.map((row) => [row.key as string, row.value as string]));
      } finally {
        await client.end();
      }
    },
    open: () => postgresStore({ connectionString: url, table: TABLE }),
  };
}

/** The store as the engine gets it, counting the reads that found a value. */
function observed(store: ClosableStateStore): StateStore & { readonly found: number } {
  let found = 0;
  const setIfAbsent = store.setIfAbsent?.bind(store);
  return {
    get found() {
      return found;
    },
    async get(key) {
      const value = await store.get(key);
      if (value !== undefined) found++;
      return value;
    },
    set: (key, value, options) => store.set(key, value, options),
    delete: (key) => store.delete(key),
    deletePrefix: (prefix) => store.deletePrefix(prefix),
    ...(setIfAbsent ? { setIfAbsent } : {}),
  };
}

const countingSummarizer = () =>
  vi.fn(
    async ({ messages, previous }: SummarizeInput): Promise<SessionState> => ({
      logos: [...(previous?.logos ?? []), `folded ${messages.length} messages`],
      pathos: [],
      abstract: [],
      conversationSummary: 'Earlier turns were condensed.',
    }),
  );

/** An output a model can be sent: text messages ending with the latest user message, within the budget. */
function expectSound(out: CompressOutput, messages: readonly Message[]): void {
  expect(out.messages.length).toBeGreaterThan(0);
  expect(out.messages.at(-1)).toEqual(messages.at(-1));
  for (const message of out.messages) {
    expect(['user', 'assistant']).toContain(message.role);
    expect(message.parts.length).toBeGreaterThan(0);
  }
  expect(out.estimatedTokens).toBeLessThanOrEqual(BUDGET);
  // uncompressed, or compressed again: every message is the caller's (its last ones) or the state the fold wrote
  const real = out.messages.filter((message) => !message.synthetic);
  expect(real).toEqual(messages.slice(messages.length - real.length));
  if (real.length < messages.length) expect(out.messages.some((m) => m.synthetic === 'session-state')).toBe(true);
}

/**
 * The conversation: a fold stored, the server stopped, two calls without it, the server started, then the same
 * conversation finds its state through the same store object (same engine and a fresh one, no summarizer call), a
 * later fold is stored, and an engine on another store object of the server finds it.
 */
async function restartMidConversation(server: OwnServer): Promise<void> {
  const namespace = `restart-${process.pid}-${Date.now()}`;
  const prefix = scopePrefix(namespace);
  const errors: CompressionErrorEvent[] = [];
  const engineOn = (store: StateStore, summarizer: ReturnType<typeof countingSummarizer>) =>
    new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      triggers: { semantic: false, staleness: false },
      summarizer,
      store,
      storeTimeoutMs: STORE_TIMEOUT_MS,
      namespace,
      onError: (event) => errors.push(event),
    });
  const call = (engine: CompressionEngine, messages: readonly Message[]) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });

  const own = server.open();
  const opened: ClosableStateStore[] = [own];
  try {
    const store = observed(own);
    const summarize = countingSummarizer();
    const engine = engineOn(store, summarize);

    // before the stop: the conversation grows until a fold is stored
    expect((await call(engine, chat(21))).event?.messagesFolded ?? 0).toBe(0);
    const folded = await call(engine, chat(61));
    expect(folded.event?.messagesFolded).toBeGreaterThan(0);
    expect(summarize).toHaveBeenCalledTimes(1);
    const settled = await call(engine, chat(63));
    expect(settled.event?.messagesFolded ?? 0).toBe(0);
    expect(summarize).toHaveBeenCalledTimes(1);
    expect(errors).toEqual([]);
    const stored = await server.dump(prefix);
    expect(Object.keys(stored).length).toBeGreaterThan(0);

    // the server stops: the calls succeed without the store, and onError hears of it
    await server.stop();
    for (const count of [65, 67]) {
      const messages = chat(count);
      expectSound(await call(engine, messages), messages);
    }
    expect(errors.length).toBeGreaterThan(0);
    for (const event of errors) {
      expect(StoreError.isInstance(event.error)).toBe(true);
      expect(event.fallback).toBe('without-store');
    }

    // the server starts again; the store's client reconnects (node-redis on its own, the pg pool with new connections)
    await server.start();
    await eventually('the store answering again', async () => (await own.get(`${prefix}probe`)) === undefined);
    const failures = errors.length;

    // the same engine finds the stored state once its guard tries the store again (after a timeout it leaves the
    // store alone for a while: the calls meanwhile compress as without it), with no summarizer call
    const again = await eventually('the engine reading the store again', async () => {
      const [found, summarized] = [store.found, summarize.mock.calls.length];
      const out = await call(engine, chat(63));
      return store.found > found && { out, summarizerCalls: summarize.mock.calls.length - summarized };
    });
    expect(again.summarizerCalls).toBe(0);
    expect(JSON.stringify(again.out.messages)).toBe(JSON.stringify(settled.messages));
    const summarized = summarize.mock.calls.length;
    // a fresh engine on the same store object: the stored fold, no summarizer call
    const freshSummarize = countingSummarizer();
    const found = await call(engineOn(store, freshSummarize), chat(63));
    expect(freshSummarize).not.toHaveBeenCalled();
    expect(found.event?.messagesFolded ?? 0).toBe(0);
    expect(JSON.stringify(found.messages)).toBe(JSON.stringify(settled.messages));
    // nothing stored before the stop was lost or changed
    expect(await server.dump(prefix)).toEqual(stored);

    // a write after the restart lands: a further fold, found by an engine on another store object of the server
    const grown = await call(engine, chat(101));
    expect(grown.event?.messagesFolded).toBeGreaterThan(0);
    expect(summarize).toHaveBeenCalledTimes(summarized + 1);
    const other = server.open();
    opened.push(other);
    const otherSummarize = countingSummarizer();
    const seen = await call(engineOn(other, otherSummarize), chat(101));
    expect(otherSummarize).not.toHaveBeenCalled();
    expect(seen.event?.messagesFolded ?? 0).toBe(0);
    expect(JSON.stringify(seen.messages)).toBe(JSON.stringify(grown.messages));
    expect(errors.length).toBe(failures);
  } finally {
    await Promise.all(opened.map((store) => Promise.race([store.close(), sleep(2_000)]).catch(() => {})));
  }
}

describe.skipIf(redisMissing !== undefined)('a Redis server restarted mid-conversation', () => {
  let server: OwnServer | undefined;
  beforeAll(async () => {
    server = await ownRedis();
    await server.start();
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await server?.destroy();
  }, TEST_TIMEOUT_MS);

  it(
    'the calls while it is down succeed and are reported; after the restart the state is found and written',
    async () => {
      await restartMidConversation(server as OwnServer);
    },
    TEST_TIMEOUT_MS,
  );
});

describe.skipIf(postgresMissing !== undefined)('a PostgreSQL server restarted mid-conversation', () => {
  let server: OwnServer | undefined;
  beforeAll(async () => {
    server = await ownPostgres();
    await server.start();
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await server?.destroy();
  }, TEST_TIMEOUT_MS);

  it(
    'the calls while it is down succeed and are reported; after the restart the state is found and written',
    async () => {
      await restartMidConversation(server as OwnServer);
    },
    TEST_TIMEOUT_MS,
  );
});
