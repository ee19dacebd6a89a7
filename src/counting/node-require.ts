/**
 * A synchronous `require` on runtimes that have one (Node 20.16+, Bun, Deno), else undefined. It is reached through
 * `process.getBuiltinModule` rather than an import of `node:module`, so bundles for the edge neither fail on it nor
 * follow it: what it loads is never part of a bundle that does not use it.
 */
export function nodeRequire(): NodeJS.Require | undefined {
  const process = globalThis.process;
  if (typeof process?.getBuiltinModule !== 'function') return undefined;
  return process.getBuiltinModule('node:module').createRequire(import.meta.url);
}
