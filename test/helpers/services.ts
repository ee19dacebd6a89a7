import pg from 'pg';
import { createClient } from 'redis';

/**
 * The servers the store tests run against: the machine's Redis and PostgreSQL (or those of CC_REDIS_URL and
 * CC_POSTGRES_URL). Where one does not answer, `redisDown`/`postgresDown` say why and the tests that need it are
 * skipped with the reason printed, unless CC_REQUIRE_SERVICES is set (as CI sets it): then they fail.
 */
export const REDIS_URL = process.env.CC_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const POSTGRES_URL = process.env.CC_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The table of the Postgres tests: their own, so a user's data is never touched. */
export const POSTGRES_TABLE = 'context_compression_state_test';

async function reachable(url: string, check: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 2 s')), 2_000)),
    ]);
    return undefined;
  } catch (error) {
    const reason = `no server at ${url} (${(error as Error).message})`;
    if (process.env.CC_REQUIRE_SERVICES) throw new Error(`CC_REQUIRE_SERVICES is set, but ${reason}`);
    return reason;
  }
}

export const redisDown = await reachable(REDIS_URL, async () => {
  const client = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false, connectTimeout: 1_500 } });
  client.on('error', () => {});
  await client.connect();
  await client.ping();
  await client.close();
});

export const postgresDown = await reachable(POSTGRES_URL, async () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1_500 });
  await client.connect();
  await client.query('SELECT 1');
  await client.end();
});

/** `node:sqlite` where this Node.js has it (22.5 and later), and why not where it has not. */
export const nodeSqlite = process.getBuiltinModule?.('node:sqlite') as
  | { DatabaseSync: new (path: string) => import('../../src/stores/sqlite-store.js').SqliteDatabase }
  | undefined;
export const noSqlite = nodeSqlite
  ? undefined
  : `node:sqlite is not in Node.js ${process.versions.node} (it is from 22.5)`;
