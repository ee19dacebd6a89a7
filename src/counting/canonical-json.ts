/**
 * JSON text of a value with every object's keys in sorted order: equal for equal content, whatever order the keys were
 * written in (a state built by a fold and the same state read back through its schema). For plain JSON data.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
