import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type InstanceReport, type InstanceTask, runInstances } from '../helpers/instance-worker.js';
import { noSqlite, POSTGRES_TABLE, POSTGRES_URL, postgresDown, REDIS_URL, redisDown } from '../helpers/services.js';

/**
 * Many instances, one conversation: two engines in two processes share Redis, PostgreSQL or a SQLite file, and 20
 * parallel requests of one long conversation (10 per process, each ending in its own question) all need the same
 * fold. The fold's lease in the store makes one summarizer call in all; every prompt carries that one state (its text
 * names the process that made it) and keeps its tool calls paired. Without the lease each process summarizes.
 */

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function twoInstances(
  store: InstanceTask['store'],
  foldLease: InstanceTask['foldLease'],
  summarizerDelayMs = 300,
): Promise<InstanceReport[]> {
  const namespace = `cc-test-${process.pid}-${Date.now()}-${Math.random()}`;
  const even = Array.from({ length: 10 }, (_, index) => index * 2);
  const odd = even.map((question) => question + 1);
  return runInstances([even, odd].map((questions) => ({ store, namespace, questions, summarizerDelayMs, foldLease })));
}

function expectOneSummary(reports: InstanceReport[]): void {
  expect(reports.map((report) => report.errors)).toEqual([[], []]);
  expect(reports.reduce((sum, report) => sum + report.summarizerCalls, 0)).toBe(1);
  const requests = reports.flatMap((report) => report.requests);
  expect(requests).toHaveLength(20);
  const states = new Set(requests.map((request) => request.state));
  expect(states.size).toBe(1);
  const maker = reports.find((report) => report.summarizerCalls === 1);
  expect([...states][0]).toContain(`summarized by process ${maker?.pid}`);
  // every prompt valid; each carries the one state (folded by its call, or found stored by a call that came later)
  for (const request of requests) expect(request.paired).toBe(true);
  expect(reports.reduce((sum, report) => sum + report.heldElsewhere, 0)).toBe(0);
}

const stores: Array<[string, () => Promise<InstanceTask['store']>, string | undefined]> = [
  ['Redis', async () => ({ kind: 'redis', url: REDIS_URL }), redisDown],
  ['PostgreSQL', async () => ({ kind: 'postgres', url: POSTGRES_URL, table: POSTGRES_TABLE }), postgresDown],
  [
    'a SQLite file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'cc-shared-'));
      dirs.push(dir);
      return { kind: 'sqlite', path: join(dir, 'state.db') };
    },
    noSqlite,
  ],
];

for (const [name, storeOf, skip] of stores) {
  if (skip) console.log(`two instances on ${name}: skipped, ${skip}`);
  describe.skipIf(skip !== undefined)(`two instances on ${name}`, () => {
    it('20 parallel requests: one summarizer call, one state in every prompt, every prompt valid', async () => {
      expectOneSummary(await twoInstances(await storeOf(), { waitMs: 10_000 }));
    }, 90_000);

    it('without the lease, each process summarizes', async () => {
      // a slow summarizer, so that neither process finds the other's stored fold, however busy the machine
      const reports = await twoInstances(await storeOf(), false, 3_000);
      expect(reports.map((report) => report.summarizerCalls)).toEqual([1, 1]);
    }, 90_000);
  });
}
