/**
 * `context-compression/stores/sqlite`: the state in a SQLite file, kept across restarts on one machine. Opens the file
 * with `node:sqlite` (Node.js 22.5 and later, nothing to install), or uses a better-sqlite3 database of the caller's.
 */
import type { ClosableStateStore, StateStoreSetOptions } from '../persistence/state-store.js';

/** A prepared statement, as `node:sqlite` and better-sqlite3 both have it (positional parameters). */
export interface SqliteStatement {
  run(...parameters: unknown[]): { changes: number | bigint };
  get(...parameters: unknown[]): unknown;
}

/**
 * The part of a SQLite database the store uses: a `DatabaseSync` of `node:sqlite` or a better-sqlite3 `Database`.
 * A database the caller passes is used as it is and left open by `close()`.
 */
export interface SqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  close(): unknown;
}

/** Options of `sqliteStore`: a file to open with `node:sqlite`, or a database of the caller's, and the table. */
export type SqliteStoreOptions = (
  | { readonly path: string; readonly database?: undefined }
  | { readonly database: SqliteDatabase; readonly path?: undefined }
) & {
  /**
   * The table of the records, created when missing: letters, digits and underscores.
   * @default 'context_compression_state'
   */
  readonly table?: string;
  /**
   * Milliseconds a write waits for another process's write lock (SQLite's `busy_timeout`): on a file the store opens,
   * and on a database of the caller's whose timeout is 0 (SQLite's default). The wait blocks the thread; a busy disk
   * can hold a lock for over a second while processes open a new file at once, hence the default of better-sqlite3
   * and Python's sqlite3. @default 5000
   */
  readonly busyTimeoutMs?: number;
  /** Milliseconds since the epoch, for expiries; injectable for tests. @default Date.now */
  readonly now?: () => number;
};

/** The default table. */
export const DEFAULT_SQLITE_TABLE = 'context_compression_state';

/** The shape of the table, kept in its row of the meta table: a later version migrates from it in place. */
const TABLE_VERSION = 1;
const META_TABLE = 'context_compression_meta';
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SWEEP_EVERY_WRITES = 100;

type NodeSqlite = { DatabaseSync: new (path: string) => SqliteDatabase };

/** `node:sqlite`, found at run time: no import for bundlers to resolve, a clear error where Node.js has none. */
function nodeSqlite(): NodeSqlite {
  const sqlite = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
  if (!sqlite) {
    throw new TypeError(
      `sqliteStore({ path }) opens the file with node:sqlite, built into Node.js from 22.5 (without a flag from 22.13); ` +
        `this is Node.js ${process.versions.node}. Pass { database } instead: a better-sqlite3 Database of yours`,
    );
  }
  return sqlite;
}

/** The statements of one opened database. */
interface SqliteStatements {
  readonly database: SqliteDatabase;
  readonly get: SqliteStatement;
  readonly set: SqliteStatement;
  readonly setIfAbsent: SqliteStatement;
  readonly replaceIf: SqliteStatement;
  readonly delete: SqliteStatement;
  readonly deletePrefix: SqliteStatement;
  readonly sweep: SqliteStatement;
}

/** Creates the table, its index and its version row when missing. */
function prepareTable(
  database: SqliteDatabase,
  table: string,
  { busyTimeoutMs, callers }: { busyTimeoutMs: number; callers: boolean },
): void {
  // a database of the caller's that would fail at once on another process's lock (SQLite's default) waits too;
  // a timeout the caller set is kept
  const busy = database.prepare('PRAGMA busy_timeout').get() as Record<string, unknown> | undefined;
  if (callers && busy && Object.values(busy)[0] === 0) database.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  database.exec(
    `CREATE TABLE IF NOT EXISTS "${table}" (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER);
     CREATE INDEX IF NOT EXISTS "${table}_expires_at" ON "${table}" (expires_at);
     CREATE TABLE IF NOT EXISTS ${META_TABLE} (table_name TEXT PRIMARY KEY, version INTEGER NOT NULL);
     INSERT OR IGNORE INTO ${META_TABLE} (table_name, version) VALUES ('${table}', ${TABLE_VERSION});`,
  );
}

function prepareStatements(database: SqliteDatabase, table: string): SqliteStatements {
  const upsert = `INSERT INTO "${table}" AS t (key, value, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`;
  return {
    database,
    get: database.prepare(`SELECT value FROM "${table}" WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)`),
    set: database.prepare(upsert),
    // inserted, or written over an expired row (never read as present); a live row is left as it is
    setIfAbsent: database.prepare(`${upsert} WHERE t.expires_at IS NOT NULL AND t.expires_at <= ?`),
    // the live row holding the expected text, written over
    replaceIf: database.prepare(
      `UPDATE "${table}" SET value = ?, expires_at = ? WHERE key = ? AND value = ? AND (expires_at IS NULL OR expires_at > ?)`,
    ),
    delete: database.prepare(`DELETE FROM "${table}" WHERE key = ?`),
    // GLOB is exact and case-sensitive (LIKE is not, for ASCII); its pattern characters are escaped below
    deletePrefix: database.prepare(`DELETE FROM "${table}" WHERE key GLOB ?`),
    sweep: database.prepare(`DELETE FROM "${table}" WHERE expires_at <= ?`),
  };
}

