/**
 * `context-compression/stores/langgraph`: the state in a LangGraph `BaseStore` (`InMemoryStore`, `PostgresStore`,
 * the platform's store, ...). Imports nothing of LangGraph: pass the store your graph uses.
 */

export {
  DEFAULT_LANGGRAPH_STORE_NAMESPACE,
  type LangGraphBaseStoreLike,
  type LangGraphStoreOptions,
  langgraphStore,
} from '../store/langgraph-store.js';
export type { ClosableStateStore, StateStore, StateStoreSetOptions } from '../store/state-store.js';
