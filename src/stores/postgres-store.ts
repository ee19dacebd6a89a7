/**
 * `context-compression/stores/postgres`: the state in PostgreSQL, shared by every instance of a service. Needs `pg`, an
 * optional peer dependency loaded only by this store.
 */
import type { ClosableStateStore, StateStoreSetOptions } from '../persistence/state-store.js';
import { lazyConnection, parseStoredText } from './store-connection.js';

/** The part of a `pg` pool (or client) the store uses. */
export interface PostgresStoreQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount: number | null }>;
  end?(): Promise<void>;
}

/** Options of `postgresStore`: a `pg` pool of the caller's, or a connection string to make one from, and the table. */
export type PostgresStoreOptions = (
  | { readonly pool: PostgresStoreQueryable; readonly connectionString?: undefined }
  | { readonly connectionString: string; readonly pool?: undefined }
) & {
  /** The table of the records, created when missing; a name, optionally schema-qualified. @default 'context_compression_state' */
  readonly table?: string;
};

/** The default table. */
export const DEFAULT_POSTGRES_TABLE = 'context_compression_state';

/** A table name the store accepts: `name` or `schema.name`, letters, digits and underscores. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Expired rows are deleted on every this many writes of one store. */
const SWEEP_EVERY_WRITES = 100;

/**
 * A state store in PostgreSQL (`pg`, an optional peer dependency: `npm install pg`). One row per record: the key, the
 * value as JSON text (text, not `jsonb`: the value comes back byte for byte, and `jsonb` refuses `\u0000`), and when
 * it expires. The table is created on first use (`CREATE TABLE IF NOT EXISTS`, with an index on the expiry); its
 * shape is versioned by the table's comment (`context-compression state v1`), so a later version can migrate it
 * in place. Expired rows are never read and are deleted every 100 writes; `deletePrefix` deletes by `LIKE`. `setIfAbsent`
 * and `compareAndSet` are one statement each (atomic), so concurrent writers of an index lose no entry.
 */
export function postgresStore(options: PostgresStoreOptions): ClosableStateStore {
  if (!options || (options.pool === undefined && typeof options.connectionString !== 'string')) {
    throw new TypeError(
      'postgresStore: pass { pool } (a pg Pool) or { connectionString } ("postgres://user@host:5432/db")',
    );
  }
  const table = options.table ?? DEFAULT_POSTGRES_TABLE;
  if (!TABLE_NAME.test(table)) {
    throw new TypeError(`postgresStore: the table must be a name or schema.name (letters, digits, _), not ${table}`);
  }
  const own = options.pool === undefined;
  const quoted = table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
  const index = `"${table.replace('.', '_')}_expires_at"`;
  let writes = 0;
  const connection = lazyConnection(() => connect(options, quoted, index));
  const setIfAbsent = async (key: string, value: unknown, setOptions?: StateStoreSetOptions) => {
    const ttl = setOptions?.ttlMs;
    // inserted, or written over an expired row (never read as present); a live row is left as it is
    const result = await (await connection.get()).query(
      `INSERT INTO ${quoted} AS t (key, value, expires_at)
       VALUES ($1, $2, CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
       WHERE t.expires_at IS NOT NULL AND t.expires_at <= now()`,
      [key, JSON.stringify(value), ttl && ttl > 0 ? ttl : null],
    );
    return (result.rowCount ?? 0) > 0;
  };
  return {
    async get(key) {
      const { rows } = await (await connection.get()).query(
        `SELECT value FROM ${quoted} WHERE key = $1 AND (expires_at IS NULL OR expires_at > now())`,
        [key],
      );
      return parseStoredText('postgresStore', key, rows[0]?.value);
    },
    async set(key: string, value: unknown, setOptions?: StateStoreSetOptions) {
      const client = await connection.get();
      const ttl = setOptions?.ttlMs;
      await client.query(
        `INSERT INTO ${quoted} (key, value, expires_at)
         VALUES ($1, $2, CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
        [key, JSON.stringify(value), ttl && ttl > 0 ? ttl : null],
      );
      if (++writes % SWEEP_EVERY_WRITES === 0) {
        await client.query(`DELETE FROM ${quoted} WHERE expires_at <= now()`);
      }
    },
    setIfAbsent,
    async compareAndSet(key: string, expected: unknown, value: unknown, setOptions?: StateStoreSetOptions) {
      if (expected === undefined) return setIfAbsent(key, value, setOptions);
      const ttl = setOptions?.ttlMs;
      // one statement: a concurrent update of the row makes this one see the new value, which no longer matches
      const result = await (await connection.get()).query(
        `UPDATE ${quoted} SET value = $2,
           expires_at = CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END
         WHERE key = $1 AND value = $4 AND (expires_at IS NULL OR expires_at > now())`,
        [key, JSON.stringify(value), ttl && ttl > 0 ? ttl : null, JSON.stringify(expected)],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async delete(key) {
      await (await connection.get()).query(`DELETE FROM ${quoted} WHERE key = $1`, [key]);
    },
    async deletePrefix(prefix) {
      const pattern = `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
      const result = await (await connection.get()).query(`DELETE FROM ${quoted} WHERE key LIKE $1 ESCAPE '\\'`, [
        pattern,
      ]);
      return result.rowCount ?? 0;
    },
    async close() {
      if (own) await (await connection.take())?.end?.();
    },
  };
}

/** A client of the caller's pool or of a pool of our own, with the table and its index created when missing. */
async function connect(options: PostgresStoreOptions, quoted: string, index: string): Promise<PostgresStoreQueryable> {
  let client: PostgresStoreQueryable;
  if (options.pool) client = options.pool;
  else {
    const pool = new (await import('pg')).default.Pool({ connectionString: options.connectionString });
    // an idle connection the server closes (a restart) is an 'error' event of the pool, which would end the process
    // unheard; the pool drops that connection, and queries meanwhile fail and reach the engine as StoreError
    pool.on('error', () => {});
    client = pool;
  }
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoted} (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz)`,
  );
  await client.query(`CREATE INDEX IF NOT EXISTS ${index} ON ${quoted} (expires_at)`);
  await client.query(`COMMENT ON TABLE ${quoted} IS 'context-compression state v1'`);
  return client;
}

// the store contract, for code that takes this store as a StateStore
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../persistence/state-store.js';