function openFile(sqlite: NodeSqlite, path: string, busyTimeoutMs: number): SqliteDatabase {
  const database = new sqlite.DatabaseSync(path);
  // a write waits a moment for another process's lock rather than failing (set first: switching the journal to WAL
  // takes a lock too, which two processes opening a new file at once both ask for); then many readers beside one
  // writer, across processes
  database.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL`);
  return database;
}

/**
 * A state store in a SQLite file: the embedded choice for one machine, kept across restarts and shared by the
 * processes of that machine (SQLite's own locking; the file in WAL mode). `{ path }` opens the file with `node:sqlite`,
 * which ships with Node.js (22.5 and later): nothing to install, no native binary to download or compile per Node.js
 * version. On an older Node.js, pass `{ database }`: a better-sqlite3 `Database` (or any `DatabaseSync`) of yours.
 *
 * One row per record: the key, the value as JSON text and the expiry in epoch milliseconds; expired rows are never read
 * and are deleted every 100 writes. The table is created on first use; its version is kept in
 * `context_compression_meta`.
 * Statements run synchronously, as SQLite does in process (a 2 MB write takes milliseconds). `setIfAbsent` and
 * `compareAndSet` are one atomic statement each, so processes sharing the file agree on which of them summarizes a
 * fold and lose no entry of an index they write at once.
 */
export function sqliteStore(options: SqliteStoreOptions): ClosableStateStore {
  if (!options || (options.database === undefined && typeof options.path !== 'string')) {
    throw new TypeError('sqliteStore: pass { path } (a file, ":memory:" for a throwaway one) or { database }');
  }
  const table = options.table ?? DEFAULT_SQLITE_TABLE;
  if (!TABLE_NAME.test(table)) {
    throw new TypeError(`sqliteStore: the table must be a name of letters, digits and _, not ${table}`);
  }
  const now = options.now ?? Date.now;
  const sqlite = options.database === undefined ? nodeSqlite() : undefined;
  const own = options.database === undefined;
  let writes = 0;
  let opened: SqliteStatements | undefined;
  let closed = false;
  const open = () => {
    if (closed) throw new Error('sqliteStore: the store is closed');
    if (opened) return opened;
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    const database = options.database ?? openFile(sqlite as NodeSqlite, options.path as string, busyTimeoutMs);
    try {
      prepareTable(database, table, { busyTimeoutMs, callers: options.database !== undefined });
    } catch (error) {
      // a file this store opened is closed again (the next operation opens it anew); the caller's is theirs
      if (own) database.close();
      throw error;
    }
    opened = prepareStatements(database, table);
    return opened;
  };
  const expiry = (setOptions?: StateStoreSetOptions) => {
    const ttl = setOptions?.ttlMs;
    return ttl && ttl > 0 ? Math.ceil(now() + ttl) : null;
  };
  return {
    async get(key) {
      const row = open().get.get(key, now()) as { value?: unknown } | undefined;
      if (row === undefined) return undefined;
      if (typeof row.value !== 'string') throw new TypeError(`sqliteStore: the value of ${key} is not text`);
      return JSON.parse(row.value);
    },
    async set(key: string, value: unknown, setOptions?: StateStoreSetOptions) {
      const statements = open();
      statements.set.run(key, JSON.stringify(value), expiry(setOptions));
      if (++writes % SWEEP_EVERY_WRITES === 0) statements.sweep.run(now());
    },
    async setIfAbsent(key: string, value: unknown, setOptions?: StateStoreSetOptions) {
      const { changes } = open().setIfAbsent.run(key, JSON.stringify(value), expiry(setOptions), now());
      return Number(changes) > 0;
    },
    async compareAndSet(key: string, expected: unknown, value: unknown, setOptions?: StateStoreSetOptions) {
      const text = JSON.stringify(value);
      const { changes } =
        expected === undefined
          ? open().setIfAbsent.run(key, text, expiry(setOptions), now())
          : open().replaceIf.run(text, expiry(setOptions), key, JSON.stringify(expected), now());
      return Number(changes) > 0;
    },
    async delete(key) {
      open().delete.run(key);
    },
    async deletePrefix(prefix) {
      const pattern = `${prefix.replace(/[*?[]/g, '[$&]')}*`;
      return Number(open().deletePrefix.run(pattern).changes);
    },
    async close() {
      closed = true;
      const database = opened?.database;
      opened = undefined;
      if (own) database?.close();
    },
  };
}

// the store contract, for code that takes this store as a StateStore
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../persistence/state-store.js';
