/**
 * A generated function-calling agent, written for the benchmarks so that hiding is judged on an agent whose tools and
 * output formats no recorded run has: an operations assistant with `lookup_customer` (JSON records), `query_db`
 * (psql-style tables), `http_get` (HTML pages and JSON APIs), `list_dir` (listings with kinds and sizes),
 * `grep_files` (hits grouped by file), `run_python` (output or tracebacks), and actions (`issue_refund`,
 * `send_email`, `create_ticket`, `annotate_account`).
 *
 * A run is three to five user tasks in a row (refunds, incidents, revenue reports), then a follow-up that refers back
 * to the refund and the ticket. What the assistant uses again is fixed by each task, not by any compression policy:
 * the values a task needs (account, order and charge ids, e-mail addresses, hosts, error codes, paths and lines,
 * column names, totals) come back in later text and inside later calls' arguments (SQL, URLs, JSON bodies), several
 * steps after the output that gave them. Side steps between them (listings, searches, runbooks, checks) give outputs
 * that are never used again, though the assistant remarks on one now and then. Deterministic: a seed gives the same
 * run on every machine, and no recorded data is read, so the benchmarks have it where the fixtures are absent.
 */
import type { SessionFile } from '../../examples/lib/session-file.js';
import { followUpTask } from './generic/follow-up-task.js';
import { incidentTask } from './generic/incident-task.js';
import { seededRandom } from './generic/random.js';
import { type RunMemory, refundTask } from './generic/refund-task.js';
import { reportTask } from './generic/report-task.js';
import { SIDE_STEPS } from './generic/side-steps.js';
import { RunWriter } from './generic/writer.js';

/** The source label of the generated runs, beside the recorded agents' (see `AGENT_SOURCES`). */
export const GENERIC_AGENT = 'generic-agent';

const SYSTEM = [
  'You are the operations assistant of a small cloud company. You help the support, finance and on-call teams.',
  'Use the tools to look things up before you act; never guess an id, an amount or an address.',
  'Tools: lookup_customer, query_db, http_get, list_dir, grep_files, run_python, issue_refund, send_email,',
  'create_ticket, annotate_account. Call one tool per step and say briefly what you do.',
].join('\n');

type Task = (writer: RunWriter, memory: RunMemory) => void;

const TASKS: readonly Task[] = [refundTask, incidentTask, (writer) => reportTask(writer)];

/** One generated run: a refund, an incident and one to three more tasks in a seeded order, then the follow-up. */
export function genericAgentRun(seed: number): SessionFile {
  const random = seededRandom(seed);
  const writer = new RunWriter(random, SYSTEM, SIDE_STEPS);
  const memory: RunMemory = {};
  const tasks: Task[] = [refundTask, incidentTask];
  for (let more = random.int(1, 3); more > 0; more--) tasks.push(random.pick(TASKS));
  for (let index = tasks.length - 1; index > 0; index--) {
    const other = random.int(0, index);
    [tasks[index], tasks[other]] = [tasks[other] as Task, tasks[index] as Task];
  }
  for (const task of tasks) task(writer, memory);
  followUpTask(writer, memory);
  return {
    id: `${GENERIC_AGENT}/seed-${seed}`,
    source: `${GENERIC_AGENT}/operations`,
    task: 'operations assistant',
    messages: writer.messages,
  };
}

/** The generated runs of the benchmarks: `count` runs of seeds `firstSeed`, `firstSeed + 1`, ... */
export function genericAgentRuns(count = 12, firstSeed = 1): SessionFile[] {
  return Array.from({ length: count }, (_unused, index) => genericAgentRun(firstSeed + index));
}
