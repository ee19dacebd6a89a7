/**
 * `context-compression/stores/postgres`: the state in PostgreSQL, shared by every instance of a service. Needs `pg`, an
 * optional peer dependency loaded only by this store.
 */
export {
  DEFAULT_POSTGRES_TABLE,
  type PostgresStoreOptions,
  type PostgresStoreQueryable,
  postgresStore,
} from '../store/postgres-store.js';
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../store/state-store.js';
