import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { createStorage } from 'unstorage';
import fsDriver from 'unstorage/drivers/fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import { scopePrefix } from '../../src/persistence/state-records.js';
import { memoryStateStore, type StateStore } from '../../src/persistence/state-store.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { unstorageStore } from '../../src/stores/unstorage-store.js';
import type { Message } from '../../src/transcript/transcript.js';
import { SYSTEM } from '../helpers/fixtures.js';
import { POSTGRES_TABLE, POSTGRES_URL, postgresDown, REDIS_URL, redisDown } from '../helpers/services.js';
import { describeStoreSuite } from './store-suite.js';

/**
 * The shared store suite against each store. Stores of servers run against the real server; where none answers the
 * suite is skipped with the reason printed, unless CC_REQUIRE_SERVICES is set (as CI sets it): then it fails.
 */
describeStoreSuite(
  'unstorageStore (memory driver)',
  async () => {
    const storage = createStorage();
    return {
      store: unstorageStore(storage),
      corrupt: async (key) => {
        await storage.setItem(key, '{"version": 3, "cut off');
      },
      close: async () => {
        await storage.dispose();
      },
    };
  },
  { atomic: false },
);

describeStoreSuite(
  'unstorageStore (fs driver)',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cc-unstorage-'));
    const storage = createStorage({ driver: fsDriver({ base: dir }) });
    return {
      store: unstorageStore(storage),
      corrupt: async (key) => {
        await storage.setItem(key, 'not what the store writes');
      },
      close: async () => {
        await storage.dispose();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  { atomic: false },
);

describeStoreSuite('memoryStateStore', async () => ({ store: memoryStateStore(), close: async () => {} }), {
  serializes: false,
});

describeStoreSuite(
  'redisStore',
  async () => {
    const raw = createClient({ url: REDIS_URL });
    raw.on('error', () => {});
    await raw.connect();
    const store = redisStore({ url: REDIS_URL });
    return {
      store,
      corrupt: async (key) => {
        await raw.set(key, '{"version": 3, "cut off');
      },
      close: async () => {
        await store.close();
        await raw.close();
      },
    };
  },
  { skip: redisDown },
);

describeStoreSuite(
  'postgresStore',
  async () => {
    const raw = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    const store = postgresStore({ connectionString: POSTGRES_URL, table: POSTGRES_TABLE });
    return {
      store,
      corrupt: async (key) => {
        await store.set(key, 'placeholder');
        await raw.query(`UPDATE ${POSTGRES_TABLE} SET value = $2 WHERE key = $1`, [key, '{"version": 3, "cut off']);
      },
      close: async () => {
        await store.close();
        await raw.end();
      },
    };
  },
  { skip: postgresDown },
);

describe('postgresStore options', () => {
  it('names what to pass when it gets neither a pool nor a connection string, and refuses an unsafe table name', () => {
    expect(() => postgresStore({} as never)).toThrow(/pass \{ pool \}/);
    expect(() => postgresStore({ connectionString: POSTGRES_URL, table: 'state; DROP TABLE users' })).toThrow(
      /schema\.name/,
    );
  });
});

describe.skipIf(postgresDown !== undefined)('postgresStore on a pool of the caller', () => {
  it('creates its table in the schema given and leaves the pool open on close()', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    try {
      await pool.query('CREATE SCHEMA IF NOT EXISTS cc_test_schema');
      const store = postgresStore({ pool, table: 'cc_test_schema.state' });
      await store.set('k', { a: 1 });
      await store.close();
      const { rows } = await pool.query("SELECT obj_description('cc_test_schema.state'::regclass) AS comment");
      expect(rows[0]?.comment).toBe('context-compression state v1');
      expect(await postgresStore({ pool, table: 'cc_test_schema.state' }).get('k')).toEqual({ a: 1 });
    } finally {
      await pool.query('DROP SCHEMA IF EXISTS cc_test_schema CASCADE');
      await pool.end();
    }
  });
});

describe.skipIf(redisDown !== undefined)('redisStore under the engine', () => {
  const history = (turns: number): Message[] =>
    Array.from({ length: turns * 2 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      parts: [{ type: 'text', text: `Turn ${index}: ${'a detail worth keeping '.repeat(30)}` }],
    }));
  // one namespace for the engines of a test (as two processes of one service), a new one for each test
  let namespace = '';
  beforeEach(() => {
    namespace = `cc-test-${process.pid}-${Date.now()}-${Math.random()}`;
  });
  const engineOn = (store: StateStore, errors: CompressionErrorEvent[] = []) =>
    new CompressionEngine({
      contextWindow: 4_000,
      reserveOutputTokens: 500,
      tokenCounter: approximateCounter(),
      store,
      namespace,
      onError: (event) => errors.push(event),
    });
  const call = (engine: CompressionEngine, messages: readonly Message[]) =>
    engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });

  it('a second instance on the same Redis finds the state the first one made, with no summarizer call', async () => {
    const first = redisStore({ url: REDIS_URL });
    const second = redisStore({ url: REDIS_URL });
    try {
      const messages = history(30);
      const made = await call(engineOn(first), messages);
      expect(made.event?.messagesFolded).toBeGreaterThan(0);
      const again = await call(engineOn(second), messages);
      expect(again.event?.messagesFolded ?? 0).toBe(0);
      expect(again.event?.reusedState ?? true).toBe(true);
      expect(JSON.stringify(again.messages)).toBe(JSON.stringify(made.messages));
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('a corrupted record is reported and treated as absent: the call goes on', async () => {
    const store = redisStore({ url: REDIS_URL });
    const raw = createClient({ url: REDIS_URL });
    raw.on('error', () => {});
    await raw.connect();
    try {
      const errors: CompressionErrorEvent[] = [];
      const engine = engineOn(store, errors);
      const messages = history(30);
      const made = await call(engine, messages);
      expect(made.event?.messagesFolded).toBeGreaterThan(0);
      // every record this conversation stored (the test's namespace only), written over with something not JSON
      const keys: string[] = [];
      const prefix = scopePrefix(namespace);
      for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) keys.push(...batch);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) await raw.set(key, '{"version": 3, "cut', { PX: 60_000 });
      const fresh = engineOn(store, errors);
      const out = await call(fresh, messages);
      expect(out.messages.length).toBeGreaterThan(0);
      expect(errors.some((event) => event.fallback === 'without-store')).toBe(true);
    } finally {
      await store.close();
      await raw.close();
    }
  });
});
