/**
 * `context-compression/stores/sqlite`: the state in a SQLite file, kept across restarts on one machine. Opens the file
 * with `node:sqlite` (Node.js 22.5 and later, nothing to install), or uses a better-sqlite3 database of the caller's.
 */
export {
  DEFAULT_SQLITE_TABLE,
  type SqliteDatabase,
  type SqliteStatement,
  type SqliteStoreOptions,
  sqliteStore,
} from '../store/sqlite-store.js';
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../store/state-store.js';
