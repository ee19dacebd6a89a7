/** Deep snapshots of a caller's input, to check that a call left it unchanged. */
import { short, type Violation } from './invariants.js';

/** A deep snapshot of a value for mutation checks: own enumerable properties, bytes and URLs included. */
export function snapshot(value: unknown): string {
  const seen = new WeakSet<object>();
  const walk = (inner: unknown): unknown => {
    if (inner === undefined) return '[undefined]';
    if (inner === null || typeof inner !== 'object') return typeof inner === 'function' ? '[function]' : inner;
    if (inner instanceof Uint8Array) return `[bytes ${Buffer.from(inner).toString('base64')}]`;
    if (inner instanceof URL) return `[url ${inner.href}]`;
    if (seen.has(inner)) return '[seen]';
    seen.add(inner);
    if (Array.isArray(inner)) return inner.map(walk);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(inner)) out[key] = walk((inner as Record<string, unknown>)[key]);
    return out;
  };
  return JSON.stringify(walk(value));
}

/** A violation when a caller's input changed during a call. */
export function checkUnmutated(before: string, input: unknown): Violation[] {
  const after = snapshot(input);
  if (after === before) return [];
  let at = 0;
  while (at < before.length && before[at] === after[at]) at++;
  return [
    {
      kind: 'input-mutated',
      detail: `first difference at ${at}: ${short(before.slice(Math.max(0, at - 40), at + 80))}`,
    },
  ];
}
