import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `maxEntries` entries whose storage grows as it fills. lru-cache's `max` allocates every slot
 * when the cache is made (about 4 ms for 50,000 entries, paid by every new engine before its first call); a `maxSize`
 * of one per entry bounds it the same way with arrays that grow.
 */
export function boundedCache<K extends {}, V extends {}>(maxEntries: number): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: maxEntries, sizeCalculation: () => 1 });
}
