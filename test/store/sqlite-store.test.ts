import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { approximateCounter } from '../../src/counting/token-counter.js';
import { CompressionEngine } from '../../src/engine/engine.js';
import type { StateStore } from '../../src/persistence/state-store.js';
import type { CompressionErrorEvent } from '../../src/reports/events.js';
import { type SqliteDatabase, sqliteStore } from '../../src/stores/sqlite-store.js';
import type { Message } from '../../src/transcript/transcript.js';
import { SYSTEM } from '../helpers/fixtures.js';
import { nodeSqlite, noSqlite } from '../helpers/services.js';
import { describeStoreSuite } from './store-suite.js';

type NodeSqlite = NonNullable<typeof nodeSqlite>;

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cc-sqlite-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describeStoreSuite(
  'sqliteStore (a file)',
  async () => {
    const path = join(await tempDir(), 'state.db');
    const store = sqliteStore({ path });
    return {
      store,
      corrupt: async (key) => {
        await store.set(key, 'placeholder');
        const raw = new (nodeSqlite as NodeSqlite).DatabaseSync(path);
        raw.prepare('UPDATE context_compression_state SET value = ? WHERE key = ?').run('{"version": 3, "cut', key);
        raw.close();
      },
      close: () => store.close(),
    };
  },
  { skip: noSqlite },
);

describeStoreSuite(
  'sqliteStore (a database of the caller, in memory, another table)',
  async () => {
    const database = new (nodeSqlite as NodeSqlite).DatabaseSync(':memory:');
    const store = sqliteStore({ database, table: 'state_of_tests' });
    return {
      store,
      corrupt: async (key) => {
        await store.set(key, 'placeholder');
        database.prepare('UPDATE state_of_tests SET value = ? WHERE key = ?').run('not json', key);
      },
      close: async () => {
        await store.close();
        database.close();
      },
    };
  },
  { skip: noSqlite },
);

describe('sqliteStore options', () => {
  it('names what to pass, and refuses an unsafe table name', () => {
    expect(() => sqliteStore({} as never)).toThrow(/pass \{ path \}/);
    const database = { exec() {}, prepare: () => ({ run: () => ({ changes: 0 }), get: () => undefined }), close() {} };
    expect(() => sqliteStore({ database, table: 'state"; DROP TABLE users; --' })).toThrow(/letters, digits/);
  });

  it.skipIf(nodeSqlite !== undefined)(
    'without node:sqlite, { path } says which Node.js has it and what else to pass',
    () => {
      expect(() => sqliteStore({ path: 'state.db' })).toThrow(/node:sqlite.*22\.5.*\{ database \}/s);
    },
  );
});

const history = (turns: number, tag = ''): Message[] =>
  Array.from({ length: turns * 2 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    parts: [{ type: 'text', text: `Turn ${index}${tag}: ${'a detail worth keeping '.repeat(30)}` }],
  }));
const engineOn = (store: StateStore, errors: CompressionErrorEvent[] = []) =>
  new CompressionEngine({
    contextWindow: 4_000,
    reserveOutputTokens: 500,
    tokenCounter: approximateCounter(),
    store,
    storeTimeoutMs: 5_000,
    onError: (event) => errors.push(event),
  });
const call = (engine: CompressionEngine, messages: readonly Message[]) =>
  engine.compress({ transcript: { system: SYSTEM, tools: [], messages }, modelId: 'test-model' });

describe.skipIf(noSqlite !== undefined)('sqliteStore on a database of the caller', () => {
  it("waits for another process's lock when the database would not (busy_timeout 0), and keeps a timeout set", async () => {
    const timeoutOf = (database: SqliteDatabase) =>
      Object.values(database.prepare('PRAGMA busy_timeout').get() as object)[0];
    const plain = new (nodeSqlite as NodeSqlite).DatabaseSync(':memory:');
    const tuned = new (nodeSqlite as NodeSqlite).DatabaseSync(':memory:');
    tuned.exec('PRAGMA busy_timeout = 250');
    await sqliteStore({ database: plain }).set('k', 1);
    await sqliteStore({ database: tuned }).set('k', 1);
    expect(timeoutOf(plain)).toBe(5_000);
    expect(timeoutOf(tuned)).toBe(250);
    plain.close();
    tuned.close();
  });
});

describe.skipIf(noSqlite !== undefined)('sqliteStore under the engine', () => {
  it('keeps the state across a restart: a new process on the same file folds nothing again', async () => {
    const path = join(await tempDir(), 'state.db');
    const messages = history(30);
    const before = sqliteStore({ path });
    const made = await call(engineOn(before), messages);
    await before.close();
    expect(made.event?.messagesFolded).toBeGreaterThan(0);

    const after = sqliteStore({ path });
    const again = await call(engineOn(after), messages);
    await after.close();
    expect(again.event?.messagesFolded ?? 0).toBe(0);
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(made.messages));
  });

  it('on a full disk: calls go on and report the failed writes; once there is room, the earlier state is intact and new writes land', async (context) => {
    const disk = await fullableDisk();
    if (!disk) return context.skip();
    const path = join(disk.dir, 'state.db');
    const store = sqliteStore({ path });
    const errors: CompressionErrorEvent[] = [];
    try {
      const first = history(30);
      const made = await call(engineOn(store, errors), first);
      expect(made.event?.messagesFolded).toBeGreaterThan(0);
      expect(errors).toEqual([]);

      await disk.fill();
      // another conversation, whose fold cannot be written
      const second = history(30, ' of another conversation');
      const out = await call(engineOn(store, errors), second);
      expect(out.event?.messagesFolded).toBeGreaterThan(0);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every((event) => event.fallback === 'without-store')).toBe(true);
      expect(String(errors[0]?.error.cause)).toMatch(/full|disk|I\/O/i);

      await disk.free();
      // the state written before the disk filled is read back whole by a fresh engine: no fold again
      const reread = await call(engineOn(store), first);
      expect(reread.event?.messagesFolded ?? 0).toBe(0);
      expect(JSON.stringify(reread.messages)).toBe(JSON.stringify(made.messages));
      // and the fold that could not be written is written now, then found
      await call(engineOn(store), second);
      const found = await call(engineOn(store), second);
      expect(found.event?.messagesFolded ?? 0).toBe(0);
    } finally {
      await store.close();
      await disk.close();
    }
  });
});

/**
 * A folder on a small disk of its own that a test fills and frees: a 2 MB tmpfs, where this process may mount one (as
 * root on Linux, as in CI). Undefined elsewhere (the reason printed): the test is then skipped.
 */
async function fullableDisk(): Promise<
  { dir: string; fill(): Promise<void>; free(): Promise<void>; close(): Promise<void> } | undefined
> {
  const dir = await tempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0];
    console.log(`sqliteStore full-disk test skipped: no tmpfs could be mounted here (${reason})`);
    return undefined;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    async fill() {
      // more than the disk holds: written until the disk refuses
      await writeFile(filler, Buffer.alloc(4 * 1024 * 1024)).catch(() => {});
    },
    async free() {
      await rm(filler, { force: true });
    },
    async close() {
      execFileSync('umount', [dir]);
    },
  };
}
